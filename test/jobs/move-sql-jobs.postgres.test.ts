import { randomUUID } from 'node:crypto';
import type { Agenda, JobParameters } from 'agenda';
import { describe, expect, it } from 'vitest';
import { db, postgresJobsPool } from '../../src/db/client.ts';
import { rowToJob, storeJob, uniqueKeyFor, type AgendaJobRow } from '../../src/jobs/job-row.ts';
import { moveSqlJobs } from '../../src/jobs/move-sql-jobs.ts';
import { postgresJobsTable } from '../../src/jobs/postgres-job-backend.ts';
import { useTestDatabase } from '../support/database.ts';
import { agendaFactory, jobName, sleep, storedJob, storedJobs, waitFor } from './support/job-store-harness.ts';

/**
 * Upgrading a PostgreSQL installation: the jobs our former SQL store queued in "AgendaJob" are
 * moved into @agendajs/postgres-backend's table when the job store connects (move-sql-jobs.ts),
 * once, and run there. The old rows are written as that store wrote them: its INSERT, with
 * job-row.ts's encoding (which the SQLite store still uses).
 */
await useTestDatabase();
const newAgenda = agendaFactory(() => ({ childEnv: {} }));

interface OldJob extends Partial<Omit<JobParameters, 'name'>> {
  name: string;
}

/** Queues `job` in "AgendaJob" exactly as the old store's saveJob did; returns its id. */
async function queueOld(job: OldJob, options: { id?: string; unique?: Record<string, unknown>; attrs?: string } = {}): Promise<string> {
  const id = options.id ?? randomUUID();
  const stored = storeJob({ priority: 0, nextRunAt: null, type: 'normal', data: {}, ...job }, 'old-host:4242');
  const uniqueKey = uniqueKeyFor({ name: stored.name, type: stored.type, unique: options.unique });
  await db().$executeRaw`
    INSERT INTO "AgendaJob" ("id", "uniqueKey", "name", "type", "priority", "nextRunAt", "lockedAt", "lastRunAt", "lastFinishedAt", "failedAt", "disabled", "attrs")
    VALUES (${id}, ${uniqueKey}, ${stored.name}, ${stored.type}, ${stored.priority}, ${stored.nextRunAt}, ${stored.lockedAt}, ${stored.lastRunAt},
            ${stored.lastFinishedAt}, ${stored.failedAt}, ${stored.disabled}, ${options.attrs ?? stored.attrs})`;
  return id;
}

const oldRows = () => db().$queryRaw<AgendaJobRow[]>`SELECT * FROM "AgendaJob"`;
const newCount = async (name: string) => (await db().$queryRawUnsafe<{ count: bigint }[]>(`SELECT COUNT(*) AS count FROM "${postgresJobsTable}" WHERE "name" = $1`, name))[0]!.count;

/** Runs `moveSqlJobs` on a connection of the jobs pool. */
async function moveNow(): Promise<{ moved: number; skipped: number }> {
  const client = await postgresJobsPool()!.connect();
  try {
    return await moveSqlJobs(client, postgresJobsTable);
  } finally {
    client.release();
  }
}

/** The fields a job keeps across the move (the id aside), as Agenda reads them. */
function kept(job: JobParameters | null): Record<string, unknown> {
  if (!job) return { missing: true };
  const { name, priority, type, nextRunAt, lockedAt, lastRunAt, lastFinishedAt, failedAt, failCount, failReason, repeatInterval, repeatTimezone, repeatAt, disabled, data, lastModifiedBy } = job;
  // No data reads as undefined from the old store (it dropped null fields), as null from the new.
  return { name, priority, type, nextRunAt, lockedAt, lastRunAt, lastFinishedAt, failedAt, failCount, failReason, repeatInterval, repeatTimezone, repeatAt, disabled, data: data ?? null, lastModifiedBy };
}

