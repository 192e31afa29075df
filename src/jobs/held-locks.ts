import { Agenda, type AgendaBackend, type AgendaOptions, type Job, type JobParameters, type JobRepository } from 'agenda';

/**
 * How Airdate's jobs survive the death of the process running them. Agenda takes a job over from
 * a dead worker once its lock is older than the lock lifetime; so that this happens within
 * seconds rather than minutes, the lifetime is short (AIRDATE_JOB_LOCK_MS, 30 s) and a live
 * process renews the locks of every job it holds — queued in it or running — every third of it:
 * the heartbeat Agenda's `job.touch()` gives one running job, for all of them in one statement,
 * and only where the lock is still this instance's (touch() would take back a job another worker
 * took over meanwhile, and rewrite fields another process changed).
 */

/**
 * Sets the lock time of the jobs among `ids` that are locked by `owner` (the locking instance's
 * name, which every store records as the job's lastModifiedBy when it locks it) to `at`;
 * resolves to the ids it renewed. A job unlocked meanwhile, or locked by another instance since,
 * is left alone.
 */
export type RenewLocks = (ids: string[], owner: string, at: Date) => Promise<string[]>;

/** A job store backend that renews locks in one statement. */
export interface LockRenewingBackend extends AgendaBackend {
  renewLocks: RenewLocks;
}

/** Agenda's job processor: its lists of jobs this instance locked and of those running (private in 6.2.x, pinned). */
interface JobProcessorLists {
  lockedJobs: Job[];
  runningJobs: Job[];
}

/**
 * Agenda renewing its jobs' locks while it holds them (see above). Every `heartbeatMs` from
 * `start()`, the jobs its processor locked (queued or running) are renewed through `renew`, and
 * each renewed job's own lock time moves too (Agenda's job processor drops or cancels a job whose
 * local lock time has passed the lifetime). After `stop()`, only the jobs still running are
 * renewed, until they finish: Agenda hands back the others.
 */
export class LockKeepingAgenda extends Agenda {
  private heartbeat: NodeJS.Timeout | undefined;
  private held: () => Job[] = () => [];
  private renewing: Promise<void> | undefined;

  constructor(
    options: AgendaOptions,
    private readonly lockRenewal: { renew: RenewLocks; heartbeatMs: number },
  ) {
    super(options);
  }

  override async start(): Promise<void> {
    await super.start();
    const processor = this.processor();
    if (!processor) return;
    this.held = () => processor.lockedJobs;
    this.heartbeat ??= setInterval(() => void this.renewHeld(), this.lockRenewal.heartbeatMs).unref();
  }

  override async stop(closeConnection?: boolean): Promise<void> {
    const processor = this.processor();
    if (processor) this.held = () => processor.runningJobs;
    await super.stop(closeConnection);
  }

  /** Renews the locks of `ids` this instance holds to `at` (RenewLocks); resolves to those renewed. */
  renewLocks(ids: string[], at: Date): Promise<string[]> {
    return this.lockRenewal.renew(ids, this.attrs.name ?? '', at);
  }

  /** Renews the locks of the jobs held now (one renewal at a time); the heartbeat ends once none is left after a stop. */
  async renewHeld(): Promise<void> {
    if (this.renewing) return this.renewing;
    this.renewing = (async () => {
      const jobs = this.held().filter((job) => job.attrs._id !== undefined);
      if (jobs.length === 0) {
        if (!this.processor()) this.endHeartbeat();
        return;
      }
      const at = new Date();
      try {
        const renewed = new Set(await this.renewLocks(jobs.map((job) => String(job.attrs._id)), at));
        for (const job of jobs) if (renewed.has(String(job.attrs._id))) job.attrs.lockedAt = at;
      } catch (error) {
        this.emit('error', new Error(`renewing job locks: ${error instanceof Error ? error.message : String(error)}`));
      }
    })().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private endHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private processor(): JobProcessorLists | undefined {
    return (this as unknown as { jobProcessor?: JobProcessorLists }).jobProcessor;
  }
}

/**
 * A repeating job whose last run never finished (its process died: the run started after the
 * last one finished) and whose lock expired comes back from the store with its next run in the
 * future — Agenda computes it when a run starts — so Agenda would hand it back and wait for that
 * time: a release check killed half-way would leave the accounts it had not reached for 30
 * minutes. Such a job is run again now instead (its schedule then counts from this run).
 */
export function resumeInterrupted(job: JobParameters | undefined, now = new Date()): JobParameters | undefined {
  if (!job || (!job.repeatInterval && !job.repeatAt) || !job.lastRunAt || !job.nextRunAt) return job;
  const interrupted = !job.lastFinishedAt || job.lastRunAt.getTime() > job.lastFinishedAt.getTime();
  return interrupted && job.nextRunAt.getTime() > now.getTime() ? { ...job, nextRunAt: now } : job;
}

/** `repository` with `resumeInterrupted` applied to the jobs its workers lock. */
export function resumingInterrupted(repository: JobRepository): JobRepository {
  return new Proxy(repository, {
    get(target, property, receiver) {
      if (property === 'getNextJobToRun') {
        return async (...args: Parameters<JobRepository['getNextJobToRun']>) => resumeInterrupted(await target.getNextJobToRun(...args));
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
