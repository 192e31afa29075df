import type { Agenda, BackoffContext } from 'agenda';
import { currentRequestId } from '../log.ts';
import type { CrashStep, StepReached } from './crash-points.ts';
import { RetryLater, type AnyJobDefinition, type JobDefinition, type JobQueue, type JobServices, type QueueOptions, type RetryOptions } from './job-definition.ts';
import { loggedJobFailures, observedJob, requestIdKey } from './observed-job.ts';

/** What `defineJobs` gives every run besides its props. */
export interface DefineJobsProps {
  services: JobServices;
  /** The job lock lifetime (AIRDATE_JOB_LOCK_MS). */
  lockMs: number;
  /** Called at each crash point a job reaches (AIRDATE_TEST_CRASH_AT); nothing by default. */
  onStep?: StepReached;
}

/**
 * Defines every job of `definitions` on `agenda` (a worker must define them before starting; every
 * process defines them, so that any may queue): each run observed (logged in the job's context,
 * counted, src/jobs/observed-job.ts) and given its props and context; retries as each declares.
 * Throws when two definitions share a name.
 */
export function defineJobs(agenda: Agenda, definitions: readonly AnyJobDefinition[], props: DefineJobsProps): void {
  const { logger, metrics } = props.services;
  const observed = { logger, metrics, isRetry: (error: unknown) => error instanceof RetryLater };
  const jobs = agendaJobQueue(agenda);
  const reached = props.onStep ?? (() => {});
  const names = new Set<string>();
  for (const definition of definitions) {
    if (names.has(definition.name)) throw new Error(`two jobs are named ${definition.name}`);
    names.add(definition.name);
    const run = observedJob(definition.name, observed, async (job) => {
      // The id of the request that queued it is the log context's (observedJob), not a prop.
      const { [requestIdKey]: _requestId, ...jobProps } = (job.attrs.data ?? {}) as Record<string, unknown>;
      await definition.perform(jobProps, { services: props.services, jobs, failures: job.attrs.failCount ?? 0, lockMs: props.lockMs, reached });
    });
    agenda.define(definition.name, run, {
      concurrency: definition.concurrency,
      lockLimit: definition.lockLimit,
      backoff: definition.retry && backoffOf(definition.retry),
    });
  }
  agenda.on('fail', (error: Error | string, job: { attrs: { name: string } }) => {
    // A handler's own failure was logged where it happened, with the job's context.
    if (error instanceof RetryLater || (typeof error === 'object' && loggedJobFailures.has(error))) return;
    logger.warn(`job ${job.attrs.name} failed: ${error instanceof Error ? error.message : error}`);
  });
}

/**
 * Agenda's back-off for `retry`: a job that threw `RetryLater` waits what it asked for; any other
 * failure (a database briefly unreachable, say) is retried `attempts` times, `firstDelayMs` apart
 * first, each wait twice the last.
 */
function backoffOf(retry: RetryOptions): (context: BackoffContext) => number | null {
  return (context) => {
    if (context.error instanceof RetryLater) return context.error.delayMs;
    return context.attempt <= retry.attempts ? retry.firstDelayMs * 2 ** (context.attempt - 1) : null;
  };
}

/** Makes the recurring jobs of `definitions` exist (once, however many workers call it), in the list's order. */
export async function scheduleRecurringJobs(agenda: Agenda, definitions: readonly AnyJobDefinition[]): Promise<void> {
  for (const definition of definitions) if (definition.every !== undefined) await agenda.every(definition.every, definition.name);
}

/** `JobQueue` on `agenda`, which must be ready (its store connected). */
export function agendaJobQueue(agenda: Agenda): JobQueue {
  return {
    queue: (definition, props, options) => queueJob(agenda, definition, props, options),
    live: (definition) => liveJobProps(agenda, definition),
  };
}

/**
 * Queues `definition` with `props` to run now; with a unique prop, unless a job with the same value
 * is already queued or running. A job that ran to its end without being removed (its retries
 * exhausted) still holds the unique key: it is scheduled again, else that account's syncs (or
 * that notification's delivery) would never run again. `replace` always reschedules the existing
 * job to run now.
 */
async function queueJob<Props extends object>(agenda: Agenda, definition: JobDefinition<Props, CrashStep>, props: Props, options: QueueOptions = {}): Promise<void> {
  let data: Record<string, unknown> = { ...(props as Record<string, unknown>) };
  // The request that queued the job (if any): the job's log lines carry its id.
  const requestId = currentRequestId();
  if (requestId !== undefined) data = { ...data, [requestIdKey]: requestId };
  if (definition.unique === undefined) {
    await agenda.create(definition.name, data).schedule(new Date()).save();
    return;
  }
  const unique = { [`data.${definition.unique}`]: data[definition.unique] };
  const job = await agenda.create(definition.name, data).unique(unique, { insertOnly: !options.replace }).schedule(new Date()).save();
  if (options.replace || job.attrs.nextRunAt !== null) return;
  // nextRunAt is null while a one-time job runs too; only an unlocked one has finished.
  const stored = await agenda.db.getJobById(String(job.attrs._id));
  if (stored && !stored.lockedAt && stored.nextRunAt === null) await job.unique(unique).schedule(new Date()).save();
}

/** The props of the live jobs of `definition` (queued, running or locked; JobQueue.live). */
async function liveJobProps<Props extends object>(agenda: Agenda, definition: JobDefinition<Props, CrashStep>): Promise<Props[]> {
  const { jobs } = await agenda.db.queryJobs({ name: definition.name });
  return jobs.filter((job) => job.nextRunAt || job.lockedAt).map((job) => (job.data ?? {}) as Props);
}
