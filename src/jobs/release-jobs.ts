import type { Agenda, BackoffContext } from 'agenda';
import { currentRequestId, type Logger } from '../log.ts';
import { noMetrics, type Metrics } from '../metrics/metrics.ts';
import { loggedJobFailures, observedJob, requestIdKey } from './observed-job.ts';
import type { CatalogService } from '../services/catalog.ts';
import { deliverNotification, findStrandedNotifications } from '../services/deliveries.ts';
import { retryPendingImports } from '../services/pending-imports.ts';
import { findAccountsToCheck, recordReleaseNotifications } from '../services/releases.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';

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
} as const;

const checkInterval = '30 minutes';

export interface ReleaseJobDeps {
  catalog: CatalogService;
  policy: TargetPolicy;
  timeoutMs: number;
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

/** Lock lifetime of a delivery: past it, a worker that died mid-attempt is presumed dead. */
const deliveryLockLifetime = (timeoutMs: number): number => timeoutMs * 2 + 1_000;
/**
 * Deliveries one worker runs at once, and locks at once: a lock counts from when it is taken, so
 * a delivery locked beyond what can run would wait for a slot and could pass its lock lifetime
 * (twice the webhook timeout) before it even started, to be cancelled at the end of its attempt.
 */
const deliveryConcurrency = 50;

/** Defines every release-engine job on `agenda` (a worker must define them before starting). */
export function defineReleaseJobs(agenda: Agenda, deps: ReleaseJobDeps): void {
  const metrics = deps.metrics ?? noMetrics;
  const observed = { logger: deps.logger, metrics, isRetry: (error: unknown) => error instanceof RetryLater };
  const checkAccount = async (accountId: number) => {
    const created = await recordReleaseNotifications({ accountId, now: new Date() });
    for (const notificationId of created) await queueDelivery(agenda, notificationId, { manual: false });
    return created.length;
  };

  agenda.define(jobNames.releaseCheck, observedJob(jobNames.releaseCheck, observed, async () => {
    const at = new Date();
    // A notification recorded by a process that died before queueing its delivery.
    const stranded = await findStrandedNotifications({ now: at, graceMs: deliveryLockLifetime(deps.timeoutMs) * 2 });
    for (const notificationId of stranded) await queueDelivery(agenda, notificationId, { manual: false });
    const accounts = await findAccountsToCheck(at);
    for (const accountId of accounts) await queueUnique(agenda, jobNames.accountCheck, { accountId }, 'accountId');
    deps.logger.debug(`release check: ${accounts.length} account(s) queued, ${stranded.length} stranded notification(s) re-queued`);
  }));

  agenda.define(jobNames.catalogRefresh, observedJob(jobNames.catalogRefresh, observed, async () => {
    const summary = await deps.catalog.refreshFollowed({});
    deps.logger.debug(`catalog refresh: ${summary.items} item(s), ${summary.changes} change(s), ${summary.failures.length} failure(s)`);
    // Never throws: a failed retry is logged and the refresh stands.
    const retried = await retryPendingImports({ catalog: deps.catalog, logger: deps.logger });
    deps.logger.debug(`pending imports: ${retried.tried} tried for ${retried.accounts} account(s), ${retried.matched} matched, ${retried.failures} failure(s)`);
  }), { lockLifetime: 60 * 60_000 });

  agenda.define(jobNames.accountCheck, observedJob(jobNames.accountCheck, observed, async (job) => {
    await checkAccount((job.attrs.data as { accountId: number }).accountId);
  }), { backoff, concurrency: 10 });

  agenda.define(jobNames.accountSync, observedJob(jobNames.accountSync, observed, async (job) => {
    const { accountId } = job.attrs.data as { accountId: number };
    await deps.catalog.refreshFollowed({ accountId });
    // After the refresh (which re-reads the offline file); logged, never failing the sync. Items it
    // adds may be released already: the release check that follows sees them.
    await retryPendingImports({ catalog: deps.catalog, accountId, logger: deps.logger });
    await checkAccount(accountId);
  }), { backoff, concurrency: 5, lockLifetime: 10 * 60_000 });

  agenda.define(jobNames.delivery, observedJob(jobNames.delivery, observed, async (job) => {
    const { notificationId, manual } = job.attrs.data as { notificationId: number; manual?: boolean };
    const step = await deliverNotification({
      notificationId,
      // Retries of a redelivery are the schedule's own attempts, not asked for again.
      manual: manual === true && !job.attrs.failCount,
      policy: deps.policy,
      timeoutMs: deps.timeoutMs,
    });
    metrics.webhookDelivery({ outcome: step.done ? step.outcome : 'retry', attempt: step.attempt });
    if (!step.done) throw new RetryLater(step.retryInMs);
  }), { backoff, concurrency: deliveryConcurrency, lockLimit: deliveryConcurrency, lockLifetime: deliveryLockLifetime(deps.timeoutMs) });

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

/** Makes the two 30-minute jobs exist (once, however many workers call it). */
export async function scheduleRecurringJobs(agenda: Agenda): Promise<void> {
  await agenda.every(checkInterval, jobNames.catalogRefresh);
  await agenda.every(checkInterval, jobNames.releaseCheck);
}
