import { describe, expect, it } from 'vitest';
import { agendaJobQueue, defineJobs, scheduleRecurringJobs } from '../../src/jobs/define-jobs.ts';
import { defineJob, RetryLater, type AnyJobDefinition, type JobContext } from '../../src/jobs/job-definition.ts';
import { createLogger, withLogContext } from '../../src/log.ts';
import { noMetrics } from '../../src/metrics/metrics.ts';
import type { CrashStep } from '../../src/jobs/crash-points.ts';
import { useTestDatabase } from '../support/database.ts';
import { captureLog } from '../support/log-capture.ts';
import { agendaFactory, jobName, sleep, storedJobs, waitFor } from './support/job-store-harness.ts';

/**
 * The job runtime of the base (src/jobs/define-jobs.ts) on the test file's database, with jobs of
 * its own that no feature knows: what a definition declares (unique prop, retries, interval, crash
 * points) is what Agenda does, and `perform` gets its props and context.
 */
await useTestDatabase();
const newAgenda = agendaFactory(() => ({ childEnv: {} }));

function runtime(definitions: AnyJobDefinition[], onStep?: (step: CrashStep) => void) {
  const log = captureLog();
  const logger = createLogger({ level: 'debug', format: 'json', destination: log.destination });
  const agenda = newAgenda();
  // `services` as app.ts builds them; these jobs use none of the features' members.
  const services = { logger, metrics: noMetrics } as JobContext['services'];
  defineJobs(agenda, definitions, { services, lockMs: 30_000, onStep });
  return { agenda, jobs: agendaJobQueue(agenda), log, services };
}

