import { InputError } from '../../errors.ts';
import { sendWebhook } from '../../webhooks/send-webhook.ts';
import { describeWebhookUrl } from '../../webhooks/webhook-summary.ts';
import type { ChannelKind, ChannelMessage, ChannelTarget, SendOutcome } from './channel.ts';

/**
 * The signed webhook of today (docs/webhooks.md) as one kind among the others: the account's URL
 * and `whsec_` secret, sent by src/webhooks/send-webhook.ts exactly as before (Standard Webhooks
 * signature, `webhook-id` = the delivery's idempotency key). Not an Apprise URL: it is set up with
 * its URL and the secret Airdate made for it.
 */
export interface SignedWebhookTarget extends ChannelTarget {
  kind: 'webhook';
  url: string;
  secret: string;
}

/** A signed webhook target from its URL and secret (checked: an http(s) URL, a `whsec_` secret). */
export function signedWebhookTarget(props: { url: string; secret: string }): SignedWebhookTarget {
  if (!URL.canParse(props.url) || !/^https?:$/.test(new URL(props.url).protocol)) throw new InputError('webhook: the URL must start with http:// or https://', 'url');
  if (!/^whsec_[A-Za-z0-9+/=]{16,}$/.test(props.secret)) throw new InputError('webhook: the signing secret must be a whsec_ secret', 'secret');
  return { kind: 'webhook', url: props.url, secret: props.secret };
}

/**
 * The body a webhook receives: the caller's (a release's stored JSON, byte for byte), or one
 * written from the text with the fields receivers of today know (type, title, subtitle, poster,
 * item_key) and the item's page.
 */
export function webhookBody(message: ChannelMessage): string {
  if (message.webhookBody !== null) return message.webhookBody;
  return JSON.stringify({ type: message.event, title: message.title, subtitle: message.body, poster: message.poster, item_key: message.topic, link: message.link });
}

export const signedWebhookKind: ChannelKind<SignedWebhookTarget> = {
  kind: 'webhook',
  label: 'Webhook',
  schemes: [],
  parse() {
    throw new InputError('webhook: the signed webhook is set up with its URL and the secret Airdate makes for it, not an Apprise URL', 'url');
  },
  describe: (target) => describeWebhookUrl(target.url),
  async send(target, message, context): Promise<SendOutcome> {
    const result = await sendWebhook({
      url: target.url,
      webhookId: context.idempotencyKey,
      body: webhookBody(message),
      secret: target.secret,
      policy: context.policy,
      timeoutMs: context.timeoutMs,
      now: context.now,
      lookup: context.lookup,
    });
    const common = { status: result.statusCode, durationMs: result.durationMs, answer: result.responseBody };
    switch (result.outcome) {
      case 'success':
        return { outcome: 'delivered', ...common };
      case 'retry':
        return { outcome: 'retry', ...common, reason: result.error ?? 'retry', retryAfterMs: result.retryAfterMs };
      // 410 turns the webhook off today; the channel's delivery path does the same with "gone".
      case 'gone':
        return { outcome: 'gone', ...common, status: result.statusCode ?? 410, reason: result.error ?? 'gone' };
      default:
        return { outcome: 'failed', ...common, reason: result.error ?? 'failed' };
    }
  },
};
