import { Job, type JobParameters } from 'agenda';
import { describe, expect, it } from 'vitest';
import type { LockKeepingAgenda } from '../../src/jobs/held-locks.ts';
import { agendaFactory, jobName, sleep, startChildWorker, storedJob, storedJobs, waitFor, type JobStoreUnderTest } from './support/job-store-harness.ts';
import { workerContract } from './job-store-contract-workers.ts';

/**
 * What Airdate needs of a job store, checked with real Agenda instances: scheduling, locking,
 * lock expiry, retries, repeats, unique jobs, competing workers, removal, queries and a
 * graceful stop. Each store's test file calls this (our SQL store on SQLite, @agendajs/postgres-backend
 * on PostgreSQL, MongoDB).
 */
export function jobStoreContract(store: () => JobStoreUnderTest): void {
  const newAgenda = agendaFactory(store);

  describe('scheduling', () => {
    it('runs a scheduled job once, not before its time, with its data (Dates too)', async () => {
      const agenda = newAgenda();
      const name = jobName('scheduled');
      const runs: { at: number; data: unknown }[] = [];
      agenda.define(name, async (job) => void runs.push({ at: Date.now(), data: job.attrs.data }));
      await agenda.start();
      const at = new Date(Date.now() + 300);
      const released = new Date('2026-03-01T00:00:00Z');
      const job = await agenda.schedule(at, name, { show: 'Severance', released });
      await waitFor('the run', async () => (await storedJob(agenda, job.attrs._id))?.lastFinishedAt !== undefined);
      await sleep(300); // several more polls: it must not run again
      expect(runs).toHaveLength(1);
      expect(runs[0]!.at).toBeGreaterThanOrEqual(at.getTime());
      expect(runs[0]!.data).toEqual({ show: 'Severance', released });
      expect((runs[0]!.data as { released: unknown }).released).toBeInstanceOf(Date);
      const stored = await storedJob(agenda, job.attrs._id);
      expect(stored).toMatchObject({ name, nextRunAt: null, type: 'normal' });
      expect(stored?.lockedAt).toBeUndefined();
      expect(stored?.lastRunAt?.getTime()).toBeGreaterThanOrEqual(at.getTime());
    });

    it('now() runs the job at once', async () => {
      const agenda = newAgenda();
      const name = jobName('now');
      const seen: unknown[] = [];
      agenda.define(name, async (job) => void seen.push(job.attrs.data));
      await agenda.start();
      await agenda.now(name, { accountId: 7 });
      await waitFor('the run', () => seen.length === 1);
      expect(seen).toEqual([{ accountId: 7 }]);
    });

    it('reads back every saved field with its type', async () => {
      const agenda = newAgenda();
      await agenda.ready;
      const name = jobName('fields');
      const startDate = new Date('2030-01-02T03:04:05.006Z');
      const job = agenda.create(name, { list: [1, 'two', null], nested: { deep: true } });
      job.attrs.startDate = startDate;
      job.priority('high').schedule(new Date('2030-06-01T00:00:00Z')).repeatAt('3:30pm').disable();
      await job.save();
      const stored = await storedJob(agenda, job.attrs._id);
      expect(stored).toMatchObject({
        name,
        priority: 10,
        type: 'normal',
        disabled: true,
        repeatAt: '3:30pm',
        data: { list: [1, 'two', null], nested: { deep: true } },
        nextRunAt: new Date('2030-06-01T00:00:00Z'),
        startDate,
      });
      expect(stored?.startDate).toBeInstanceOf(Date);
      // A well-formed id (MongoDB's ObjectId syntax) that names no job.
      expect(await storedJob(agenda, '0123456789abcdef01234567')).toBeNull();
    });
  });

  describe('locking', () => {
    it('hands a due job to one worker only', async () => {
      const first = newAgenda({ name: 'first' });
      const second = newAgenda({ name: 'second' });
      await Promise.all([first.ready, second.ready]);
      const name = jobName('lock');
      const job = await first.create(name, {}).schedule(new Date()).save();
      const scan = () => [name, new Date(Date.now() + 1000), new Date(Date.now() - 60_000), undefined, { lastModifiedBy: 'test' }] as const;
      const locked = await first.db.getNextJobToRun(...scan());
      expect(String(locked?._id)).toBe(String(job.attrs._id));
      expect(locked?.lockedAt).toBeInstanceOf(Date);
      expect(await second.db.getNextJobToRun(...scan())).toBeUndefined();
      expect(await second.db.lockJob(job.attrs, undefined)).toBeUndefined();
    });

    it('gives each of 20 jobs to at most one of 40 simultaneous lockers', async () => {
      const first = newAgenda();
      const second = newAgenda();
      await Promise.all([first.ready, second.ready]);
      const name = jobName('race');
      for (let n = 0; n < 20; n += 1) await first.create(name, { n }).schedule(new Date()).save();
      const attempts = Array.from({ length: 40 }, (_, n) =>
        (n % 2 ? first : second).db.getNextJobToRun(name, new Date(Date.now() + 1000), new Date(Date.now() - 60_000), undefined, undefined),
      );
      const ids = (await Promise.all(attempts)).filter((job): job is JobParameters => job !== undefined).map((job) => String(job._id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThan(0);
      // Whatever a contended attempt skipped, sequential attempts lock the rest, and then nothing.
      for (let n = ids.length; n < 20; n += 1) expect(await first.db.getNextJobToRun(name, new Date(Date.now() + 1000), new Date(Date.now() - 60_000), undefined, undefined)).toBeDefined();
      expect(await first.db.getNextJobToRun(name, new Date(Date.now() + 1000), new Date(Date.now() - 60_000), undefined, undefined)).toBeUndefined();
    });

    it('lockJob: exactly one of ten simultaneous calls locks the job', async () => {
      const agenda = newAgenda();
      await agenda.ready;
      const job = await agenda.create(jobName('lockjob'), {}).schedule(new Date()).save();
      const results = await Promise.all(Array.from({ length: 10 }, () => agenda.db.lockJob(job.attrs, undefined)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('a job whose worker died is run by another worker once its lock expires', async () => {
      const agenda = newAgenda({ defaultLockLifetime: 500 });
      const name = jobName('expired');
      const job = await (async () => {
        await agenda.ready;
        const saved = await agenda.create(name, { n: 1 }).schedule(new Date()).save();
        // What a worker that crashed mid-run leaves behind: locked an hour ago, nextRunAt cleared.
        await agenda.db.saveJobState({ ...saved.attrs, lockedAt: new Date(Date.now() - 3_600_000), lastRunAt: new Date(Date.now() - 3_600_000), nextRunAt: null }, undefined);
        return saved;
      })();
      const runs: unknown[] = [];
      agenda.define(name, async (running) => void runs.push(running.attrs._id));
      await agenda.start();
      await waitFor('the expired job to run', () => runs.length === 1);
      await waitFor('its completion', async () => (await storedJob(agenda, job.attrs._id))?.lockedAt === undefined);
      expect(runs).toEqual([job.attrs._id]);
    });

    it('a worker process renews the locks of the jobs it runs and holds, and once killed (SIGKILL) they are taken over', async () => {
      const name = jobName('takeover');
      const lockMs = 600;
      const child = await startChildWorker(store(), name, 60_000, lockMs);
      const queuer = newAgenda();
      for (const n of [1, 2, 3]) await queuer.now(name, { n });
      await waitFor('the child to run all three', () => child.runs.length === 3);
      const rescuer = newAgenda({ defaultLockLifetime: lockMs, name: 'rescuer' });
      const rescued: number[] = [];
      rescuer.define(name, async (job) => void rescued.push((job.attrs.data as { n: number }).n));
      await rescuer.start();
      // Several lifetimes while the child lives: its locks are renewed, nothing is taken from it.
      await sleep(lockMs * 4);
      // (Without renewals Agenda itself would cancel the runs and run them again, here or there.)
      expect({ child: [...child.runs].sort(), rescued }).toEqual({ child: [1, 2, 3], rescued: [] });
      await child.kill();
      await waitFor('the rescuer to run all three', () => rescued.length === 3);
      expect([...rescued].sort()).toEqual([1, 2, 3]);
    });

    it('the locks of jobs waiting in a worker (locked, not started yet) are renewed too', async () => {
      const lockMs = 500;
      const name = jobName('waiting');
      const holder = newAgenda({ defaultLockLifetime: lockMs, defaultConcurrency: 1, defaultLockLimit: 3, name: 'holder' });
      const ran: string[] = [];
      holder.define(name, async (job) => {
        ran.push(`holder ${(job.attrs.data as { n: number }).n}`);
        await sleep(lockMs * 2);
      });
      await holder.start();
      for (const n of [1, 2, 3]) await holder.now(name, { n });
      await waitFor('one running, three locked', async () => ran.length === 1 && (await storedJobs(holder, name)).every((job) => job.lockedAt !== undefined));
      const other = newAgenda({ defaultLockLifetime: lockMs, name: 'other' });
      other.define(name, async (job) => void ran.push(`other ${(job.attrs.data as { n: number }).n}`));
      await other.start();
      await waitFor('all three', () => ran.length === 3);
      expect(ran.sort()).toEqual(['holder 1', 'holder 2', 'holder 3']);
    });

    it('renewing locks renews only those the instance still holds', async () => {
      const [first, second] = [newAgenda({ name: 'first' }), newAgenda({ name: 'second' })] as LockKeepingAgenda[];
      await Promise.all([first!.ready, second!.ready]);
      const name = jobName('renew');
      const job = await first!.create(name, {}).schedule(new Date()).save();
      const id = String(job.attrs._id);
      const scan = (agenda: LockKeepingAgenda) => agenda.db.getNextJobToRun(name, new Date(Date.now() + 1000), new Date(Date.now() - 60_000), undefined, { lastModifiedBy: agenda.attrs.name });
      const locked = await scan(first!);
      const at = new Date(Date.now() + 5_000);
      expect(await second!.renewLocks([id], at)).toEqual([]);
      expect((await storedJob(first!, id))?.lockedAt?.getTime()).toBe(locked!.lockedAt!.getTime());
      expect(await first!.renewLocks([id], at)).toEqual([id]);
      expect((await storedJob(first!, id))?.lockedAt?.getTime()).toBe(at.getTime());
      // Unlocked (handed back), it is not locked again by a renewal.
      await first!.db.unlockJobs([id]);
      expect(await first!.renewLocks([id], new Date())).toEqual([]);
      expect((await storedJob(first!, id))?.lockedAt).toBeUndefined();
    });
  });

  describe('retries, repeats and unique jobs', () => {
    it('a repeating job whose run was cut off (its process died) runs again when taken over, not at its next time', async () => {
      const agenda = newAgenda({ defaultLockLifetime: 500 });
      const name = jobName('cut-off');
      await agenda.ready;
      await agenda.every('30 minutes', name);
      const [saved] = await storedJobs(agenda, name);
      // What a worker killed during a run leaves: the run started (after the last one finished),
      // the next time computed 30 minutes on, the lock never given back.
      const startedAt = Date.now() - 60_000;
      await agenda.db.saveJobState({ ...saved!, lastFinishedAt: new Date(startedAt - 30 * 60_000), lastRunAt: new Date(startedAt), nextRunAt: new Date(startedAt + 30 * 60_000), lockedAt: new Date(startedAt) }, undefined);
      let runs = 0;
      agenda.define(name, async () => void (runs += 1));
      await agenda.start();
      await waitFor('the run', async () => runs === 1 && (await storedJobs(agenda, name))[0]?.lockedAt === undefined);
      const [stored] = await storedJobs(agenda, name);
      expect(stored!.lastRunAt!.getTime()).toBeGreaterThan(startedAt + 30_000);
      expect(stored!.nextRunAt!.getTime() - stored!.lastRunAt!.getTime()).toBe(30 * 60_000);
      // A repeating job whose last run finished is not run early when a stale lock is found.
      await agenda.db.saveJobState({ ...stored!, lockedAt: new Date(Date.now() - 60_000) }, undefined);
      await sleep(300);
      expect(runs).toBe(1);
    });

    it('retries a failing job with its backoff until it succeeds', async () => {
      const agenda = newAgenda();
      const name = jobName('retry');
      let calls = 0;
      const failures: { count: number | undefined; reason: string | undefined }[] = [];
      agenda.define(
        name,
        async () => {
          calls += 1;
          if (calls <= 2) throw new Error(`webhook down (${calls})`);
        },
        { backoff: ({ attempt }) => (attempt <= 3 ? 100 : null) },
      );
      agenda.on(`retry:${name}`, (job: Job) => void failures.push({ count: job.attrs.failCount, reason: job.attrs.failReason }));
      await agenda.start();
      const job = await agenda.now(name, {});
      await waitFor('three runs', async () => calls === 3 && (await storedJob(agenda, job.attrs._id))?.lockedAt === undefined);
      expect(failures).toEqual([
        { count: 1, reason: 'webhook down (1)' },
        { count: 2, reason: 'webhook down (2)' },
      ]);
      const stored = await storedJob(agenda, job.attrs._id);
      expect(stored?.failCount ?? 0).toBe(0);
      expect(stored?.failReason).toBe('webhook down (2)');
      expect(stored?.nextRunAt).toBeNull();
    });

    it("every('30 minutes') stores one job whose next run is 30 minutes after the last", async () => {
      const agenda = newAgenda();
      const name = jobName('every30');
      let runs = 0;
      agenda.define(name, async () => void (runs += 1));
      await agenda.start();
      await agenda.every('30 minutes', name);
      await waitFor('the first run', async () => runs === 1 && (await storedJobs(agenda, name))[0]?.lockedAt === undefined);
      const [stored, ...others] = await storedJobs(agenda, name);
      expect(others).toHaveLength(0);
      expect(stored).toMatchObject({ type: 'single', repeatInterval: '30 minutes' });
      expect(stored!.nextRunAt!.getTime() - stored!.lastRunAt!.getTime()).toBe(30 * 60_000);
    });

    it('a short every() runs repeatedly and stays one job', async () => {
      const agenda = newAgenda();
      const name = jobName('every');
      let runs = 0;
      agenda.define(name, async () => void (runs += 1));
      await agenda.start();
      await agenda.every(150, name);
      await waitFor('two runs', () => runs >= 2);
      expect(await storedJobs(agenda, name)).toHaveLength(1);
    });

    it('every() from two instances makes one job', async () => {
      const [first, second] = [newAgenda(), newAgenda()];
      const name = jobName('every-twice');
      // One after the other: MongoDB's upsert has no unique index behind it, so only the SQL
      // store promises one row for simultaneous calls (sql-job-store.test.ts checks that).
      await first.every('30 minutes', name, { from: 'first' });
      await second.every('30 minutes', name, { from: 'second' });
      await first.every('30 minutes', name, { from: 'first again' });
      const jobs = await storedJobs(first, name);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.data).toEqual({ from: 'first again' });
    });

    it('a unique job saved twice with insertOnly is stored once, unchanged', async () => {
      const agenda = newAgenda();
      await agenda.ready;
      const name = jobName('unique');
      const save = (data: object) => agenda.create(name, data).unique({ 'data.accountId': 42 }, { insertOnly: true }).schedule('in 1 hour').save();
      const first = await save({ accountId: 42, first: true });
      const second = await save({ accountId: 42, first: false });
      expect(String(second.attrs._id)).toBe(String(first.attrs._id));
      const jobs = await storedJobs(agenda, name);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.data).toEqual({ accountId: 42, first: true });
      // Without insertOnly the existing job is updated, still one row.
      await agenda.create(name, { accountId: 42, first: 'updated' }).unique({ 'data.accountId': 42 }).save();
      expect((await storedJobs(agenda, name)).map((job) => job.data)).toEqual([{ accountId: 42, first: 'updated' }]);
    });
  });

  workerContract(store, newAgenda);
}
