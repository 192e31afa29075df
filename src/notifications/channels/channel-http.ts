import { performance } from 'node:perf_hooks';
import { describeNetworkError, parseRetryAfter } from '../../http/outbound-errors.ts';
import { Deadline, DeadlineExceeded, requestUnderPolicy } from '../../webhooks/outbound-request.ts';
import type { OutboundAnswer } from '../../webhooks/outbound-request.ts';
import { PolicyRefusal } from '../../webhooks/send-helpers.ts';
import type { SendContext, SendOutcome } from './channel.ts';

/** Most of a peer's answer read (the rest is never read): enough for any error the services document. */
export const maxChannelAnswerBytes = 16 * 1024;
/** Most of an answer kept for a test send's report. */
const answerExcerptChars = 4096;
/** Longest reason kept (the delivery log shows it). */
const maxReasonChars = 300;

/** The User-Agent of every channel request. */
export const channelUserAgent = 'Airdate-Notifications/1';

/** One HTTP request of a channel. */
export interface ChannelRequest {
  url: URL;
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json), a form (x-www-form-urlencoded), or bytes with their content type. */
  json?: unknown;
  form?: Record<string, string | string[]>;
  body?: { bytes: Buffer; contentType: string };
}

/** What a kind reads in an answer beyond its status: another outcome, a wait, the peer's words. */
export interface AnswerReading {
  outcome?: SendOutcome['outcome'];
  retryAfterMs?: number | null;
  detail?: string;
}

/** How a kind reads an answer that the status alone does not tell (Telegram's `ok: false`, Discord's `retry_after`). */
export type ReadAnswer = (answer: OutboundAnswer, parsed: unknown, context: SendContext) => AnswerReading | null;

export interface ChannelRequestOptions {
  /** Names the peer in reasons ("ntfy", "Discord"). */
  label: string;
  /** Values never to appear in a reason or answer excerpt (tokens, passwords). */
  secrets: readonly (string | null | undefined)[];
  readAnswer?: ReadAnswer;
  /** 404 and 410 mean the subscription is gone (web push). */
  goneOn404?: boolean;
}

/**
 * Sends one request of a channel under the outbound policy with the context's deadline, and
 * classifies the answer: 2xx delivered; 3xx failed (redirects are never followed); 429 and 5xx
 * retried, with the peer's Retry-After; other 4xx failed for good; no answer or a broken
 * connection retried; a refused address failed. Never throws.
 */
export async function sendChannelRequest(request: ChannelRequest, context: SendContext, options: ChannelRequestOptions): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const secrets = options.secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 3);
  const clean = (text: string) => scrub(text, secrets);
  const { bytes, contentType } = encodeBody(request);
  const headers: Record<string, string> = { 'user-agent': channelUserAgent, ...(contentType ? { 'content-type': contentType } : {}), ...request.headers };
  const deadline = new Deadline(context.timeoutMs);
  let answer: OutboundAnswer;
  try {
    answer = await requestUnderPolicy({
      url: request.url,
      method: request.method ?? 'POST',
      headers,
      body: bytes,
      policy: context.policy,
      deadline,
      maxResponseBytes: maxChannelAnswerBytes,
      lookup: context.lookup,
      trustedCertificates: context.trustedCertificates,
    });
  } catch (error) {
    if (error instanceof PolicyRefusal) return { outcome: 'failed', status: null, durationMs: elapsed(), answer: null, reason: clean(error.message) };
    const reason = error instanceof DeadlineExceeded ? `${options.label}: no answer within ${context.timeoutMs} ms (timed out)` : `${options.label}: ${describeNetworkError(error)}`;
    return { outcome: 'retry', status: null, durationMs: elapsed(), answer: null, reason: clean(reason), retryAfterMs: null };
  } finally {
    deadline.clear();
  }
  return classify(answer, context, options, elapsed(), clean);
}

function encodeBody(request: ChannelRequest): { bytes: Buffer | undefined; contentType: string | undefined } {
  if (request.json !== undefined) return { bytes: Buffer.from(JSON.stringify(request.json), 'utf8'), contentType: 'application/json' };
  if (request.form !== undefined) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(request.form)) {
      for (const entry of Array.isArray(value) ? value : [value]) form.append(key, entry);
    }
    return { bytes: Buffer.from(form.toString(), 'utf8'), contentType: 'application/x-www-form-urlencoded' };
  }
  if (request.body !== undefined) return { bytes: request.body.bytes, contentType: request.body.contentType };
  return { bytes: undefined, contentType: undefined };
}

