import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { MongoBackend, MongoJobRepository } from '@agendajs/mongo-backend';
import type { Agenda, AgendaBackend, JobRepository, NotificationChannel } from 'agenda';
import { postgresJobsPool } from '../db/client.ts';
import { LockKeepingAgenda, resumingInterrupted, type RenewLocks } from './held-locks.ts';
import { createPostgresJobBackend } from './postgres-job-backend.ts';
import { createSqlJobBackend } from './sql-backend.ts';
import { messageOf } from '../errors.ts';

/** Options of `createAgenda`. */
export interface CreateAgendaProps {
  /** Run on MongoDB at this address (`AIRDATE_MONGODB_URL`); otherwise on the application's database (which must be open). */
  mongodbUrl?: string | undefined;
  /** How often a worker looks for due jobs (`AIRDATE_JOB_POLL_MS`), in ms. */
  pollMs: number;
  /**
   * Name of this instance (e.g. host and pid), stored as the jobs' lastModifiedBy; a random part
   * is added, so that each instance's locks are its own (held-locks.ts) even where two share a
   * name (a restarted container, whose host name and pid 1 are the same).
   */
  name?: string;
  /** Jobs run at once by this instance, all kinds together (default 20). */
  maxConcurrency?: number;
  /** Jobs of one kind run at once by this instance (default 10). */
  defaultConcurrency?: number;
  /**
   * Jobs of one kind this instance locks per poll ahead of running them (default 100). A worker
   * fetches due jobs only when it polls (or is told of a job saved in this process), so this
   * bounds its rate: 100 per `pollMs` (2 000 queued jobs take ~40 s at 2 s). Unlimited, one worker
   * would lock a whole batch while others idle. Locks of jobs waiting here are renewed like
   * those of running ones (held-locks.ts).
   */
  defaultLockLimit?: number;
  /**
   * How long a lock holds without being renewed (`AIRDATE_JOB_LOCK_MS`, default 30 s): the
   * instance renews the locks of the jobs it holds every third of it, and a worker that died
   * leaves its jobs to another this long after its last renewal (held-locks.ts).
   */
  defaultLockLifetime?: number;
  /** Remove one-time jobs once they succeed (default false; per job via `define`). */
  removeOnComplete?: boolean;
}

/** The lock lifetime when none is given (AIRDATE_JOB_LOCK_MS's default). */
export const defaultLockMs = 30_000;

/**
 * An Agenda instance on the configured job store: MongoDB when `mongodbUrl` is given, else the
 * application's database, which must be open: on PostgreSQL @agendajs/postgres-backend (its
 * `airdate_jobs` table, LISTEN/NOTIFY between instances; postgres-job-backend.ts), on SQLite our
 * own store on the AgendaJob table (sql-backend.ts). It keeps the locks of the jobs it holds
 * alive and runs an interrupted repeating job again when it takes it over (held-locks.ts). It is
 * not started: define jobs, then `start()` in processes that run them.
 */
export function createAgenda(props: CreateAgendaProps): Agenda {
  if (!Number.isFinite(props.pollMs) || props.pollMs <= 0) throw new Error(`createAgenda: pollMs must be a positive number of ms (got ${props.pollMs})`);
  const lockLifetime = props.defaultLockLifetime ?? defaultLockMs;
  let agenda: Agenda | undefined;
  const onError = (error: Error) => agenda?.emit('error', error);
  const postgresPool = props.mongodbUrl ? undefined : postgresJobsPool();
  let backend: AgendaBackend;
  let renew: RenewLocks;
  if (props.mongodbUrl) {
    const mongo = new (loadMongoBackend())({ address: props.mongodbUrl });
    backend = retryingConnect(mongo, 'cannot reach MongoDB for jobs', onError);
    renew = renewMongoLocks(() => mongo.repository as MongoJobRepository);
  } else {
    const own = postgresPool ? createPostgresJobBackend(postgresPool, onError) : createSqlJobBackend();
    backend = postgresPool ? retryingConnect(own, 'cannot prepare the job store on PostgreSQL', onError) : withResumingRepository(own);
    renew = own.renewLocks;
  }
  agenda = new LockKeepingAgenda(
    {
      backend,
      name: `${props.name ?? 'agenda'}#${randomBytes(3).toString('hex')}`,
      processEvery: props.pollMs,
      maxConcurrency: props.maxConcurrency ?? 20,
      defaultConcurrency: props.defaultConcurrency ?? 10,
      defaultLockLimit: props.defaultLockLimit ?? 100,
      defaultLockLifetime: lockLifetime,
      removeOnComplete: props.removeOnComplete ?? false,
    },
    { renew, heartbeatMs: Math.max(1, Math.floor(lockLifetime / 3)) },
  );
  return agenda;
}

/**
 * The MongoDB backend class, loaded only when MongoDB is configured: the driver costs ~30 MB of
 * memory that a server on its own database never needs (Node ≥ 20.19 can `require` ES modules).
 */
