import type { Prisma, NotificationChannel } from '../generated/prisma/client.ts';
import { channelLimits } from '../limits.ts';
import { AppError } from '../errors.ts';
import { DecryptionError } from '../keys/crypto.ts';
import { newWebhookId } from '../webhooks/sign.ts';
import { showWebhookSecret } from '../accounts/tokens.ts';
import { openWebhookUrl, webhookChannelKind } from '../accounts/webhook-setting.ts';
import type { ChannelServices } from './channel-services.ts';
import type { AnyChannelTarget } from './channels/channel-kinds.ts';
import type { ChannelMessage, SendOutcome } from './channels/channel.ts';
import { signedWebhookTarget } from './channels/signed-webhook.ts';
import { writeNotification } from './notification-text.ts';
import { openChannel } from './notification-channels.ts';

/**
 * What a delivery does with a channel around the send: opens its target, reads the stored
 * message, and keeps the channel's standing (failures in a row, turned off with a notice to the
 * others, a gone web push subscription removed, a gone webhook turned off).
 */

/** The channel's target, or why it cannot be sent to (a URL today's parser refuses, a secret key changed). */
export async function openForDelivery(channel: NotificationChannel, accountId: number, services: ChannelServices): Promise<{ target: AnyChannelTarget; url?: string } | { failed: string }> {
  try {
    if (channel.kind === webhookChannelKind) {
      const url = await openWebhookUrl(channel);
      return { target: signedWebhookTarget({ url, secret: await showWebhookSecret({ accountId }) }), url };
    }
    return { target: await openChannel(channel, services) };
  } catch (error) {
    if (error instanceof AppError || error instanceof DecryptionError) return { failed: `the channel cannot be opened: ${error.message}` };
    throw error;
  }
}

/**
 * The message a notification row holds: the signed webhook's rows hold the JSON body it sends
 * (a release's, byte for byte, as before channels); every other channel's the message's JSON.
 */
export function deliveryMessage(kind: string, payload: string): ChannelMessage {
  if (kind === webhookChannelKind) {
    return { event: 'test', title: '', body: '', link: null, poster: null, topic: 'webhook', urgency: 'normal', action: null, webhookBody: payload };
  }
  return JSON.parse(payload) as ChannelMessage;
}

/** What a notification row stores for a channel's message (deliveryMessage reads it back). */
export const storedMessage = (message: ChannelMessage): string => JSON.stringify(message);

/**
 * Keeps the channel's standing after an attempt, in the attempt's transaction; returns the ids of
 * the notices it recorded (to deliver). A delivered message clears the failures; one that ended
 * failed counts one, and the one that reaches the limit turns the channel off (once, however many
 * fail at the same time) and tells the account's other channels that are on (the signed webhook
 * excepted: its receivers expect releases).
 */
export async function recordChannelOutcome(
  tx: Prisma.TransactionClient,
  props: { channel: NotificationChannel; outcome: SendOutcome['outcome']; ended: string; reason: string | null; at: Date; publicOrigin: string },
): Promise<number[]> {
  const { channel, at } = props;
  if (props.outcome === 'delivered') {
    if (channel.consecutiveFailures > 0) await tx.notificationChannel.updateMany({ where: { id: channel.id }, data: { consecutiveFailures: 0 } });
    return [];
  }
  if (props.outcome === 'gone') {
    if (channel.kind === 'webpush') {
      await tx.notificationChannel.deleteMany({ where: { id: channel.id } });
    } else {
      // Only the URL that answered 410 is turned off: a URL changed meanwhile stays on.
      await tx.notificationChannel.updateMany({
        where: { id: channel.id, targetEnc: channel.targetEnc },
        data: { enabled: false, disabledAt: at, disabledReason: `the receiver answered 410 Gone on ${at.toISOString()}` },
      });
    }
    return [];
  }
  if (props.ended !== 'failed') return [];
  const counted = await tx.notificationChannel.update({ where: { id: channel.id }, data: { consecutiveFailures: { increment: 1 } }, select: { consecutiveFailures: true } });
  if (counted.consecutiveFailures < channelLimits.failuresInARow) return [];
  const lastReason = props.reason ?? 'failed';
  const { count } = await tx.notificationChannel.updateMany({
    where: { id: channel.id, enabled: true },
    data: { enabled: false, disabledAt: at, disabledReason: `failed ${counted.consecutiveFailures} times in a row (last: ${lastReason})` },
  });
  if (count === 0) return [];
  const text = writeNotification({ type: 'channel-disabled', channelName: channel.name, failures: counted.consecutiveFailures, lastReason }, { publicOrigin: props.publicOrigin });
  const others = await tx.notificationChannel.findMany({
    where: { accountId: channel.accountId, enabled: true, id: { not: channel.id }, kind: { not: webhookChannelKind } },
    select: { id: true },
  });
  const notices: number[] = [];
  for (const other of others) {
    const row = await tx.notification.create({
      data: {
        accountId: channel.accountId,
        channelId: other.id,
        itemKey: `channel-disabled:${channel.id}:${at.getTime()}`,
        kind: 'channel-disabled',
        webhookId: newWebhookId(),
        payload: storedMessage({ ...text, action: null, webhookBody: null }),
        releaseDate: at.toISOString().slice(0, 10),
        nextAttemptAt: at,
      },
      select: { id: true },
    });
    notices.push(row.id);
  }
  return notices;
}
