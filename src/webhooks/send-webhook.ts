import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describeNetworkError, parseRetryAfter } from '../http/outbound-errors.ts';
import { PolicyRefusal, readCapped } from './send-helpers.ts';
import { webhookHeaders } from './sign.ts';
import { checkAddress } from './target-policy.ts';
import type { TargetPolicy } from './target-policy.ts';

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

/**
 * A resolver with `dns.lookup`'s calling convention, called with `{ all: true }`; `dns.lookup`
 * itself is the default, tests inject their own.
 */
export type LookupFunction = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

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
    const target = await deadline.race(resolveTarget(url, props.policy, props.lookup ?? (dnsLookup as LookupFunction)));
    // Not raced: once the status has arrived, a body still trickling in at the deadline does not
    // turn the answer into a timeout (exchange settles with the status then).
    const answer = await exchange({ url, target, headers, body: props.body, policy: props.policy, deadline });
    return finish(classifyAnswer(answer, now()));
  } catch (error) {
    if (error instanceof PolicyRefusal) return finish(failed(error.message));
    if (error instanceof DeadlineExceeded) return finish(retry(`no answer within ${props.timeoutMs} ms (timed out)`));
    return finish(retry(describeNetworkError(error)));
  } finally {
    deadline.clear();
  }
}

/** Where to connect: a literal IP, or a host name with the allowed addresses it resolved to. */
interface Target {
  hostname: string;
  addresses: LookupAddress[];
}

async function resolveTarget(url: URL, policy: TargetPolicy, lookup: LookupFunction): Promise<Target> {
  // WHATWG URL has already turned 0x7f000001, 2130706433, 127.1 and 0177.0.0.1 into 127.0.0.1,
  // and writes IPv6 in brackets; a literal is checked as it is, without a resolver.
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const literal = checkLiteral(hostname);
  if (literal !== null) {
    const check = checkAddress(policy, hostname, hostname);
    if (!check.allowed) throw new PolicyRefusal(check.reason);
    return { hostname, addresses: [literal] };
  }
  const resolved = await new Promise<LookupAddress[]>((resolve, reject) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error) reject(error);
      // A resolver that ignores `all` answers one address as a string.
      else resolve(typeof addresses === 'string' ? [{ address: addresses, family: (addresses as string).includes(':') ? 6 : 4 }] : addresses);
    });
  });
  if (resolved.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
  // A name can hold refused addresses next to allowed ones (a LAN host's link-local IPv6 next to
  // its private IPv4, say); only the allowed ones are ever handed to the socket.
  const checks = resolved.map((entry) => ({ entry, check: checkAddress(policy, entry.address, hostname) }));
  const allowed = checks.filter(({ check }) => check.allowed).map(({ entry }) => entry);
  if (allowed.length === 0) {
    const refusal = checks.find(({ check }) => !check.allowed)!.check as { reason: string };
    throw new PolicyRefusal(refusal.reason);
  }
  return { hostname, addresses: allowed };
}

function checkLiteral(hostname: string): LookupAddress | null {
  if (/^[\d.]+$/.test(hostname)) return { address: hostname, family: 4 };
  if (hostname.includes(':')) return { address: hostname, family: 6 };
  return null;
}

interface ExchangeProps {
  url: URL;
  target: Target;
  headers: Record<string, string>;
  body: string;
  policy: TargetPolicy;
  deadline: Deadline;
}

interface Answer {
  status: number;
  statusMessage: string;
  location: string | undefined;
  retryAfter: string | undefined;
  body: string;
}

