import { db } from '../db/client.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { retryDelayMs } from '../webhooks/retry-schedule.ts';
import { sendWebhook, type SendResult } from '../webhooks/send-webhook.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import type { StepReached } from '../jobs/crash-points.ts';
import { showWebhookSecret } from '../accounts/tokens.ts';

/**
 * What the delivery job does next: nothing more, or try again after `retryInMs`. `attempt`: the
 * number of the attempt just made (none when nothing was sent: skipped, cancelled).
 */
export type DeliveryStep =
  | { done: true; outcome: SendResult['outcome'] | 'cancelled' | 'skipped'; attempt?: number }
  | { done: false; retryInMs: number; attempt: number };

export interface DeliverProps {
  notificationId: number;
  /** A redelivery asked for through GraphQL (marked so in the delivery log). */
  manual: boolean;
  policy: TargetPolicy;
  timeoutMs: number;
  /** Clock for the attempt's time and signature timestamp. */
  now?: () => Date;
  /** Called before the send, after it and after the record (where crashes are tested: src/jobs/crash-points.ts). */
  onStep?: StepReached<'delivery-before-send' | 'delivery-after-send' | 'delivery-after-record'>;
}

/**
 * One delivery attempt of a pending notification, logged with its outcome. A notification that is
 * no longer pending (delivered, failed, or being redelivered by someone else) is left alone, so a
 * job that runs twice after a crash sends at most one extra copy, with the same `webhook-id`.
 *
 * Outcomes: success → delivered; 410 → failed, and the account's webhook is turned off; other
 * final failures → failed; retryable ones → still pending with the next attempt's time, until the
 * schedule runs out (then failed).
 */
export async function deliverNotification(props: DeliverProps): Promise<DeliveryStep> {
  const now = props.now ?? (() => new Date());
  const notification = await db().notification.findUnique({
    where: { id: props.notificationId },
    include: { account: { select: { id: true, webhookUrl: true, webhookDisabledAt: true, webhookSecretEnc: true } } },
  });
  if (!notification || notification.status !== 'pending') return { done: true, outcome: 'skipped' };
  const { account } = notification;
  if (!account.webhookUrl || account.webhookDisabledAt) {
    await db().notification.update({ where: { id: notification.id }, data: { status: 'cancelled', nextAttemptAt: null } });
    return { done: true, outcome: 'cancelled' };
  }

  const secret = await showWebhookSecret({ accountId: account.id, stored: account.webhookSecretEnc });
  const onStep = props.onStep ?? (() => {});
  onStep('delivery-before-send');
  const attemptAt = now();
  const result = await sendWebhook({
    url: account.webhookUrl,
    webhookId: notification.webhookId,
    body: notification.payload,
    secret,
    policy: props.policy,
    timeoutMs: props.timeoutMs,
    now,
  });
  onStep('delivery-after-send');

  const number = notification.attempts + 1;
  // Automatic attempts follow the schedule; a manual redelivery retries on the same schedule from
  // where the notification's own count stands.
  const delay = result.outcome === 'retry' ? retryDelayMs({ attempt: number, retryAfterMs: result.retryAfterMs }) : null;
  const status =
    result.outcome === 'success' ? 'delivered' : result.outcome === 'retry' && delay !== null ? 'pending' : 'failed';
  const finishedAt = now();
  await db().$transaction(async (tx) => {
    await tx.deliveryAttempt.create({
      data: {
        notificationId: notification.id,
        number,
        at: attemptAt,
        url: account.webhookUrl!,
        statusCode: result.statusCode,
        durationMs: Math.round(result.durationMs),
        error: result.error,
        outcome: result.outcome,
        manual: props.manual,
      },
    });
    await tx.notification.update({
      where: { id: notification.id },
      data: {
        status,
        attempts: number,
        lastAttemptAt: attemptAt,
        nextAttemptAt: status === 'pending' ? new Date(finishedAt.getTime() + delay!) : null,
        deliveredAt: status === 'delivered' ? finishedAt : undefined,
      },
    });
    if (result.outcome === 'gone') {
      // Only the URL that answered 410 is turned off: a URL changed meanwhile stays on.
      await tx.account.updateMany({
        where: { id: account.id, webhookUrl: account.webhookUrl },
        data: { webhookDisabledAt: finishedAt, webhookDisabledReason: `the receiver answered 410 Gone on ${finishedAt.toISOString()}` },
      });
    }
  });
  onStep('delivery-after-record');
  return status === 'pending' ? { done: false, retryInMs: delay!, attempt: number } : { done: true, outcome: result.outcome, attempt: number };
}

/**
 * Marks one of the account's finished notifications for delivery again (same `webhook-id`). The
 * caller queues the delivery job. A notification still being delivered is refused: its own
 * retries are on the way.
 */
export async function prepareRedelivery(props: { accountId: number; notificationId: number; now: Date }): Promise<void> {
  const { count } = await db().notification.updateMany({
    where: { id: props.notificationId, accountId: props.accountId, status: { not: 'pending' } },
    data: { status: 'pending', nextAttemptAt: props.now },
  });
  if (count === 1) return;
  const exists = await db().notification.findFirst({ where: { id: props.notificationId, accountId: props.accountId }, select: { id: true } });
  if (!exists) throw new NotFoundError(`unknown notification ${props.notificationId}`);
  throw new InputError('this notification is still being delivered; its retries are scheduled', 'id');
}

/**
 * Pending notifications whose next attempt is overdue by `graceMs`, the most overdue first, at
 * most `limit`: those the delivery sweep checks for a delivery job (release-jobs.ts).
 */
export async function findStrandedNotifications(props: { now: Date; graceMs: number; limit: number }): Promise<number[]> {
  const rows = await db().notification.findMany({
    where: { status: 'pending', nextAttemptAt: { lt: new Date(props.now.getTime() - props.graceMs) } },
    select: { id: true },
    orderBy: [{ nextAttemptAt: 'asc' }, { id: 'asc' }],
    take: props.limit,
  });
  return rows.map((row) => row.id);
}

/** The account's pending notifications whose next attempt is due at `now`, oldest first. */
export async function findDueNotifications(props: { accountId: number; now: Date }): Promise<number[]> {
  const rows = await db().notification.findMany({
    where: { accountId: props.accountId, status: 'pending', nextAttemptAt: { lte: props.now } },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => row.id);
}

