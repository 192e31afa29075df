import { createHmac } from 'node:crypto';
import { randomBase62, webhookSecretKey } from '../keys/token-format.ts';

/** Every webhook id starts with this, as in the Standard Webhooks examples. */
export const webhookIdPrefix = 'msg_';
/** Random base62 characters after the prefix (27 × log2(62) ≈ 160 bits: never repeats in practice). */
const webhookIdRandomLength = 27;

/** The User-Agent of every delivery, so receivers and their logs can tell who is calling. */
export const webhookUserAgent = 'Airdate-Webhooks/1';

/**
 * A new webhook message id: `msg_` + 27 random base62 characters. One per notification; it stays
 * the same across retries so receivers can drop duplicates.
 */
export function newWebhookId(): string {
  return `${webhookIdPrefix}${randomBase62(webhookIdRandomLength)}`;
}

/**
 * The Standard Webhooks signature of one attempt: `v1,` + base64 HMAC-SHA256, keyed with the
 * secret's decoded bytes, over `${webhookId}.${timestampSeconds}.${body}` (UTF-8).
 * Throws an Error (never holding the secret) when the secret or timestamp is unusable.
 */
export function signWebhook(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`a webhook timestamp is a whole number of seconds, not ${timestampSeconds}`);
  }
  if (webhookId === '') throw new Error('a webhook id cannot be empty');
  const key = webhookSecretKey(secret);
  if (key.length === 0) throw new Error('the webhook secret holds no key bytes');
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** Properties of {@link webhookHeaders}. */
export interface WebhookHeadersProps {
  /** The account's `whsec_` secret. */
  secret: string;
  /** The notification's id, the same on every attempt. */
  webhookId: string;
  /** The exact body text that will be sent. */
  body: string;
  /** The time of this attempt; its whole seconds become `webhook-timestamp`. */
  now: Date;
}

/** The headers of one delivery attempt: the three Standard Webhooks headers, content type and user agent. */
export function webhookHeaders(props: WebhookHeadersProps): Record<string, string> {
  const timestampSeconds = Math.floor(props.now.getTime() / 1000);
  return {
    'webhook-id': props.webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(props.secret, props.webhookId, timestampSeconds, props.body),
    'content-type': 'application/json',
    'user-agent': webhookUserAgent,
  };
}