function classify(answer: OutboundAnswer, context: SendContext, options: ChannelRequestOptions, durationMs: number, clean: (text: string) => string): SendOutcome {
  const { status } = answer;
  const text = answer.body.toString('utf8');
  const excerpt = clean(text.slice(0, answerExcerptChars));
  const parsed = parseJson(answer);
  const special = options.readAnswer?.(answer, parsed, context) ?? null;
  const detail = special?.detail ?? peerMessage(parsed);
  const said = `${options.label} answered HTTP ${status}${answer.statusMessage ? ` ${answer.statusMessage}` : ''}${detail ? `: ${detail}` : ''}`;
  const reason = clean(said).slice(0, maxReasonChars);
  const headerRetry = parseRetryAfter(firstHeader(answer.headers['retry-after']), context.now().getTime());
  const outcome = special?.outcome ?? defaultOutcome(status, options);
  switch (outcome) {
    case 'delivered':
      return { outcome, status, durationMs, answer: excerpt };
    case 'retry':
      return { outcome, status, durationMs, answer: excerpt, reason, retryAfterMs: special?.retryAfterMs ?? headerRetry };
    case 'gone':
      return { outcome, status, durationMs, answer: excerpt, reason };
    default: {
      if (status >= 300 && status < 400) {
        const location = firstHeader(answer.headers.location);
        const to = location ? ` to ${clean(location).slice(0, 200)}` : '';
        return { outcome: 'failed', status, durationMs, answer: excerpt, reason: `${options.label}: redirect not followed (HTTP ${status}${to})` };
      }
      return { outcome: 'failed', status, durationMs, answer: excerpt, reason };
    }
  }
}

function defaultOutcome(status: number, options: ChannelRequestOptions): SendOutcome['outcome'] {
  if (status >= 200 && status < 300) return 'delivered';
  if (options.goneOn404 && (status === 404 || status === 410)) return 'gone';
  if (status === 429 || status >= 500) return 'retry';
  return 'failed';
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(answer: OutboundAnswer): unknown {
  const type = firstHeader(answer.headers['content-type']) ?? '';
  const text = answer.body.toString('utf8').trim();
  if (!/json/i.test(type) && !/^[{[]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error text a JSON answer carries (`message`, `error`, `description`, `errors[]`), made safe to show. */
function peerMessage(parsed: unknown): string | null {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  for (const key of ['description', 'message', 'error', 'errorDescription', 'detail']) {
    if (typeof record[key] === 'string' && record[key] !== '') return plain(record[key]);
  }
  if (Array.isArray(record.errors) && record.errors.every((entry) => typeof entry === 'string')) return plain(record.errors.join('; '));
  return null;
}

/** Text from a peer, flattened to one line without markup, bounded. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/<[^>]*>/g, ' ').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** `text` with every secret (and its percent-encoded form) replaced by `…`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) result = result.split(form).join('…');
  }
  return result;
}

/** A read-answer helper: seconds (possibly fractional) as milliseconds, or null. */
export function secondsToMs(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.ceil(value * 1000) : null;
}

/**
 * Fetches an image (a poster, for a peer that takes the picture itself rather than its URL) under
 * the outbound policy, at most `maxBytes`: null when it cannot be had (refused, failed, not an
 * image, larger), since a message without its picture still goes.
 */
export async function fetchImage(url: string, context: SendContext, maxBytes: number): Promise<{ bytes: Buffer; type: string } | null> {
  if (!URL.canParse(url)) return null;
  const deadline = new Deadline(context.timeoutMs);
  try {
    const answer = await requestUnderPolicy({
      url: new URL(url),
      method: 'GET',
      headers: { 'user-agent': channelUserAgent, accept: 'image/jpeg, image/png, image/gif' },
      policy: context.policy,
      deadline,
      maxResponseBytes: maxBytes + 1,
      lookup: context.lookup,
      trustedCertificates: context.trustedCertificates,
    });
    const type = firstHeader(answer.headers['content-type'])?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (answer.status !== 200 || !/^image\/(jpeg|png|gif)$/.test(type) || answer.body.length > maxBytes) return null;
    return { bytes: answer.body, type };
  } catch {
    return null;
  } finally {
    deadline.clear();
  }
}
