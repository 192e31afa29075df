import { db } from '../db/client.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { retryDelayMs } from '../webhooks/retry-schedule.ts';
import type { SendResult } from '../webhooks/send-webhook.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import type { StepReached } from '../jobs/crash-points.ts';
import { sendContext } from './channel-services.ts';
import type { ChannelServices } from './channel-services.ts';
import { sendToChannel } from './channels/channel-kinds.ts';
import type { SendOutcome } from './channels/channel.ts';
import { deliveryMessage, openForDelivery, recordChannelOutcome } from './channel-outcomes.ts';

/**
 * What the delivery job does next: nothing more, or try again after `retryInMs`. `attempt`: the
 * number of the attempt just made (none when nothing was sent: skipped, cancelled). `notices`: the
 * notifications this attempt recorded (a channel turned off, told on the others), to deliver.
 */
export type DeliveryStep =
  | { done: true; outcome: SendResult['outcome'] | 'cancelled' | 'skipped'; attempt?: number; notices?: number[] }
  | { done: false; retryInMs: number; attempt: number };

export interface DeliverProps {
  notificationId: number;
  /** A redelivery asked for through GraphQL (marked so in the delivery log). */
  manual: boolean;
  policy: TargetPolicy;
  timeoutMs: number;
  /** The rest of what channels send with (the mail server, the origin of links, test peers). */
  channels?: Omit<ChannelServices, 'policy' | 'timeoutMs'>;
  /** Clock for the attempt's time and signature timestamp. */
  now?: () => Date;
  /** Called before the send, after it and after the record (where crashes are tested: src/jobs/crash-points.ts). */
  onStep?: StepReached<'delivery-before-send' | 'delivery-after-send' | 'delivery-after-record'>;
}

const channelDefaults: Omit<ChannelServices, 'policy' | 'timeoutMs'> = { smtpDefault: undefined, publicOrigin: 'http://localhost' };

/** The log's word for an outcome: the webhook's words of today (`success` for delivered). */
const loggedOutcome = (outcome: SendOutcome['outcome']): SendResult['outcome'] => (outcome === 'delivered' ? 'success' : outcome);

/**
 * One delivery attempt of a pending notification to its channel, logged with its outcome. A
 * notification that is no longer pending (delivered, failed, or being redelivered by someone
 * else) is left alone, so a job that runs twice after a crash sends at most one extra copy, with
 * the same idempotency key; one whose channel is gone or turned off is cancelled.
 *
 * Outcomes: delivered → delivered, the channel's failures back to 0; retryable ones → still
 * pending with the next attempt's time, until the schedule runs out (then failed); final failures
 * → failed. Each notification that ends failed counts one failure of its channel: at
 * `channelFailureLimit` in a row the channel is turned off and the account's other channels are
 * told. Gone: a web push subscription is removed; the signed webhook is turned off (410 Gone).
 */
export async function deliverNotification(props: DeliverProps): Promise<DeliveryStep> {
  const now = props.now ?? (() => new Date());
  const notification = await db().notification.findUnique({ where: { id: props.notificationId }, include: { channel: true } });
  if (!notification || notification.status !== 'pending') return { done: true, outcome: 'skipped' };
  const { channel } = notification;
  if (!channel || !channel.enabled) {
    await db().notification.update({ where: { id: notification.id }, data: { status: 'cancelled', nextAttemptAt: null } });
    return { done: true, outcome: 'cancelled' };
  }
  const services: ChannelServices = { ...channelDefaults, ...props.channels, policy: props.policy, timeoutMs: props.timeoutMs };
  const opened = await openForDelivery(channel, notification.accountId, services);

  const onStep = props.onStep ?? (() => {});
  onStep('delivery-before-send');
  const attemptAt = now();
  const result: SendOutcome =
    'failed' in opened
      ? { outcome: 'failed', status: null, durationMs: 0, answer: null, reason: opened.failed }
      : await sendToChannel(opened.target, deliveryMessage(channel.kind, notification.payload), sendContext(services, { idempotencyKey: notification.webhookId, now }));
  onStep('delivery-after-send');

  const number = notification.attempts + 1;
  // Automatic attempts follow the schedule; a manual redelivery retries on the same schedule from
  // where the notification's own count stands.
  const delay = result.outcome === 'retry' ? retryDelayMs({ attempt: number, retryAfterMs: result.retryAfterMs }) : null;
  const status = result.outcome === 'delivered' ? 'delivered' : result.outcome === 'retry' && delay !== null ? 'pending' : 'failed';
  const finishedAt = now();
  const reason = result.outcome === 'delivered' ? null : result.reason;
  const notices = await db().$transaction(async (tx) => {
    await tx.deliveryAttempt.create({
      data: {
        notificationId: notification.id,
        number,
        at: attemptAt,
        url: 'target' in opened && opened.url !== undefined ? opened.url : channel.summary,
        statusCode: result.status,
        durationMs: Math.round(result.durationMs),
        error: reason,
        outcome: loggedOutcome(result.outcome),
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
    return recordChannelOutcome(tx, { channel, outcome: result.outcome, ended: status, reason, at: finishedAt, publicOrigin: services.publicOrigin });
  });
  onStep('delivery-after-record');
  if (status === 'pending') return { done: false, retryInMs: delay!, attempt: number };
  return { done: true, outcome: loggedOutcome(result.outcome), attempt: number, ...(notices.length > 0 ? { notices } : {}) };
}

/**
 * Marks one of the account's finished notifications for delivery again (same `webhook-id`). The
 * caller queues the delivery job. A notification still being delivered is refused: its own
 * retries are on the way.
 */
export async function prepareRedelivery(props: { accountId: number; notificationId: number; now: Date }): Promise<void> {
  const { count } = await db().notification.updateMany({
    // A grouped item is sent only within its group's message: nothing of its own to send again.
    where: { id: props.notificationId, accountId: props.accountId, status: { in: ['delivered', 'failed', 'cancelled'] } },
    data: { status: 'pending', nextAttemptAt: props.now },
  });
  if (count === 1) return;
  const exists = await db().notification.findFirst({ where: { id: props.notificationId, accountId: props.accountId }, select: { status: true } });
  if (!exists) throw new NotFoundError(`unknown notification ${props.notificationId}`);
  if (exists.status === 'grouped') throw new InputError('this item was sent within another notification of its channel (toldWith in its payload): send that one again', 'id');
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

