import type { Agenda, BackoffContext } from 'agenda';
import { currentRequestId, type Logger } from '../log.ts';
import { noMetrics, type Metrics } from '../metrics/metrics.ts';
import { loggedJobFailures, observedJob, requestIdKey } from '../jobs/observed-job.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import { deliverNotification, findDueNotifications, findStrandedNotifications } from './deliveries.ts';
import { retryPendingImports } from '../imports/pending-imports.ts';
import { retryUnmatchedDeliveries } from '../media-servers/deliveries.ts';
import { findAccountsToCheck, recordReleaseNotifications } from './releases.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import type { StepReached } from '../jobs/crash-points.ts';

/** The jobs of the release engine, by Agenda job name. */
export const jobNames = {
  /** Every 30 minutes: queues an account check for each account that may have a release. */
  releaseCheck: 'release-check',
  /** Every 30 minutes: refreshes every followed item from the catalogs, then retries pending imports. */
  catalogRefresh: 'catalog-refresh',
  /** One account: records its new release notifications and queues their deliveries. */
  accountCheck: 'account-release-check',
  /** POST /api/machine/sync: the account's catalog refresh, its pending imports retried, then its release check. */
  accountSync: 'account-sync',
  /** One notification: one delivery attempt; retried on the webhook schedule. */
  delivery: 'webhook-delivery',
  /** Every minute: queues the delivery of each due notification that has no delivery job. */
  deliverySweep: 'delivery-sweep',
} as const;

const checkInterval = '30 minutes';
const sweepInterval = '1 minute';
/** Notifications the sweep looks at per run (the oldest due first; the next run takes the rest). */
const sweepBatch = 1_000;

export interface ReleaseJobDeps {
  catalog: CatalogService;
  policy: TargetPolicy;
  timeoutMs: number;
  /** The job lock lifetime (AIRDATE_JOB_LOCK_MS): the sweep leaves notifications due for less than this to their own job. */
  lockMs: number;
  /** Called at each step where a crash is tested (AIRDATE_TEST_CRASH_AT); nothing by default. */
  onStep?: StepReached;
  logger: Logger;
  /** Counts job runs and webhook deliveries; none by default. */
  metrics?: Pick<Metrics, 'jobRun' | 'webhookDelivery'>;
}

/** Thrown by a delivery that should be tried again after `delayMs` (the webhook schedule's choice). */
class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`delivery will be retried in ${Math.round(delayMs / 1000)} s`);
    this.name = 'RetryLater';
  }
}

/**
 * Retries: a delivery asks for its own delay (the webhook schedule, Retry-After included); any
 * other failure of a job (database briefly unreachable, say) is retried five times, from 30 s to
 * 16 minutes apart.
 */
function backoff(context: BackoffContext): number | null {
  if (context.error instanceof RetryLater) return context.error.delayMs;
  return context.attempt <= 5 ? 30_000 * 2 ** (context.attempt - 1) : null;
}

/**
 * Deliveries one worker runs at once, and locks at once: deliveries locked beyond what can run
 * would wait in this worker while others could send them.
 */
const deliveryConcurrency = 50;

/** Defines every release-engine job on `agenda` (a worker must define them before starting). */
export function defineReleaseJobs(agenda: Agenda, deps: ReleaseJobDeps): void {
  const metrics = deps.metrics ?? noMetrics;
  const onStep = deps.onStep ?? (() => {});
  const observed = { logger: deps.logger, metrics, isRetry: (error: unknown) => error instanceof RetryLater };
  /**
   * Records the account's new notifications, then queues the delivery of each of its due ones:
   * those just recorded, and any a run of this job recorded before its process died (this job
   * is then run again, by whichever process takes it over).
   */
  const checkAccount = async (accountId: number) => {
    const now = new Date();
    await recordReleaseNotifications({ accountId, now });
    onStep('release-recorded');
    for (const notificationId of await findDueNotifications({ accountId, now })) await queueDelivery(agenda, notificationId, { manual: false });
  };

  agenda.define(jobNames.releaseCheck, observedJob(jobNames.releaseCheck, observed, async () => {
    const accounts = await findAccountsToCheck(new Date());
    for (const accountId of accounts) await queueUnique(agenda, jobNames.accountCheck, { accountId }, 'accountId');
    deps.logger.debug(`release check: ${accounts.length} account(s) queued`);
  }));

  agenda.define(jobNames.deliverySweep, observedJob(jobNames.deliverySweep, observed, async () => {
    const queued = await queueStrandedDeliveries(agenda, { now: new Date(), graceMs: deps.lockMs });
    if (queued > 0) deps.logger.warn(`delivery sweep: ${queued} due notification(s) had no delivery job; queued`);
  }));

  agenda.define(jobNames.catalogRefresh, observedJob(jobNames.catalogRefresh, observed, async () => {
    const summary = await deps.catalog.refreshFollowed({});
    deps.logger.debug(`catalog refresh: ${summary.items} item(s), ${summary.changes} change(s), ${summary.failures.length} failure(s)`);
    // Never throws: a failed retry is logged and the refresh stands.
    const retried = await retryPendingImports({ catalog: deps.catalog, logger: deps.logger });
    deps.logger.debug(`pending imports: ${retried.tried} tried for ${retried.accounts} account(s), ${retried.matched} matched, ${retried.failures} failure(s)`);
    // Unmatched media server deliveries the same way (never throws either).
    const deliveries = await retryUnmatchedDeliveries({ catalog: deps.catalog, logger: deps.logger });
    deps.logger.debug(`media server deliveries: ${deliveries.tried} unmatched tried, ${deliveries.matched} matched, ${deliveries.failures} failure(s)`);
  }));

  agenda.define(jobNames.accountCheck, observedJob(jobNames.accountCheck, observed, async (job) => {
    await checkAccount((job.attrs.data as { accountId: number }).accountId);
  }), { backoff, concurrency: 10 });

  agenda.define(jobNames.accountSync, observedJob(jobNames.accountSync, observed, async (job) => {
    const { accountId } = job.attrs.data as { accountId: number };
    await deps.catalog.refreshFollowed({ accountId });
    // After the refresh (which re-reads the offline file); logged, never failing the sync. Items it
    // adds may be released already: the release check that follows sees them.
    await retryPendingImports({ catalog: deps.catalog, accountId, logger: deps.logger });
    await retryUnmatchedDeliveries({ catalog: deps.catalog, accountId, logger: deps.logger });
    await checkAccount(accountId);
  }), { backoff, concurrency: 5 });

  agenda.define(jobNames.delivery, observedJob(jobNames.delivery, observed, async (job) => {
    const { notificationId, manual } = job.attrs.data as { notificationId: number; manual?: boolean };
    const step = await deliverNotification({
      notificationId,
      // Retries of a redelivery are the schedule's own attempts, not asked for again.
      manual: manual === true && !job.attrs.failCount,
      policy: deps.policy,
      timeoutMs: deps.timeoutMs,
      onStep,
    });
    metrics.webhookDelivery({ outcome: step.done ? step.outcome : 'retry', attempt: step.attempt });
    if (!step.done) throw new RetryLater(step.retryInMs);
  }), { backoff, concurrency: deliveryConcurrency, lockLimit: deliveryConcurrency });

  agenda.on('fail', (error: Error | string, job: { attrs: { name: string } }) => {
    // A handler's own failure was logged where it happened, with the job's context.
    if (error instanceof RetryLater || (typeof error === 'object' && loggedJobFailures.has(error))) return;
    deps.logger.warn(`job ${job.attrs.name} failed: ${error instanceof Error ? error.message : error}`);
  });
}

