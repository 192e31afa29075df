import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { jobStoreContract } from './job-store-contract.ts';
import { agendaFactory, jobName, storedJob, storedJobs, waitFor } from './support/job-store-harness.ts';

/**
 * The job store contract on our own store, the AgendaJob table of a SQLite database, workers in
 * this process and another. Then what only this store promises: the database itself keeps unique
 * jobs unique. (On PostgreSQL the jobs are @agendajs/postgres-backend's: postgres-job-store.postgres.test.ts.)
 */
const config: Config = await useTestDatabase();

describe('SQL job store on SQLite', () => {
  jobStoreContract(() => ({ childEnv: { AIRDATE_DATA_DIR: config.dataDir } }));
});

describe('SQL job store on SQLite: its own promises', () => {
  const newAgenda = agendaFactory(() => ({ childEnv: {} }));

  it('a job saved in this process runs at once, not at the next poll', async () => {
    const agenda = newAgenda({ pollMs: 60_000 });
    const name = jobName('notified');
    let runs = 0;
    agenda.define(name, async () => void (runs += 1));
    await agenda.start(); // polls once now, then not for a minute
    await agenda.now(name, {});
    await waitFor('the run (well before the next poll)', () => runs === 1);
  });

  it('simultaneous every() calls from two instances make one job', async () => {
    const [first, second] = [newAgenda(), newAgenda()];
    const name = jobName('every-race');
    await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 ? first : second).every('30 minutes', name, { n })));
    expect(await storedJobs(first, name)).toHaveLength(1);
    const [row] = await db().$queryRaw<{ uniqueKey: string }[]>`SELECT "uniqueKey" FROM "AgendaJob" WHERE "name" = ${name}`;
    expect(row?.uniqueKey).toBe(`single:${name}`);
  });

  it('simultaneous insertOnly saves of a unique job make one job, and all get its id', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const name = jobName('unique-race');
    const saved = await Promise.all(
      Array.from({ length: 10 }, (_, n) => agenda.create(name, { accountId: 1, n }).unique({ 'data.accountId': 1 }, { insertOnly: true }).save()),
    );
    const jobs = await storedJobs(agenda, name);
    expect(jobs).toHaveLength(1);
    expect(new Set(saved.map((job) => String(job.attrs._id)))).toEqual(new Set([String(jobs[0]?._id)]));
  });

  it('unique queries match whatever their key order; different values are different jobs', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const name = jobName('unique-keys');
    const save = (unique: Record<string, unknown>) => agenda.create(name, {}).unique(unique, { insertOnly: true }).save();
    const first = await save({ 'data.a': 1, 'data.b': { x: 1, y: 2 } });
    const same = await save({ 'data.b': { y: 2, x: 1 }, 'data.a': 1 });
    const other = await save({ 'data.a': 2, 'data.b': { x: 1, y: 2 } });
    expect(String(same.attrs._id)).toBe(String(first.attrs._id));
    expect(String(other.attrs._id)).not.toBe(String(first.attrs._id));
    // A large unique query is stored hashed, still unique.
    const big = { 'data.text': 'x'.repeat(5_000) };
    expect(String((await save(big)).attrs._id)).toBe(String((await save({ ...big })).attrs._id));
    expect(await storedJobs(agenda, name)).toHaveLength(3);
  });

  it('debounced saves keep one job and push its run back (trailing) or keep it (leading)', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const [trailing, leading] = [jobName('trailing'), jobName('leading')];
    await agenda.nowDebounced(trailing, { v: 1 }, { 'data.key': 'k' }, 60_000);
    const before = Date.now();
    await agenda.nowDebounced(trailing, { v: 2 }, { 'data.key': 'k' }, 60_000);
    const [trailingJob, ...moreTrailing] = await storedJobs(agenda, trailing);
    expect(moreTrailing).toHaveLength(0);
    expect(trailingJob?.data).toEqual({ v: 2 });
    expect(trailingJob!.nextRunAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(trailingJob?.debounceStartedAt).toBeInstanceOf(Date);

    const firstLeading = await agenda.nowDebounced(leading, { v: 1 }, { 'data.key': 'k' }, 60_000, { strategy: 'leading' });
    await agenda.nowDebounced(leading, { v: 2 }, { 'data.key': 'k' }, 60_000, { strategy: 'leading' });
    const leadingJobs = await storedJobs(agenda, leading);
    expect(leadingJobs.map((job) => [job.data, job.nextRunAt?.getTime()])).toEqual([[{ v: 2 }, firstLeading.attrs.nextRunAt?.getTime()]]);
  });

  it('stores dates as epoch ms columns and the rest as JSON text', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const at = new Date('2031-05-06T07:08:09.010Z');
    const job = await agenda.schedule(at, jobName('row'), { when: at });
    const [row] = await db().$queryRaw<{ nextRunAt: unknown; attrs: string }[]>`SELECT "nextRunAt", "attrs" FROM "AgendaJob" WHERE "id" = ${String(job.attrs._id)}`;
    expect(Number(row?.nextRunAt)).toBe(at.getTime());
    expect(JSON.parse(row!.attrs)).toMatchObject({ data: { when: { $date: at.getTime() } } });
  });

  it('bad input is a clear error, and unreadable attrs do not break reading', async () => {
    const agenda = newAgenda();
    await agenda.ready;
    const badDate = agenda.create(jobName('bad'), {});
    badDate.attrs.nextRunAt = new Date('not a date');
    await expect(badDate.save()).rejects.toThrow(/nextRunAt is not a valid date/);
    await expect(agenda.db.saveJob({ name: '', priority: 0, nextRunAt: null, type: 'normal', data: {} }, undefined)).rejects.toThrow('a job needs a name');
    const gone = await agenda.now(jobName('gone'), {});
    await gone.remove();
    await expect(agenda.db.saveJobState(gone.attrs, undefined)).rejects.toThrow(/cannot be updated in the database/);

    const id = randomUUID();
    await db().$executeRaw`INSERT INTO "AgendaJob" ("id", "name", "type", "attrs") VALUES (${id}, ${jobName('broken')}, 'normal', '{not json')`;
    expect(await storedJob(agenda, id)).toMatchObject({ data: undefined, nextRunAt: null });
  });
});