describe('defineJobs', () => {
  it('runs perform with the props it was queued with and its context; the queueing request id goes to the log context, not the props', async () => {
    const seen: { props: unknown; failures: number; lockMs: number; hasServices: boolean }[] = [];
    const job = defineJob({
      name: jobName('props'),
      async perform(props: { accountId: number; note: string }, context) {
        seen.push({ props, failures: context.failures, lockMs: context.lockMs, hasServices: context.services.logger !== undefined });
        context.services.logger.info('performed');
      },
    });
    const { agenda, jobs, log } = runtime([job]);
    await agenda.start();
    await withLogContext({ reqId: 'request-42' }, () => jobs.queue(job, { accountId: 7, note: 'Severance' }));
    await waitFor('the run', () => seen.length === 1);
    expect(seen).toEqual([{ props: { accountId: 7, note: 'Severance' }, failures: 0, lockMs: 30_000, hasServices: true }]);
    await waitFor('the log line', () => log.records().some((record) => record.msg === 'performed'));
    expect(log.records().find((record) => record.msg === 'performed')).toMatchObject({ reqId: 'request-42', job: job.name });
  });

  it('a unique job is queued once per value while queued; without a unique prop every queueing is a job', async () => {
    const unique = defineJob({ name: jobName('unique'), unique: 'accountId', async perform(_props: { accountId: number; n: number }) {} });
    const plain = defineJob({ name: jobName('plain'), async perform(_props: { accountId: number }) {} });
    const { agenda, jobs } = runtime([unique, plain]);
    await agenda.ready;
    await Promise.all([1, 2, 3].map((n) => jobs.queue(unique, { accountId: 1, n })));
    await jobs.queue(unique, { accountId: 2, n: 4 });
    await jobs.queue(plain, { accountId: 1 });
    await jobs.queue(plain, { accountId: 1 });
    const queued = await storedJobs(agenda, unique.name);
    expect(queued.map((stored) => (stored.data as { accountId: number }).accountId).sort()).toEqual([1, 2]);
    expect(await storedJobs(agenda, plain.name)).toHaveLength(2);
    expect((await jobs.live(unique)).map((props) => props.accountId).sort()).toEqual([1, 2]);
  });

  it('retries a failed run as its definition says, counting failures; a job without retries runs once', async () => {
    const failures: number[] = [];
    const retried = defineJob({
      name: jobName('retried'),
      retry: { attempts: 2, firstDelayMs: 20 },
      async perform(_props, context) {
        failures.push(context.failures);
        throw new Error('the database is away');
      },
    });
    let onceRuns = 0;
    const once = defineJob({
      name: jobName('once'),
      async perform() {
        onceRuns += 1;
        throw new Error('no retry for me');
      },
    });
    const { agenda, jobs, log } = runtime([retried, once]);
    await agenda.start();
    await jobs.queue(retried, {});
    await jobs.queue(once, {});
    await waitFor('three runs: the first and two retries', () => failures.length === 3);
    await sleep(300); // many polls and back-offs: no fourth run
    expect(failures).toEqual([0, 1, 2]);
    expect(onceRuns).toBe(1);
    // Given up: no longer live.
    expect(await jobs.live(retried)).toEqual([]);
    expect(log.records().filter((record) => record.msg === `job ${retried.name} failed`)).toHaveLength(3);
  });

  it('a job that throws RetryLater runs again after the delay it asked for, counted as a retry and not logged as a failure', async () => {
    let runs = 0;
    const later = defineJob({
      name: jobName('later'),
      unique: 'notificationId',
      retry: { attempts: 5, firstDelayMs: 20 },
      async perform(_props: { notificationId: number; manual: boolean }) {
        runs += 1;
        throw new RetryLater(60 * 60_000);
      },
    });
    const { agenda, jobs, log } = runtime([later]);
    await agenda.start();
    const before = Date.now();
    await jobs.queue(later, { notificationId: 9, manual: false });
    await waitFor('the first run to be saved with its retry', async () => (await storedJobs(agenda, later.name))[0]?.failCount === 1);
    const [stored] = await storedJobs(agenda, later.name);
    expect(stored!.nextRunAt!.getTime()).toBeGreaterThanOrEqual(before + 60 * 60_000);
    expect(runs).toBe(1);
    expect(log.records().filter((record) => String(record.msg).includes('failed'))).toEqual([]);
    // Still live while it waits; queueing it again changes nothing, `replace` makes it run now with the new props.
    expect(await jobs.live(later)).toEqual([{ notificationId: 9, manual: false }]);
    await jobs.queue(later, { notificationId: 9, manual: false });
    expect((await storedJobs(agenda, later.name))[0]!.nextRunAt!.getTime()).toBe(stored!.nextRunAt!.getTime());
    await jobs.queue(later, { notificationId: 9, manual: true }, { replace: true });
    await waitFor('the replaced job to run now', () => runs === 2);
    expect((await storedJobs(agenda, later.name)).map((job) => job.data)).toEqual([{ notificationId: 9, manual: true }]);
  });

  it('calls the crash hook at the steps a job reaches', async () => {
    const steps: CrashStep[] = [];
    const job = defineJob({
      name: jobName('steps'),
      crashPoints: ['delivery-before-send', 'delivery-after-send'],
      async perform(_props, { reached }) {
        reached('delivery-before-send');
        reached('delivery-after-send');
      },
    });
    const { agenda, jobs } = runtime([job], (step) => steps.push(step));
    await agenda.start();
    await jobs.queue(job, {});
    await waitFor('both steps', () => steps.length === 2);
    expect(steps).toEqual(['delivery-before-send', 'delivery-after-send']);
  });

  it('refuses two definitions of one name', () => {
    const name = jobName('twice');
    const one = defineJob({ name, async perform() {} });
    const other = defineJob({ name, async perform() {} });
    expect(() => runtime([one, other])).toThrow(`two jobs are named ${name}`);
  });
});

describe('scheduleRecurringJobs', () => {
  it('makes one stored recurring job per definition with an interval, however often it is called, and none for the others', async () => {
    const recurring = defineJob({ name: jobName('recurring'), every: '30 minutes', async perform() {} });
    const oneTime = defineJob({ name: jobName('one-time'), async perform() {} });
    const { agenda } = runtime([recurring, oneTime]);
    await agenda.ready;
    await scheduleRecurringJobs(agenda, [recurring, oneTime]);
    await scheduleRecurringJobs(agenda, [recurring, oneTime]);
    const stored = await storedJobs(agenda, recurring.name);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: 'single', repeatInterval: '30 minutes' });
    expect(await storedJobs(agenda, oneTime.name)).toEqual([]);
  });
});