/**
 * Queues `name` with `data` unless a job with the same data is already queued or running. A job
 * that ran to its end without being removed (its retries exhausted) still holds the unique key:
 * it is scheduled again, else that account's syncs (or that notification's delivery) would never
 * run again. A redelivery (`replace`) always reschedules the existing job to run now.
 */
async function queueUnique(agenda: Agenda, name: string, data: Record<string, unknown>, key: string, options: { replace?: boolean } = {}): Promise<void> {
  const unique = { [`data.${key}`]: data[key] };
  // The request that queued the job (if any): the job's log lines carry its id.
  const requestId = currentRequestId();
  if (requestId !== undefined) data = { ...data, [requestIdKey]: requestId };
  const job = await agenda.create(name, data).unique(unique, { insertOnly: !options.replace }).schedule(new Date()).save();
  if (options.replace || job.attrs.nextRunAt !== null) return;
  // nextRunAt is null while a one-time job runs too; only an unlocked one has finished.
  const stored = await agenda.db.getJobById(String(job.attrs._id));
  if (stored && !stored.lockedAt && stored.nextRunAt === null) await job.unique(unique).schedule(new Date()).save();
}

/**
 * Queues the delivery of a notification: one job per notification, so queueing it again while it
 * waits for a retry changes nothing. A redelivery (`manual`) makes it run now.
 */
export async function queueDelivery(agenda: Agenda, notificationId: number, options: { manual: boolean }): Promise<void> {
  await queueUnique(agenda, jobNames.delivery, { notificationId, manual: options.manual }, 'notificationId', { replace: options.manual });
}

/** Queues a sync of one account: coalesced with one already queued or running. */
export async function queueSync(agenda: Agenda, accountId: number): Promise<void> {
  await queueUnique(agenda, jobNames.accountSync, { accountId }, 'accountId');
}

/**
 * Queues the delivery of every notification due for longer than `graceMs` that has no live
 * delivery job (none queued, running or locked; a job whose retries ran out is not live): normally
 * none, as the job that records a notification queues its delivery, and is run again if its
 * process dies in between. This catches the rest (a job store that lost jobs, a job given up
 * after its retries). Idempotent: the job is the notification's own (one per notification), and
 * its webhook-id the notification's. Returns how many it queued.
 */
export async function queueStrandedDeliveries(agenda: Agenda, props: { now: Date; graceMs: number }): Promise<number> {
  const due = await findStrandedNotifications({ now: props.now, graceMs: props.graceMs, limit: sweepBatch });
  if (due.length === 0) return 0;
  const { jobs } = await agenda.db.queryJobs({ name: jobNames.delivery });
  const live = new Set(jobs.filter((job) => job.nextRunAt || job.lockedAt).map((job) => (job.data as { notificationId?: unknown } | undefined)?.notificationId));
  const stranded = due.filter((notificationId) => !live.has(notificationId));
  for (const notificationId of stranded) await queueDelivery(agenda, notificationId, { manual: false });
  return stranded.length;
}

/** Makes the recurring jobs exist (once, however many workers call it): the two 30-minute ones and the delivery sweep. */
export async function scheduleRecurringJobs(agenda: Agenda): Promise<void> {
  await agenda.every(checkInterval, jobNames.catalogRefresh);
  await agenda.every(checkInterval, jobNames.releaseCheck);
  await agenda.every(sweepInterval, jobNames.deliverySweep);
}
