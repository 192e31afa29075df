import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { CrashStep, StepReached } from './crash-points.ts';

/**
 * What jobs reach besides their props, built once by app.ts. Each feature adds what its jobs use
 * where it defines it (`declare module '../jobs/job-definition.ts' { interface JobServices { … } }`:
 * the catalog, the webhook target), as it does for GraphQLServices, so this base module names no
 * feature.
 */
export interface JobServices {
  logger: Logger;
  /** Counts job runs (the runtime does) and whatever a job counts of its own. */
  metrics: Metrics;
}

/** Options of queueing one job (`JobQueue.queue`). */
export interface QueueOptions {
  /**
   * Reschedule a job already queued with the same unique prop to run now, with these props,
   * instead of leaving it as it is (a redelivery asked for while the delivery waits for a retry).
   */
  replace?: boolean;
}

/** Queueing jobs by their definitions: what requests and jobs may ask of the job system. */
export interface JobQueue {
  /**
   * Queues one run of `definition` with `props`, to run now. With a `unique` prop, a job of that
   * definition already queued or running with the same value is left as it is (unless `replace`):
   * queueing twice is one job.
   */
  queue<Props extends object>(definition: JobDefinition<Props, CrashStep>, props: Props, options?: QueueOptions): Promise<void>;
  /**
   * The props of the jobs of `definition` that are live: queued (a retry included), running, or
   * locked by a worker. A job whose retries ran out, or a finished one not removed, is not live.
   */
  live<Props extends object>(definition: JobDefinition<Props, CrashStep>): Promise<Props[]>;
}

/** What one run of a job gets besides its props. */
export interface JobContext<Step extends CrashStep = never> {
  services: JobServices;
  /** Queues further jobs (a release check queues one delivery per notification). */
  jobs: JobQueue;
  /** Failed runs of this job before this one (0 on its first run; retries count up). */
  failures: number;
  /** The job lock lifetime (AIRDATE_JOB_LOCK_MS): a job locked this long without renewal is another worker's to take. */
  lockMs: number;
  /**
   * Called at each of the job's declared crash points (`crashPoints`): a process configured to die
   * there (AIRDATE_TEST_CRASH_AT, src/jobs/crash-points.ts) dies; otherwise nothing happens.
   */
  reached: StepReached<Step>;
}

/** Automatic retries of a failed run: `attempts` more runs, the first `firstDelayMs` later, each wait twice the one before. */
export interface RetryOptions {
  attempts: number;
  firstDelayMs: number;
}

/**
 * The retries of a job whose failure is passing (a database briefly unreachable, say): five, from
 * 30 s to 16 minutes apart, about half an hour in all.
 */
export const retryFiveTimes: RetryOptions = { attempts: 5, firstDelayMs: 30_000 };

/**
 * One kind of background job, declared once in its feature and collected with the others in
 * src/jobs.ts, as a REST route is in src/routes.ts. `perform` is the whole job: it takes the
 * props the job was queued with and a context, so a test can call it directly.
 *
 * A job has no lock lifetime of its own: the job system renews the lock of every job a process
 * holds every third of AIRDATE_JOB_LOCK_MS (held-locks.ts), so a long run keeps its lock and the
 * jobs of a dead process are taken over that long after it died. `perform` must therefore be safe
 * to run again after a crash at any point.
 */
export interface JobDefinition<Props extends object = Record<string, never>, Step extends CrashStep = never> {
  /**
   * The job's stored name, unique among all jobs. Stored jobs carry it, so renaming a job strands
   * the ones queued under the old name.
   */
  name: string;
  /** One run. A throw fails it (retried as `retry` says); a `RetryLater` asks for its own delay. */
  perform(props: Props, context: JobContext<Step>): Promise<void>;
  /**
   * The prop that makes the job unique: while a job with the same value is queued or running,
   * queueing another changes nothing (one sync per account, one delivery per notification).
   * Without it, every queueing is a job of its own.
   */
  unique?: keyof Props & string;
  /** Runs of this job one process runs at once (10 unless said). */
  concurrency?: number;
  /**
   * Jobs of this kind one process locks ahead of running them (100 unless said). Set it to
   * `concurrency` where jobs locked beyond what can run would wait here while other workers could
   * run them.
   */
  lockLimit?: number;
  /** Retries of a failed run; none unless said (a recurring job then runs again at its next time). */
  retry?: RetryOptions;
  /**
   * Runs by itself at this interval (Agenda's words: '30 minutes', '1 minute'), once across all
   * workers; the first run comes when the first worker starts. A recurring job takes no props.
   */
  every?: string;
  /** The crash steps this job reaches (`context.reached`), where the crash tests kill its process. */
  crashPoints?: readonly Step[];
}

/** Any job's definition, as lists of them hold it (each job's props are its own). */
export type AnyJobDefinition = JobDefinition<any, CrashStep>;

/**
 * `definition`, typed: the props and crash steps are read from it, so that `perform` and
 * `queue` agree without the types being written twice.
 */
export function defineJob<Props extends object = Record<string, never>, const Step extends CrashStep = never>(
  definition: JobDefinition<Props, Step>,
): JobDefinition<Props, Step> {
  return definition;
}

/**
 * Thrown by a job that should run again after `delayMs`, chosen by the job (a webhook's retry
 * schedule, its Retry-After): counted as a retry, not logged as a failure. Only a job that
 * declares `retry` is run again.
 */
export class RetryLater extends Error {
  constructor(readonly delayMs: number, what = 'job') {
    super(`${what} will be retried in ${Math.round(delayMs / 1000)} s`);
    this.name = 'RetryLater';
  }
}
