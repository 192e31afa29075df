import { performance } from 'node:perf_hooks';
import { describeNetworkError, parseRetryAfter } from '../http/outbound-errors.ts';
import { Deadline, DeadlineExceeded, requestUnderPolicy } from './outbound-request.ts';
import type { LookupFunction, OutboundAnswer } from './outbound-request.ts';
import { maxResponseBytes, PolicyRefusal } from './send-helpers.ts';
import { webhookHeaders } from './sign.ts';
import type { TargetPolicy } from './target-policy.ts';

export type { LookupFunction } from './outbound-request.ts';

/** How one delivery attempt ended. */
export interface SendResult {
  /** success: 2xx. retry: worth trying again later. failed: final. gone: 410, turn the webhook off. */
  outcome: 'success' | 'retry' | 'failed' | 'gone';
  /** The receiver's HTTP status, or null when no answer arrived. */
  statusCode: number | null;
  /** Time from the start of the attempt to its end, in milliseconds. */
  durationMs: number;
  /** A short human-readable reason for the delivery log (never the secret), or null on success. */
  error: string | null;
  /** What the receiver's Retry-After asked for, in milliseconds, or null. */
  retryAfterMs: number | null;
  /**
   * The start of the receiver's answer body (up to maxResponseBytes, decoded as UTF-8), or null
   * when no answer arrived. Shown by a test notification; the delivery log does not keep it.
   */
  responseBody: string | null;
}

/** Properties of {@link sendWebhook}. */
export interface SendWebhookProps {
  /** The receiver's http:// or https:// URL. */
  url: string;
  /** The notification's id (the same on every attempt). */
  webhookId: string;
  /** The JSON body, sent byte for byte as signed. */
  body: string;
  /** The account's `whsec_` signing secret. */
  secret: string;
  /** Which addresses may be connected to. */
  policy: TargetPolicy;
  /** Limit on the whole attempt: resolving, connecting, waiting for the answer and reading it. */
  timeoutMs: number;
  /** Clock for the signature timestamp and HTTP-date Retry-After values. */
  now?: () => Date;
  /** Resolver; `dns.lookup` unless given. */
  lookup?: LookupFunction;
}

/**
 * Sends one signed delivery attempt and classifies the answer. Never throws: every problem is a
 * result. The address connected to is always one that `props.policy` allows: the host name is
 * resolved once, every address is checked, Node is handed only the allowed ones (no second
 * resolution for a rebinding DNS server to answer differently), and the socket's remote address
 * is checked again before anything is written. Redirects are never followed.
 */
export async function sendWebhook(props: SendWebhookProps): Promise<SendResult> {
  const started = performance.now();
  const finish = (result: Omit<SendResult, 'durationMs'>): SendResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  });
  const now = props.now ?? (() => new Date());

  let url: URL;
  try {
    url = new URL(props.url);
  } catch {
    return finish(failed('the webhook URL is not a valid URL'));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return finish(failed(`the webhook URL must start with http:// or https://, not ${url.protocol}//`));
  }

  let headers: Record<string, string>;
  try {
    headers = webhookHeaders({ secret: props.secret, webhookId: props.webhookId, body: props.body, now: now() });
  } catch (error) {
    return finish(failed(`cannot sign the webhook: ${(error as Error).message}`));
  }

  const deadline = new Deadline(props.timeoutMs);
  try {
    const answer = await requestUnderPolicy({
      url,
      method: 'POST',
      headers,
      body: Buffer.from(props.body, 'utf8'),
      policy: props.policy,
      deadline,
      maxResponseBytes,
      lookup: props.lookup,
    });
    return finish(classifyAnswer(answer, now()));
  } catch (error) {
    if (error instanceof PolicyRefusal) return finish(failed(error.message));
    if (error instanceof DeadlineExceeded) return finish(retry(`no answer within ${props.timeoutMs} ms (timed out)`));
    return finish(retry(describeNetworkError(error)));
  } finally {
    deadline.clear();
  }
}

function classifyAnswer(answer: OutboundAnswer, now: Date): Omit<SendResult, 'durationMs'> {
  return { ...classifyStatus(answer, now), responseBody: answer.body.toString('utf8') };
}

function classifyStatus(answer: OutboundAnswer, now: Date): Omit<SendResult, 'durationMs' | 'responseBody'> {
  const { status } = answer;
  const statusCode = status;
  const described = `the receiver answered HTTP ${status}${answer.statusMessage ? ` ${answer.statusMessage}` : ''}`.slice(0, 200);
  if (status >= 200 && status < 300) return { outcome: 'success', statusCode, error: null, retryAfterMs: null };
  if (status >= 300 && status < 400) {
    const to = answer.headers.location ? ` to ${answer.headers.location.slice(0, 200)}` : '';
    return { outcome: 'failed', statusCode, error: `redirect not followed (HTTP ${status}${to})`, retryAfterMs: null };
  }
  if (status === 410) return { outcome: 'gone', statusCode, error: `${described}; the webhook is turned off`, retryAfterMs: null };
  if (status === 429 || status >= 500) {
    return { outcome: 'retry', statusCode, error: described, retryAfterMs: parseRetryAfter(answer.headers['retry-after'], now.getTime()) };
  }
  return { outcome: 'failed', statusCode, error: described, retryAfterMs: null };
}

function failed(error: string): Omit<SendResult, 'durationMs'> {
  return { outcome: 'failed', statusCode: null, error, retryAfterMs: null, responseBody: null };
}

function retry(error: string): Omit<SendResult, 'durationMs'> {
  return { outcome: 'retry', statusCode: null, error, retryAfterMs: null, responseBody: null };
}

