import { db } from '../db/client.ts';
import { newWebhookId } from '../webhooks/sign.ts';
import { sendContext } from './channel-services.ts';
import type { ChannelServices } from './channel-services.ts';
import { sendToChannel } from './channels/channel-kinds.ts';
import type { SendOutcome } from './channels/channel.ts';
import { writeNotification } from './notification-text.ts';
import { findChannel, openChannel } from './notification-channels.ts';

/** What a channel's test answered, for the settings page's "Send a test". */
export interface ChannelTestReport {
  /** The peer took it. */
  ok: boolean;
  /** delivered | retry | failed | gone (channels/channel.ts). */
  outcome: SendOutcome['outcome'];
  /** The peer's HTTP status (SMTP reply code for mail); null when none arrived. */
  status: number | null;
  /** Why it did not go, safe to show (no token); null when it went. */
  reason: string | null;
  /** The start of the peer's answer, tokens taken out. */
  answer: string | null;
  durationMs: number;
  /** The idempotency key the test went with (the signed webhook's `webhook-id`). */
  idempotencyKey: string;
  /** The channel was a web push subscription the push service no longer knows: it is removed. */
  removed: boolean;
}

/**
 * Sends the test message ("Airdate test notification") to one of the account's channels now, one
 * attempt, and reports what the peer answered. Sent even to a channel that is turned off, so that
 * a person can check it before turning it on again; not retried, not counted as a failure. A web
 * push subscription the push service calls gone (404, 410) is removed, as a delivery would.
 */
export async function testChannel(props: { accountId: number; id: number; services: ChannelServices; now?: () => Date }): Promise<ChannelTestReport> {
  const row = await findChannel(props);
  const target = await openChannel(row, props.services);
  const text = writeNotification({ type: 'test', channelName: row.name }, { publicOrigin: props.services.publicOrigin });
  const idempotencyKey = newWebhookId();
  const result = await sendToChannel(target, { ...text, action: null, webhookBody: null }, sendContext(props.services, { idempotencyKey, now: props.now }));
  const removed = result.outcome === 'gone' && row.kind === 'webpush';
  if (removed) await db().notificationChannel.deleteMany({ where: { id: row.id, kind: 'webpush' } });
  return {
    ok: result.outcome === 'delivered',
    outcome: result.outcome,
    status: result.status,
    reason: result.outcome === 'delivered' ? null : result.reason,
    answer: result.answer,
    durationMs: Math.round(result.durationMs),
    idempotencyKey,
    removed,
  };
}
