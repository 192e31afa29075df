import type { Agenda } from 'agenda';
import { describe, expect, it } from 'vitest';
import { stopAgenda } from '../../src/jobs/create-agenda.ts';
import { jobName, sleep, startChildWorker, storedJob, storedJobs, waitFor, type JobStoreUnderTest, type TestAgendaProps } from './support/job-store-harness.ts';

/** Settings that make two workers share a batch: few locks each, a few jobs at a time. */
const sharing: TestAgendaProps = { maxConcurrency: 5, defaultConcurrency: 5, defaultLockLimit: 5 };

/** Queues jobs `name` with data { n } for n in 0..count-1. */
async function queue(agenda: Agenda, name: string, count: number): Promise<void> {
  for (let n = 0; n < count; n += 1) await agenda.now(name, { n });
}

/** Every job of `name` has run and is unlocked. */
async function allFinished(agenda: Agenda, name: string, count: number): Promise<boolean> {
  const jobs = await storedJobs(agenda, name);
  return jobs.length === count && jobs.every((job) => job.lastFinishedAt !== undefined && job.lockedAt === undefined);
}

/** Each of 0..count-1 exactly once across the workers' runs. */
function expectEachOnce(runs: number[], count: number): void {
  expect([...runs].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, n) => n));
}

/** The contract's part about workers: competition, removal on completion, queries, stopping. */
export function workerContract(store: () => JobStoreUnderTest, newAgenda: (props?: TestAgendaProps) => Agenda): void {
  describe('competing workers', () => {
    it('two instances share 200 jobs and run each exactly once', async () => {
      const name = jobName('shared');
      const runs: [number[], number[]] = [[], []];
      const workers = [newAgenda({ ...sharing, name: 'one' }), newAgenda({ ...sharing, name: 'two' })];
      for (const [index, worker] of workers.entries()) {
        worker.define(name, async (job) => {
          runs[index]!.push((job.attrs.data as { n: number }).n);
          await sleep(5);
        });
        await worker.start();
      }
      const producer = newAgenda();
      await queue(producer, name, 200);
      await waitFor('all 200 jobs', () => allFinished(producer, name, 200), 30_000);
      await sleep(200); // a few more polls: nothing may run twice
      expectEachOnce([...runs[0], ...runs[1]], 200);
      expect(runs[0].length).toBeGreaterThan(0);
      expect(runs[1].length).toBeGreaterThan(0);
    });

    it('a worker in another process and one here share 200 jobs, each run exactly once', async () => {
      const name = jobName('processes');
      const child = await startChildWorker(store(), name, 20);
      try {
        const here: number[] = [];
        const worker = newAgenda({ ...sharing, name: 'parent' });
        worker.define(name, async (job) => {
          here.push((job.attrs.data as { n: number }).n);
          await sleep(20);
        });
        await worker.start();
        await queue(newAgenda(), name, 200);
        await waitFor('all 200 jobs', () => allFinished(worker, name, 200), 60_000);
        await sleep(200);
        expectEachOnce([...here, ...child.runs], 200);
        expect(here.length).toBeGreaterThan(0);
        expect(child.runs.length).toBeGreaterThan(0);
      } finally {
        await child.stop();
      }
    });
  });

  describe('removal, queries and stopping', () => {
    it('removeOnComplete removes a job that succeeded and keeps one that failed', async () => {
      const agenda = newAgenda({ removeOnComplete: true });
      const [ok, failing] = [jobName('ok'), jobName('failing')];
      agenda.define(ok, async () => {});
      agenda.define(failing, async () => {
        throw new Error('catalog unreachable');
      });
      await agenda.start();
      const [okJob, failingJob] = [await agenda.now(ok, {}), await agenda.now(failing, {})];
      await waitFor('the successful job to go', async () => (await storedJob(agenda, okJob.attrs._id)) === null);
      await waitFor('the failure to be stored', async () => (await storedJob(agenda, failingJob.attrs._id))?.failedAt !== undefined);
      expect(await storedJob(agenda, failingJob.attrs._id)).toMatchObject({ failCount: 1, failReason: 'catalog unreachable' });
    });

    it('queryJobs, getJobsOverview, cancel, disable and enable answer for the stored jobs', async () => {
      const agenda = newAgenda();
      const [planned, done] = [jobName('Planned'), jobName('done')];
      agenda.define(done, async () => {});
      await agenda.start();
      for (const slot of [1, 2, 3]) await agenda.schedule('in 2 hours', planned, { slot, kind: { a: slot === 1 } });
      expect(await agenda.disable({ name: planned, data: { slot: 3 } })).toBe(1);
      const doneJob = await agenda.now(done, {});
      await waitFor('the done job', async () => (await storedJob(agenda, doneJob.attrs._id))?.lastFinishedAt !== undefined);

      expect((await agenda.queryJobs({ name: planned })).total).toBe(3);
      expect((await agenda.queryJobs({ name: planned, includeDisabled: false })).total).toBe(2);
      expect((await agenda.queryJobs({ name: planned, state: 'paused' })).jobs.map((job) => job.data)).toEqual([{ slot: 3, kind: { a: false } }]);
      expect((await agenda.queryJobs({ search: planned.toUpperCase() })).total).toBe(3);
      expect((await agenda.queryJobs({ name: planned, data: { kind: { a: true } } })).jobs.map((job) => job.data)).toEqual([{ slot: 1, kind: { a: true } }]);
      const page = await agenda.queryJobs({ name: planned, sort: { name: 'asc' }, skip: 1, limit: 1 });
      expect(page).toMatchObject({ total: 3, jobs: [{ name: planned, state: 'scheduled' }] });
      expect((await agenda.queryJobs({ name: done })).jobs[0]).toMatchObject({ state: 'completed' });

      const overview = await agenda.getJobsOverview();
      expect(overview.find((entry) => entry.name === planned)).toMatchObject({ total: 3, scheduled: 3, paused: 1 });
      expect(overview.find((entry) => entry.name === done)).toMatchObject({ total: 1, completed: 1 });
      expect(await agenda.db.getDistinctJobNames()).toEqual(expect.arrayContaining([planned, done]));

      // MongoDB counts never-set flags it writes as changed too, so only "at least the paused one".
      expect(await agenda.enable({ name: planned })).toBeGreaterThanOrEqual(1);
      expect((await agenda.queryJobs({ name: planned, includeDisabled: false })).total).toBe(3);
      expect(await agenda.cancel({ name: planned, data: { slot: 2 } })).toBe(1);
      expect(await agenda.cancel({})).toBe(0);
      expect((await storedJobs(agenda, planned)).map((job) => job.data)).toEqual(expect.arrayContaining([{ slot: 1, kind: { a: true } }, { slot: 3, kind: { a: false } }]));
    });

    it('drain() lets a running job finish', async () => {
      const agenda = newAgenda();
      const name = jobName('drain');
      let release = () => {};
      agenda.define(name, () => new Promise<void>((resolve) => (release = resolve)));
      await agenda.start();
      const job = await agenda.now(name, {});
      await waitFor('the job to start', async () => (await storedJob(agenda, job.attrs._id))?.lastRunAt !== undefined);
      const drained = agenda.drain({ closeConnection: false });
      await sleep(100);
      release();
      expect(await drained).toMatchObject({ running: 0, timedOut: false });
      expect((await storedJob(agenda, job.attrs._id))?.lastFinishedAt).toBeInstanceOf(Date);
    });

    it('stopAgenda returns once a job removed on completion has finished, not at the end of its wait', async () => {
      const agenda = newAgenda({ removeOnComplete: true });
      const name = jobName('stop-removed');
      let release = () => {};
      agenda.define(name, () => new Promise<void>((resolve) => (release = resolve)));
      await agenda.start();
      const job = await agenda.now(name, {});
      await waitFor('the job to start', async () => (await storedJob(agenda, job.attrs._id))?.lastRunAt !== undefined);
      const stopped = stopAgenda(agenda, 600_000);
      await sleep(100);
      release();
      // (Waiting out the ten minutes would fail this test at its own time limit.)
      expect(await stopped).toEqual({ stillRunning: 0 });
      expect(await storedJob(agenda, job.attrs._id)).toBeNull();
    });

    it('stopAgenda lets the running job finish and unlocks the jobs it had not started', async () => {
      const agenda = newAgenda({ defaultConcurrency: 1, defaultLockLimit: 3 });
      const name = jobName('stop');
      const started: number[] = [];
      let release = () => {};
      agenda.define(name, (job) => {
        started.push((job.attrs.data as { n: number }).n);
        return new Promise<void>((resolve) => (release = resolve));
      });
      await agenda.start();
      await queue(agenda, name, 3);
      await waitFor('one running, three locked', async () => started.length === 1 && (await storedJobs(agenda, name)).every((job) => job.lockedAt !== undefined));
      const stopped = stopAgenda(agenda, 10_000);
      await sleep(100);
      release();
      expect(await stopped).toEqual({ stillRunning: 0 });
      const jobs = await storedJobs(agenda, name);
      expect(jobs.every((job) => job.lockedAt === undefined)).toBe(true);
      expect(jobs.filter((job) => job.lastFinishedAt !== undefined).map((job) => (job.data as { n: number }).n)).toEqual(started);
      // The unstarted ones are free for another worker right away.
      const next = newAgenda();
      const rest: number[] = [];
      next.define(name, async (job) => void rest.push((job.attrs.data as { n: number }).n));
      await next.start();
      await waitFor('the other two', () => rest.length === 2);
      expect([...started, ...rest].sort()).toEqual([0, 1, 2]);
    });
  });
}
