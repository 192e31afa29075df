import { createRequire } from 'node:module';
import type * as PostgresBackendModule from '@agendajs/postgres-backend';
import type { JobParameters, JobRepository, JobsQueryOptions, RemoveJobsOptions } from 'agenda';
import type pg from 'pg';
import { tagDates, uniqueKeyFor, untagDates, uuidPattern } from './job-row.ts';
import type { LockRenewingBackend } from './held-locks.ts';
import { moveSqlJobs } from './move-sql-jobs.ts';
import { messageOf } from '../errors.ts';

/** The table @agendajs/postgres-backend keeps Airdate's jobs in (created by the backend itself). */
export const postgresJobsTable = 'airdate_jobs';
/** The LISTEN/NOTIFY channel instances tell each other of saved jobs on (per database). */
const postgresJobsChannel = 'airdate_jobs';

/**
 * Advisory lock key (any constant bigint) held while one process creates or updates the jobs
 * table and moves the old store's jobs: the backend's `CREATE TABLE IF NOT EXISTS`, `CREATE OR
 * REPLACE FUNCTION` and trigger statements fail when two sessions run them at the same moment
 * (several servers starting together).
 */
const setupLockKey = 7_261_120_260_001n;

/**
 * Agenda's backend on PostgreSQL: @agendajs/postgres-backend on `pool` (src/db/client.ts's jobs
 * pool, which the backend never closes). Saving a job NOTIFYs every instance listening on the
 * database, so a job queued by a web process starts on a worker at once instead of at the
 * worker's next poll. Its table is created by the backend at connect (its own idempotent DDL,
 * including the columns later versions add); connect then moves the jobs our former PostgreSQL
 * store left in "AgendaJob" (move-sql-jobs.ts). Job data keeps its Dates (see `keepingDates`).
 * Errors of the LISTEN connection go to `onError` (Agenda's 'error' event). `renewLocks` is the
 * heartbeat's one statement (held-locks.ts).
 */
