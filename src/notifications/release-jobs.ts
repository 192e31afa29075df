import { defineJob, RetryLater, retryFiveTimes, type JobQueue } from '../jobs/job-definition.ts';
import type { StepReached } from '../jobs/crash-points.ts';
import { deliverNotification, findDueNotifications, findStrandedNotifications, prepareRedelivery } from './deliveries.ts';
import { findAccountsToCheck, recordReleaseNotifications } from './releases.ts';

/** Notifications the sweep looks at per run (the oldest due first; the next run takes the rest). */
const sweepBatch = 1_000;

/**
 * Deliveries one worker runs at once, and locks at once: deliveries locked beyond what can run
 * would wait in this worker while others could send them.
 */
const deliveryConcurrency = 50;

/** One notification: one delivery attempt; retried on the webhook schedule. One job per notification. */
export const deliveryJob = defineJob({
  name: 'webhook-delivery',
  unique: 'notificationId',
  concurrency: deliveryConcurrency,
  lockLimit: deliveryConcurrency,
  // Besides, a delivery asks for its own delay (the webhook schedule, Retry-After included: RetryLater).
  retry: retryFiveTimes,
  crashPoints: ['delivery-before-send', 'delivery-after-send', 'delivery-after-record'],
  async perform({ notificationId, manual }: { notificationId: number; manual?: boolean }, context) {
    const { channels, metrics } = context.services;
    const step = await deliverNotification({
      notificationId,
      // Retries of a redelivery are the schedule's own attempts, not asked for again.
      manual: manual === true && context.failures === 0,
      policy: channels.policy,
      timeoutMs: channels.timeoutMs,
      channels,
      onStep: context.reached,
    });
    metrics.webhookDelivery({ outcome: step.done ? step.outcome : 'retry', attempt: step.attempt });
    if (!step.done) throw new RetryLater(step.retryInMs, 'delivery');
    // A channel turned off: its notices to the other channels (recorded with the attempt; the sweep queues them if this process dies first).
    for (const notice of step.notices ?? []) await context.jobs.queue(deliveryJob, { notificationId: notice, manual: false });
  },
});

/**
 * Records the account's new notifications, then queues the delivery of each of its due ones:
 * those just recorded, and any a run of this check recorded before its process died (the job is
 * then run again, by whichever process takes it over).
 */
export async function checkAccountReleases(props: { accountId: number; jobs: JobQueue; reached: StepReached<'release-recorded'>; publicOrigin: string }): Promise<void> {
  const now = new Date();
  await recordReleaseNotifications({ accountId: props.accountId, now, publicOrigin: props.publicOrigin });
  props.reached('release-recorded');
  for (const notificationId of await findDueNotifications({ accountId: props.accountId, now })) {
    await props.jobs.queue(deliveryJob, { notificationId, manual: false });
  }
}

/** One account: records its new release notifications and queues their deliveries. */
export const accountCheckJob = defineJob({
  name: 'account-release-check',
  unique: 'accountId',
  concurrency: 10,
  retry: retryFiveTimes,
  crashPoints: ['release-recorded'],
  perform: ({ accountId }: { accountId: number }, { jobs, reached, services }) => checkAccountReleases({ accountId, jobs, reached, publicOrigin: services.channels.publicOrigin }),
});

/** Every 30 minutes: queues an account check for each account that may have a release. */
export const releaseCheckJob = defineJob({
  name: 'release-check',
  every: '30 minutes',
  async perform(_props, { jobs, services }) {
    const accounts = await findAccountsToCheck(new Date());
    for (const accountId of accounts) await jobs.queue(accountCheckJob, { accountId });
    services.logger.debug(`release check: ${accounts.length} account(s) queued`);
  },
});

/**
 * Queues the delivery of every notification due for longer than `graceMs` that has no live
 * delivery job (none queued, running or locked; a job whose retries ran out is not live): normally
 * none, as the job that records a notification queues its delivery, and is run again if its
 * process dies in between. This catches the rest (a job store that lost jobs, a job given up
 * after its retries). Idempotent: the job is the notification's own (one per notification), and
 * its webhook-id the notification's. Returns how many it queued.
 */
export async function queueStrandedDeliveries(jobs: JobQueue, props: { now: Date; graceMs: number }): Promise<number> {
  const due = await findStrandedNotifications({ now: props.now, graceMs: props.graceMs, limit: sweepBatch });
  if (due.length === 0) return 0;
  const live = new Set((await jobs.live(deliveryJob)).map((job) => job.notificationId));
  const stranded = due.filter((notificationId) => !live.has(notificationId));
  for (const notificationId of stranded) await jobs.queue(deliveryJob, { notificationId, manual: false });
  return stranded.length;
}

/** Every minute: queues the delivery of each due notification that has no delivery job. */
export const deliverySweepJob = defineJob({
  name: 'delivery-sweep',
  every: '1 minute',
  async perform(_props, { jobs, services, lockMs }) {
    // Notifications due for less than a lock's lifetime are left to their own job.
    const queued = await queueStrandedDeliveries(jobs, { now: new Date(), graceMs: lockMs });
    if (queued > 0) services.logger.warn(`delivery sweep: ${queued} due notification(s) had no delivery job; queued`);
  },
});

/**
 * Delivers one of the account's finished notifications again, with the same `webhook-id`, now:
 * a delivery job already queued is rescheduled rather than queued twice.
 */
export async function redeliverNotification(props: { jobs: JobQueue; accountId: number; notificationId: number }): Promise<void> {
  await prepareRedelivery({ accountId: props.accountId, notificationId: props.notificationId, now: new Date() });
  await props.jobs.queue(deliveryJob, { notificationId: props.notificationId, manual: true }, { replace: true });
}

/** The release engine's jobs, the recurring ones in the order they are first scheduled. */
export const releaseJobs = [releaseCheckJob, deliverySweepJob, accountCheckJob, deliveryJob];
