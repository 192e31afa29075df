import { db } from '../db/client.ts';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import { decryptSecret, encryptSecret } from '../keys/crypto.ts';
import { secretKey } from '../keys/secret-key.ts';
import { describeWebhookUrl } from '../webhooks/webhook-summary.ts';

/**
 * The account's signed webhook (docs/webhooks.md), kept as one notification channel among the
 * others: a NotificationChannel row of kind `webhook`, at most one per account (its targetDigest
 * is the word `webhook`, unique per account), its URL sealed like every channel's. The setting
 * of today (`updateSettings(webhookUrl)`, `viewer.webhookUrl`, `user set --webhook-url`) reads and
 * writes it here; its signing secret stays the account's (`webhookSecret`).
 */

export const webhookChannelKind = 'webhook';
const webhookDigest = 'webhook';
/** The release events the webhook has always been sent (channel-events.ts names them). */
export const webhookEvents = 'episodes-released,season-premiere,series-premiere,season-finale,film-released,game-released';
/**
 * Rows moved by the migration from the account's old webhookUrl column hold the URL after this
 * prefix (SQL cannot encrypt): read as they are, sealed at start-up and at first read.
 */
const movedPrefix = 'plain:';

export interface WebhookSetting {
  channelId: number;
  url: string;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
}

/** The URL a stored webhook channel holds (sealing a moved one in place). */
export async function openWebhookUrl(row: { id: number; targetEnc: string }): Promise<string> {
  if (!row.targetEnc.startsWith(movedPrefix)) return decryptSecret(row.targetEnc, secretKey());
  const url = row.targetEnc.slice(movedPrefix.length);
  await db().notificationChannel.updateMany({
    where: { id: row.id, targetEnc: row.targetEnc },
    data: { targetEnc: encryptSecret(url, secretKey()), summary: describeWebhookUrl(url) },
  });
  return url;
}

/** Seals every webhook URL the migration moved in the clear; run at start-up. Returns how many. */
export async function sealMovedWebhookUrls(): Promise<number> {
  const rows = await db().notificationChannel.findMany({ where: { kind: webhookChannelKind, targetEnc: { startsWith: movedPrefix } }, select: { id: true, targetEnc: true } });
  for (const row of rows) await openWebhookUrl(row);
  return rows.length;
}

/** The account's webhook, or null when none is set. */
export async function findWebhook(accountId: number): Promise<WebhookSetting | null> {
  const row = await db().notificationChannel.findUnique({ where: { accountId_targetDigest: { accountId, targetDigest: webhookDigest } } });
  if (!row) return null;
  return { channelId: row.id, url: await openWebhookUrl(row), enabled: row.enabled, disabledAt: row.disabledAt, disabledReason: row.disabledReason };
}

/**
 * Sets the account's webhook URL (already checked), or removes the webhook (null). Setting a URL,
 * even the same one, turns a webhook turned off (410 Gone, failures) back on. Returns whether
 * anything changed.
 */
export async function writeWebhook(accountId: number, url: string | null, current: WebhookSetting | null): Promise<boolean> {
  if (url === null) {
    if (current === null) return false;
    await db().notificationChannel.deleteMany({ where: { id: current.channelId } });
    return true;
  }
  if (current !== null && current.url === url && current.enabled) return false;
  const { targetEnc, summary } = webhookChannelRow(accountId, url);
  const sealed = { targetEnc, summary, enabled: true, consecutiveFailures: 0, disabledAt: null, disabledReason: null };
  // Two settings at once: the one that loses the insert updates instead.
  await retryOnUniqueViolation(() =>
    db().notificationChannel.upsert({
      where: { accountId_targetDigest: { accountId, targetDigest: webhookDigest } },
      create: webhookChannelRow(accountId, url),
      update: sealed,
    }),
  );
  return true;
}

/** A new webhook channel's row (bulk seeding writes these directly). */
export function webhookChannelRow(accountId: number, url: string) {
  return { accountId, name: 'Webhook', kind: webhookChannelKind, targetDigest: webhookDigest, events: webhookEvents, targetEnc: encryptSecret(url, secretKey()), summary: describeWebhookUrl(url) };
}