export function createPostgresJobBackend(pool: pg.Pool, onError: (error: Error) => void): LockRenewingBackend {
  const { PostgresBackend, PostgresJobRepository } = loadPostgresBackend();
  const backend = new PostgresBackend({ pool, tableName: postgresJobsTable, channelName: postgresJobsChannel, ensureSchema: true });
  const onClient = (client: pg.Pool) => new PostgresJobRepository({ pool: client, tableName: postgresJobsTable, ensureSchema: false });
  const repository = keepingDates(backend.repository, oneUniqueJobAtATime(backend.repository, pool, onClient));
  const channel = backend.notificationChannel;
  if (channel) {
    // The channel emits 'error' when its LISTEN connection breaks (a PostgreSQL restart) and then
    // reconnects on its own; an EventEmitter's 'error' nobody listens to would end the process.
    channel.on('error', (error: unknown) => onError(new Error(`job notifications (LISTEN): ${messageOf(error)}`)));
    // Agenda's start() connects the channel (a second LISTEN connection if it was already
    // connected); a process that only queues connects it itself (scheduler.ts), so connecting
    // an already connected channel does nothing here.
    const connect = channel.connect.bind(channel);
    const disconnect = channel.disconnect.bind(channel);
    // The channel gives its LISTEN connection back to the pool with its two listeners still on
    // it (private field `listenClient`, @agendajs/postgres-backend 3.0.6, pinned): each start and
    // stop would leave two more on a pooled connection, and an error of that connection, used
    // for queries by then, would be reported as a LISTEN error. They are taken off on disconnect.
    let added: { client: pg.PoolClient; listeners: [string, (...args: unknown[]) => void][] } | undefined;
    channel.connect = async () => {
      if (channel.state === 'connected') return;
      await connect();
      const client = (channel as unknown as { listenClient?: pg.PoolClient }).listenClient;
      if (client) added = { client, listeners: ['notification', 'error'].map((event) => [event, client.listeners(event).at(-1) as (...args: unknown[]) => void]) };
    };
    channel.disconnect = async () => {
      await disconnect();
      for (const [event, listener] of added?.listeners ?? []) added?.client.off(event, listener);
      added = undefined;
    };
  }
  return {
    name: backend.name,
    repository,
    get logger() {
      return backend.logger;
    },
    notificationChannel: channel,
    ownsConnection: false,
    connect: async () => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [setupLockKey]);
        try {
          await backend.connect();
          await moveSqlJobs(client, postgresJobsTable);
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [setupLockKey]);
        }
      } finally {
        client.release();
      }
    },
    disconnect: () => backend.disconnect(),
    renewLocks: async (ids, owner, at) => {
      const valid = ids.filter((id) => uuidPattern.test(id));
      if (valid.length === 0) return [];
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE "${postgresJobsTable}" SET locked_at = $1 WHERE id = ANY($2::uuid[]) AND locked_at IS NOT NULL AND last_modified_by = $3 RETURNING id`,
        [at, valid, owner],
      );
      return rows.map((row) => row.id);
    },
  };
}

/** Loaded only on PostgreSQL, as the MongoDB backend is only with MongoDB (create-agenda.ts). */
function loadPostgresBackend(): typeof PostgresBackendModule {
  const require = createRequire(import.meta.url);
  return require('@agendajs/postgres-backend') as typeof PostgresBackendModule;
}

/**
 * `repository` with saves of unique jobs (`job.unique(query)`) made one at a time per query: the
 * backend looks for the existing job and then inserts, in two statements, so two instances
 * queueing the same sync at the same moment would both insert (every time, in a test of 20
 * rounds of 10 simultaneous saves). Each such save runs in a transaction on one connection,
 * holding a transaction advisory lock keyed by the job's name and query (job-row.ts's
 * `uniqueKeyFor`): a second save of the same job waits, then finds the first. `onClient` makes
 * the backend's repository on that connection (it only calls `query`). `single` jobs (every())
 * need none of this: the backend upserts them on a unique index.
 */
function oneUniqueJobAtATime(repository: JobRepository, pool: pg.Pool, onClient: (client: pg.Pool) => JobRepository): JobRepository['saveJob'] {
  return async (job, options) => {
    if (!job.unique || job.type === 'single') return repository.saveJob(job, options);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [uniqueKeyFor({ name: job.name, type: job.type, unique: job.unique })]);
      const saved = await onClient(client as unknown as pg.Pool).saveJob(job, options);
      await client.query('COMMIT');
      return saved;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
}

/**
 * `repository` with Dates in job data kept as Dates, as the MongoDB and SQLite stores keep them:
 * the backend stores data as jsonb through JSON.stringify, which would give them back as strings.
 * Data is written with each Date as `{"$date": epochMs}` (job-row.ts's encoding, so jobs moved
 * from the old store need no conversion) and read back as Dates; data filters are encoded the
 * same way. An id that is not a UUID names no job (the backend would fail on the uuid cast).
 * `saveJob` is the save to use (the repository's, or `oneUniqueJobAtATime`'s).
 */
function keepingDates(repository: JobRepository, saveJob: JobRepository['saveJob'] = (job, options) => repository.saveJob(job, options)): JobRepository {
  const readJob = <T extends JobParameters | null | undefined>(job: T): T => (job ? { ...job, data: untagDates(job.data) } : job);
  const filter = <T extends JobsQueryOptions | RemoveJobsOptions>(options: T): T => (options.data === undefined ? options : { ...options, data: tagDates(options.data) });
  return {
    connect: () => repository.connect(),
    queryJobs: async (options = {}) => {
      const result = await repository.queryJobs(filter(options));
      return { ...result, jobs: result.jobs.map(readJob) };
    },
    getJobsOverview: () => repository.getJobsOverview(),
    getDistinctJobNames: () => repository.getDistinctJobNames(),
    getJobById: async (id) => (uuidPattern.test(String(id)) ? readJob(await repository.getJobById(id)) : null),
    getQueueSize: () => repository.getQueueSize(),
    removeJobs: (options) => repository.removeJobs(filter(options)),
    saveJob: async (job, options) => readJob(await saveJob({ ...job, data: tagDates(job.data) as typeof job.data }, options)) as typeof job,
    saveJobState: (job, options) => repository.saveJobState(job, options),
    lockJob: async (job, options) => readJob(await repository.lockJob(job, options)),
    unlockJob: (job) => repository.unlockJob(job),
    unlockJobs: (ids) => repository.unlockJobs(ids),
    getNextJobToRun: async (...args) => readJob(await repository.getNextJobToRun(...args)),
    disableJobs: (options) => repository.disableJobs(filter(options)),
    enableJobs: (options) => repository.enableJobs(filter(options)),
    purgeAllJobs: () => repository.purgeAllJobs(),
  };
}