describe('moving the former SQL store’s jobs to @agendajs/postgres-backend', () => {
  it('moves every job once with every field; due ones run once, recurring ones keep their schedule', { timeout: 30_000 }, async () => {
    const now = Date.now();
    const minutes = (count: number) => new Date(now + count * 60_000);
    const names = {
      due: jobName('due'),
      later: jobName('later'),
      recurring: jobName('recurring'),
      recurringDue: jobName('recurring-due'),
      disabled: jobName('disabled'),
      failed: jobName('failed'),
      sync: jobName('sync'),
      broken: jobName('broken'),
      locked: jobName('locked'),
      legacyId: jobName('legacy-id'),
    };
    const released = new Date('2026-03-01T00:00:00Z');
    const ids = {
      due: await queueOld({ name: names.due, priority: 10, nextRunAt: minutes(-1), data: { show: 'Severance', released } }),
      later: await queueOld({ name: names.later, nextRunAt: minutes(60), data: { slot: 1 }, startDate: new Date('2030-01-02T03:04:05.006Z') }),
      recurring: await queueOld({
        name: names.recurring,
        type: 'single',
        repeatInterval: '30 minutes',
        repeatTimezone: 'Europe/Berlin',
        lastRunAt: minutes(-10),
        lastFinishedAt: minutes(-9),
        nextRunAt: minutes(20),
        data: null,
      }),
      recurringDue: await queueOld({ name: names.recurringDue, type: 'single', repeatInterval: '10 minutes', lastRunAt: minutes(-11), nextRunAt: minutes(-1) }),
      disabled: await queueOld({ name: names.disabled, nextRunAt: minutes(-1), disabled: true, repeatAt: '3:30pm' }),
      failed: await queueOld({ name: names.failed, nextRunAt: minutes(-1), failCount: 2, failReason: 'webhook down', failedAt: minutes(-2), data: { n: 1 } }),
      sync: await queueOld({ name: names.sync, nextRunAt: minutes(60), data: { accountId: 42 } }, { unique: { 'data.accountId': 42 } }),
      broken: await queueOld({ name: names.broken, nextRunAt: minutes(60) }, { attrs: '{not json' }),
      // Locked a moment ago by an old instance still running it.
      locked: await queueOld({ name: names.locked, nextRunAt: null, lockedAt: new Date(now - 1_000), lastRunAt: new Date(now - 1_000) }),
      legacyId: await queueOld({ name: names.legacyId, nextRunAt: minutes(60) }, { id: 'not-a-uuid' }),
    };
    const before = new Map((await oldRows()).map((row) => [row.name, rowToJob(row)]));
    expect(before.size).toBe(10);

    const agenda = newAgenda({ name: 'new' }); // connecting moves them
    await agenda.ready;
    expect(await oldRows()).toEqual([]);
    for (const [key, id] of Object.entries(ids)) {
      const name = names[key as keyof typeof names];
      const moved = key === 'legacyId' ? ((await storedJobs(agenda, name))[0] ?? null) : await storedJob(agenda, id);
      expect(kept(moved), key).toEqual(kept(before.get(name)!));
      expect(await newCount(name), key).toBe(1n);
    }
    expect((await storedJob(agenda, ids.due))?.data).toEqual({ show: 'Severance', released });
    expect((await storedJob(agenda, ids.later))?.startDate).toEqual(new Date('2030-01-02T03:04:05.006Z'));

    // The moved unique job keeps its identity: queueing the same sync again finds it.
    const again = await agenda.create(names.sync, { accountId: 42 }).unique({ 'data.accountId': 42 }, { insertOnly: true }).schedule(new Date()).save();
    expect(String(again.attrs._id)).toBe(ids.sync);

    const runs = new Map<string, unknown[]>();
    for (const name of Object.values(names)) agenda.define(name, async (job) => void runs.set(name, [...(runs.get(name) ?? []), job.attrs.data]));
    await agenda.start();
    await waitFor('the due jobs', () => [names.due, names.recurringDue, names.failed].every((name) => runs.get(name)?.length === 1));
    await waitFor('their completion', async () => (await storedJob(agenda, ids.recurringDue))?.lockedAt === undefined);
    await sleep(500); // more polls: nothing runs twice, nothing else runs
    expect(Object.fromEntries(runs)).toEqual({ [names.due]: [{ show: 'Severance', released }], [names.recurringDue]: [{}], [names.failed]: [{ n: 1 }] });
    const recurringDue = await storedJob(agenda, ids.recurringDue);
    expect(recurringDue!.nextRunAt!.getTime() - recurringDue!.lastRunAt!.getTime()).toBe(10 * 60_000);
    expect((await storedJob(agenda, ids.recurring))?.nextRunAt).toEqual(minutes(20));
  });

  it('moving again moves nothing twice; a job an old instance queues later is moved once by the next start', async () => {
    const straggler = jobName('straggler');
    expect(await moveNow()).toEqual({ moved: 0, skipped: 0 });
    await queueOld({ name: straggler, nextRunAt: new Date(Date.now() + 3_600_000) });
    // Three instances starting together (the move and the backend's DDL take turns).
    const instances = [newAgenda(), newAgenda(), newAgenda()];
    await Promise.all(instances.map((agenda) => agenda.ready));
    expect(await newCount(straggler)).toBe(1n);
    expect(await oldRows()).toEqual([]);
    expect(await moveNow()).toEqual({ moved: 0, skipped: 0 });
    expect(await newCount(straggler)).toBe(1n);
  });

  it('a recurring job the new store already has is kept; the old copy is not added', async () => {
    const agenda = newAgenda();
    const name = jobName('every');
    await agenda.every('30 minutes', name, { from: 'new' });
    await queueOld({ name, type: 'single', repeatInterval: '30 minutes', nextRunAt: new Date(Date.now() + 60_000), data: { from: 'old' } });
    expect(await moveNow()).toEqual({ moved: 0, skipped: 1 });
    expect((await storedJobs(agenda, name)).map((job) => job.data)).toEqual([{ from: 'new' }]);
  });

  it('a move that fails leaves every job where it was, and the store keeps trying, reporting it', { timeout: 20_000 }, async () => {
    const [fine, tooLong] = [jobName('fine'), `${jobName('long')}${'x'.repeat(300)}`]; // the backend's name is VARCHAR(255)
    await queueOld({ name: fine, nextRunAt: new Date() });
    const badId = await queueOld({ name: tooLong, nextRunAt: new Date() });
    await expect(moveNow()).rejects.toThrow(/moving the jobs of the former job store \("AgendaJob"\) to "airdate_jobs" failed; nothing was moved: .*too long/);
    expect((await oldRows()).map((row) => row.name).sort()).toEqual([fine, tooLong].sort());
    expect(await newCount(fine)).toBe(0n);

    const agenda: Agenda = newAgenda();
    const errors: string[] = [];
    agenda.on('error', (error: Error) => void errors.push(error.message));
    let ready = false;
    void agenda.ready.then(() => (ready = true));
    await waitFor('the reported failure', () => errors.some((message) => /^cannot prepare the job store on PostgreSQL \(trying again in \d+ ms\): moving the jobs/.test(message)));
    expect(ready).toBe(false);
    // Once the cause is gone (here: the bad row), the next attempt moves the rest.
    await db().$executeRaw`DELETE FROM "AgendaJob" WHERE "id" = ${badId}`;
    await waitFor('the store to be ready', () => ready, 10_000);
    expect(await newCount(fine)).toBe(1n);
    expect(await oldRows()).toEqual([]);
  });
});