function loadMongoBackend(): typeof MongoBackend {
  const require = createRequire(import.meta.url);
  return (require('@agendajs/mongo-backend') as typeof import('@agendajs/mongo-backend')).MongoBackend;
}

/** The heartbeat's renewal on MongoDB: one update of the jobs still locked by `owner`, then a read of which it renewed. */
function renewMongoLocks(repository: () => MongoJobRepository): RenewLocks {
  return async (ids, owner, at) => {
    const { ObjectId } = createRequire(import.meta.url)('mongodb') as typeof import('mongodb');
    const held = { _id: { $in: ids.filter((id) => ObjectId.isValid(id)).map((id) => new ObjectId(id)) }, lastModifiedBy: owner };
    const { collection } = repository();
    await collection.updateMany({ ...held, lockedAt: { $ne: null } }, { $set: { lockedAt: at } });
    const renewed = await collection.find({ ...held, lockedAt: at }, { projection: { _id: 1 } }).toArray();
    return renewed.map((job) => String(job._id));
  };
}

/** `backend` with its repository resuming interrupted repeating jobs (held-locks.ts). */
function withResumingRepository<T extends AgendaBackend>(backend: T): T {
  let wrapped: { of: JobRepository; as: JobRepository } | undefined;
  return new Proxy(backend, {
    get(target, property, receiver) {
      if (property !== 'repository') return Reflect.get(target, property, receiver);
      const repository = target.repository;
      if (wrapped?.of !== repository) wrapped = { of: repository, as: resumingInterrupted(repository) };
      return wrapped.as;
    },
  });
}

/** Longest wait between two attempts to connect the job store. */
const maxRetryMs = 30_000;

/**
 * `backend` with a connect that keeps trying: Agenda connects from its constructor and does not
 * handle a failure (the rejection would be unhandled and end the process). A MongoDB that is down
 * at start, or a PostgreSQL job table that cannot be set up (or its old jobs moved), is reported
 * through `onError` (Agenda's 'error' event) as `failure`, and tried again, with waits doubling
 * up to 30 s; Agenda is ready once it succeeds.
 */
function retryingConnect(backend: AgendaBackend, failure: string, onError: (error: Error) => void): AgendaBackend {
  const connect = async (): Promise<void> => {
    for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, maxRetryMs)) {
      try {
        await backend.connect();
        return;
      } catch (error) {
        onError(new Error(`${failure} (trying again in ${waitMs} ms): ${messageOf(error)}`));
        await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      }
    }
  };
  return withResumingRepository({
    name: backend.name,
    get repository() {
      return backend.repository;
    },
    get logger() {
      return backend.logger;
    },
    notificationChannel: backend.notificationChannel,
    ownsConnection: backend.ownsConnection,
    connect,
    disconnect: () => backend.disconnect(),
  });
}

/**
 * The channel Agenda publishes saved jobs on and listens to (the backend's), or undefined.
 * A private field of agenda 6.2.x (pinned), as in `stopAgenda`.
 */
export function notificationChannelOf(agenda: Agenda): NotificationChannel | undefined {
  return (agenda as unknown as { notificationChannel?: NotificationChannel }).notificationChannel;
}

/** What `stopAgenda` left behind. */
export interface StopAgendaResult {
  /** Jobs still running when the wait ended (0 unless it timed out); their locks expire on their own. */
  stillRunning: number;
}

/**
 * Graceful stop: no further job starts, jobs this instance locked but has not started are unlocked
 * at once (so another worker takes them now rather than after the lock lifetime), and running jobs
 * may finish, up to `timeoutMs`. Agenda offers either half alone: `stop()` unlocks but does not
 * wait, `drain()` waits (and meanwhile starts the jobs it had locked) but unlocks nothing.
 * The store's connection (MongoDB's, which the backend owns) is closed only after that wait:
 * `stop()` would close it at once, and the jobs still running could not save how they ended.
 * Reads the job processor's list of running jobs and the backend, private fields of agenda 6.2.x
 * (pinned).
 */
export async function stopAgenda(agenda: Agenda, timeoutMs = 30_000): Promise<StopAgendaResult> {
  const { jobProcessor: processor, backend } = agenda as unknown as { jobProcessor?: { runningJobs?: unknown[] }; backend: AgendaBackend };
  // The live array: each running job removes itself when it completes.
  const running = processor?.runningJobs ?? [];
  await agenda.stop(false);
  if (running.length > 0) await finished(running, timeoutMs);
  const stillRunning = running.length;
  if (backend.ownsConnection) await backend.disconnect();
  return { stillRunning };
}

/**
 * Resolves once `running` is empty, or after `timeoutMs`. A job leaves the list some time after
 * its 'complete' event: a one-time job removed on completion is deleted from the store in between
 * (so a check right after the event missed it, and the wait ran to its timeout); the list is
 * looked at every 20 ms instead.
 */
async function finished(running: unknown[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (running.length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
