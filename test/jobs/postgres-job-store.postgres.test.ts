import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { db, jobsPoolSize, postgresJobsPool } from '../../src/db/client.ts';
import { notificationChannelOf } from '../../src/jobs/create-agenda.ts';
import { postgresJobsTable } from '../../src/jobs/postgres-job-backend.ts';
import { useTestDatabase } from '../support/database.ts';
import { jobStoreContract } from './job-store-contract.ts';
import { agendaFactory, jobName, storedJob, storedJobs, waitFor } from './support/job-store-harness.ts';

/**
 * The job store contract on PostgreSQL, where jobs are @agendajs/postgres-backend's (the
 * `airdate_jobs` table), workers in this process and another. Then what this store adds: a job
 * saved by one instance starts on another at once (LISTEN/NOTIFY), not at its next poll.
 */
const config: Config = await useTestDatabase();

describe('PostgreSQL job store (@agendajs/postgres-backend)', () => {
  jobStoreContract(() => ({ childEnv: { AIRDATE_DATA_DIR: config.dataDir, DATABASE_URL: config.database.kind === 'postgres' ? config.database.url : '' } }));
});

describe('PostgreSQL job store: its own promises', () => {
  const newAgenda = agendaFactory(() => ({ childEnv: {} }));

  it('keeps its jobs in airdate_jobs, on a pool of its own', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const job = await agenda.schedule('in 1 hour', jobName('table'), { at: new Date('2030-01-01T00:00:00Z') });
    const rows = await db().$queryRawUnsafe<{ data: unknown }[]>(`SELECT "data" FROM "${postgresJobsTable}" WHERE "id" = $1::uuid`, String(job.attrs._id));
    // Dates in data are tagged in the jsonb, and read back as Dates.
    expect(rows).toEqual([{ data: { at: { $date: Date.parse('2030-01-01T00:00:00Z') } } }]);
    expect((await storedJob(agenda, job.attrs._id))?.data).toEqual({ at: new Date('2030-01-01T00:00:00Z') });
    expect(await db().$queryRaw<{ count: bigint }[]>`SELECT COUNT(*) AS count FROM "AgendaJob"`).toEqual([{ count: 0n }]);
    // The backend works on the jobs' own pool (not Prisma's), within its size.
    expect(postgresJobsPool()!.totalCount).toBeGreaterThan(0);
    expect(postgresJobsPool()!.totalCount).toBeLessThanOrEqual(jobsPoolSize);
  });

  it('simultaneous insertOnly saves of a unique job from two instances make one job, and all get its id', async () => {
    const [first, second] = [newAgenda(), newAgenda()];
    await Promise.all([first.ready, second.ready]);
    for (let round = 0; round < 5; round += 1) {
      const name = jobName('unique-race');
      const saved = await Promise.all(
        Array.from({ length: 10 }, (_, n) => (n % 2 ? first : second).create(name, { accountId: 1, n }).unique({ 'data.accountId': 1 }, { insertOnly: true }).save()),
      );
      const jobs = await storedJobs(first, name);
      expect(jobs).toHaveLength(1);
      expect(new Set(saved.map((job) => String(job.attrs._id)))).toEqual(new Set([String(jobs[0]?._id)]));
    }
    // Other unique queries are other jobs, saved side by side.
    const name = jobName('unique-others');
    await Promise.all([1, 2, 3].map((accountId) => first.create(name, { accountId }).unique({ 'data.accountId': accountId }, { insertOnly: true }).save()));
    expect(await storedJobs(first, name)).toHaveLength(3);
  });

  it('a job saved by one instance starts on another at once, not at its next poll', async () => {
    // The worker polls once at start, then not for a minute: only a notification can wake it.
    const worker = newAgenda({ pollMs: 60_000, name: 'worker' });
    const name = jobName('notified');
    const startedAt: number[] = [];
    worker.define(name, async () => void startedAt.push(performance.now()));
    await worker.start();
    // The producer only queues, like an AIRDATE_ROLE=web process (scheduler.ts connects its channel).
    const producer = newAgenda({ pollMs: 60_000, name: 'producer' });
    await producer.ready;
    await notificationChannelOf(producer)!.connect();
    const latencies: number[] = [];
    for (let n = 0; n < 20; n += 1) {
      const savedAt = performance.now();
      await producer.now(name, { n });
      await waitFor(`run ${n} (well before the next poll)`, () => startedAt.length === n + 1, 5_000);
      latencies.push(startedAt[n]! - savedAt);
    }
    latencies.sort((a, b) => a - b);
    console.log(`saved on one instance → started on another: p50 ${latencies[10]!.toFixed(1)} ms, max ${latencies[19]!.toFixed(1)} ms (20 jobs)`);
    // Each run was awaited for at most 5 s above, against a poll every 60 s: a notification started it.
    await notificationChannelOf(producer)!.disconnect();
  });

  it('an instance that stops leaves no LISTEN listener on the pooled connection it gives back', async () => {
    for (let round = 0; round < 12; round += 1) {
      const agenda = newAgenda();
      await agenda.start();
      await agenda.stop();
    }
    // Every connection of the pool, idle ones first: none may still carry a notification listener.
    const clients = await Promise.all(Array.from({ length: jobsPoolSize }, () => postgresJobsPool()!.connect()));
    try {
      expect(clients.map((client) => client.listenerCount('notification'))).toEqual(clients.map(() => 0));
    } finally {
      for (const client of clients) client.release();
    }
  });

  it('a LISTEN connection killed by the server is reported, not fatal, and notifications resume', { timeout: 30_000 }, async () => {
    const worker = newAgenda({ pollMs: 60_000, name: 'worker' });
    const errors: string[] = [];
    worker.on('error', (error: Error) => void errors.push(error.message));
    const name = jobName('relisten');
    let runs = 0;
    worker.define(name, async () => void (runs += 1));
    await worker.start();
    const listeners = () => db().$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`;
    const [listener] = await listeners();
    expect(listener).toBeDefined();
    await db().$queryRaw`SELECT pg_terminate_backend(${listener!.pid}::int)`;
    await waitFor('the error event', () => errors.some((message) => message.startsWith('job notifications (LISTEN)')));
    // The channel reconnects by itself (after about a second).
    await waitFor('a new LISTEN connection', async () => (await listeners()).some((row) => row.pid !== listener!.pid), 15_000);
    const producer = newAgenda({ pollMs: 60_000 });
    await producer.ready;
    await notificationChannelOf(producer)!.connect();
    await producer.now(name, {});
    await waitFor('the run, woken by a notification', () => runs === 1, 5_000);
    await notificationChannelOf(producer)!.disconnect();
  });
});
