import { db } from '../db/client.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { newWebhookId } from '../webhooks/sign.ts';
import { sendWebhook, type SendResult } from '../webhooks/send-webhook.ts';
import type { TargetPolicy } from '../webhooks/target-policy.ts';
import { showWebhookSecret } from '../accounts/tokens.ts';
import { findWebhook } from '../accounts/webhook-setting.ts';

/** Where and how long webhooks may be sent: the server's AIRDATE_WEBHOOK_* settings (the test notification's and the delivery job's). */
declare module '../graphql/context.ts' {
  interface GraphQLServices {
    webhooks: WebhookTarget;
  }
}
declare module '../jobs/job-definition.ts' {
  interface JobServices {
    webhooks: WebhookTarget;
  }
}

export interface WebhookTarget {
  policy: TargetPolicy;
  timeoutMs: number;
}

/** What a test notification's receiver answered, for the developer settings page. */
export interface TestNotificationReport {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** Its HTTP status, or null when no answer arrived. */
  status: number | null;
  /** The start of its answer body (up to 4 KB), or null when no answer arrived. */
  responseBody: string | null;
  /** Why it did not succeed (the same words the delivery log uses), or null. */
  error: string | null;
  durationMs: number;
  /** The `webhook-id` sent, so the person can find the request in the receiver's log. */
  webhookId: string;
}

/**
 * Sends one signed `{"type":"test",…}` notification to the account's webhook URL now and reports
 * what the receiver answered (docs/webhooks.md "Test notifications"). It is a single attempt with
 * the server's address policy and timeout, never retried, not a release: nothing is stored and the
 * delivery log does not list it. It is sent even while deliveries are turned off after a 410, so a
 * person can check a receiver before setting the URL again. InputError when no URL is set.
 */
export async function sendTestNotification(props: { accountId: number; target: WebhookTarget; now?: () => Date }): Promise<TestNotificationReport> {
  const account = await db().account.findUnique({ where: { id: props.accountId }, select: { webhookSecretEnc: true } });
  if (!account) throw new NotFoundError(`unknown account ${props.accountId}`);
  const webhook = await findWebhook(props.accountId);
  if (!webhook) throw new InputError('set a webhook URL first', 'webhookUrl');
  const secret = await showWebhookSecret({ accountId: props.accountId, stored: account.webhookSecretEnc });
  const sentAt = (props.now ?? (() => new Date()))();
  const webhookId = newWebhookId();
  const body = JSON.stringify({
    type: 'test',
    title: 'Airdate test notification',
    subtitle: 'Sent from the developer settings',
    poster: null,
    item_key: 'test',
    sent_at: sentAt.toISOString(),
  });
  const result: SendResult = await sendWebhook({
    url: webhook.url,
    webhookId,
    body,
    secret,
    policy: props.target.policy,
    timeoutMs: props.target.timeoutMs,
    now: props.now,
  });
  return {
    ok: result.outcome === 'success',
    status: result.statusCode,
    responseBody: result.responseBody,
    error: result.error,
    durationMs: Math.round(result.durationMs),
    webhookId,
  };
}