/** One request over a fresh connection (no agent pool: every socket is checked afresh). */
function exchange(props: ExchangeProps): Promise<Answer> {
  const { url, target } = props;
  const bodyBytes = Buffer.from(props.body, 'utf8');
  const options: RequestOptions = {
    method: 'POST',
    host: target.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...props.headers, 'content-length': String(bodyBytes.length) },
    auth: url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
    agent: false,
    // Hands out the addresses checked above; Node never asks DNS again.
    lookup: ((_hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
      const family = options.family === 4 || options.family === 6 ? options.family : undefined;
      const usable = target.addresses.filter((entry) => family === undefined || entry.family === family);
      if (usable.length === 0) callback(Object.assign(new Error('no allowed address of that family'), { code: 'ENOTFOUND' }));
      else if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    }) as RequestOptions['lookup'],
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<Answer>((resolve, reject) => {
    const request: ClientRequest = send(options);
    let answer: Answer | undefined;
    props.deadline.onExpire(() => {
      if (answer) resolve(answer);
      request.destroy(new DeadlineExceeded());
    });
    request.on('error', reject);
    request.on('socket', (socket: Socket) => {
      // Nothing is written before the connected address has been checked again.
      const whenConnected = () => {
        const remote = socket.remoteAddress;
        const check = remote === undefined ? { allowed: false as const, reason: 'the connection has no remote address' } : checkAddress(props.policy, remote, target.hostname);
        if (!check.allowed) request.destroy(new PolicyRefusal(check.reason));
        else request.end(bodyBytes);
      };
      if (socket.connecting) socket.once('connect', whenConnected);
      else whenConnected();
    });
    request.on('response', (response: IncomingMessage) => {
      answer = {
        status: response.statusCode ?? 0,
        statusMessage: response.statusMessage ?? '',
        location: response.headers.location,
        retryAfter: response.headers['retry-after'],
        body: '',
      };
      // A few KB are read so the answer completes (and a test notification can show them), then
      // the connection is closed, so a huge answer can neither hold memory nor the attempt.
      void readCapped(response).then((bytes) => {
        answer!.body = bytes.toString('utf8');
        request.destroy();
        resolve(answer!);
      });
    });
  });
}

function classifyAnswer(answer: Answer, now: Date): Omit<SendResult, 'durationMs'> {
  return { ...classifyStatus(answer, now), responseBody: answer.body };
}

function classifyStatus(answer: Answer, now: Date): Omit<SendResult, 'durationMs' | 'responseBody'> {
  const { status } = answer;
  const statusCode = status;
  const described = `the receiver answered HTTP ${status}${answer.statusMessage ? ` ${answer.statusMessage}` : ''}`.slice(0, 200);
  if (status >= 200 && status < 300) return { outcome: 'success', statusCode, error: null, retryAfterMs: null };
  if (status >= 300 && status < 400) {
    const to = answer.location ? ` to ${answer.location.slice(0, 200)}` : '';
    return { outcome: 'failed', statusCode, error: `redirect not followed (HTTP ${status}${to})`, retryAfterMs: null };
  }
  if (status === 410) return { outcome: 'gone', statusCode, error: `${described}; the webhook is turned off`, retryAfterMs: null };
  if (status === 429 || status >= 500) {
    return { outcome: 'retry', statusCode, error: described, retryAfterMs: parseRetryAfter(answer.retryAfter, now.getTime()) };
  }
  return { outcome: 'failed', statusCode, error: described, retryAfterMs: null };
}

function failed(error: string): Omit<SendResult, 'durationMs'> {
  return { outcome: 'failed', statusCode: null, error, retryAfterMs: null, responseBody: null };
}

function retry(error: string): Omit<SendResult, 'durationMs'> {
  return { outcome: 'retry', statusCode: null, error, retryAfterMs: null, responseBody: null };
}

class DeadlineExceeded extends Error {}

/** One timer for the whole attempt; whatever is racing it loses when it fires. */
class Deadline {
  private readonly timer: NodeJS.Timeout;
  private readonly expired: Promise<never>;
  private readonly listeners: (() => void)[] = [];

  constructor(timeoutMs: number) {
    let expire!: (error: Error) => void;
    this.expired = new Promise<never>((_, reject) => (expire = reject));
    this.expired.catch(() => {});
    this.timer = setTimeout(() => {
      for (const listener of this.listeners) listener();
      expire(new DeadlineExceeded());
    }, Math.max(timeoutMs, 1));
  }

  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.expired]);
  }

  onExpire(listener: () => void): void {
    this.listeners.push(listener);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
