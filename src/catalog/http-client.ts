/**
 * The one HTTP client the network catalogs (TMDB, TheTVDB, IGDB) share: a per-provider rate limit
 * (at most N requests in any one-second window, at most M open at once) whose queue sends a
 * person's requests before background ones, each request charged to its caller's budget
 * (catalog-caller.ts, catalog-budget.ts), retries of 429, 5xx,
 * network errors and timeouts with exponential backoff and jitter (honouring Retry-After), a
 * per-request timeout and JSON parsing. Errors name the provider, method and URL path, never the
 * query string (TMDB's api_key, Twitch's client_secret travel there) nor any configured secret.
 */
import type { CatalogOutcome } from '../metrics/metrics.ts';
import { CatalogBudgetSpent } from './catalog-budget.ts';
import { currentCatalogCaller, type CatalogPriority } from './catalog-caller.ts';
import { describeNetworkError, parseRetryAfter } from '../http/outbound-errors.ts';

/** Time as the client sees it; tests pass a fake one so no test waits for real seconds. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface CatalogHttpOptions {
  /** Provider name used in error messages, such as `tmdb`. */
  provider: string;
  /** Most requests sent in any one-second window. */
  requestsPerSecond: number;
  /** Most requests open at once; unlimited when undefined. */
  maxOpenRequests?: number;
  /** Tries per request, the first included (default 4). */
  maxAttempts?: number;
  /** Per-attempt timeout, body included (default 10 000 ms). */
  timeoutMs?: number;
  /** First backoff delay; doubled each retry, with jitter (default 500 ms). */
  retryBaseMs?: number;
  /** Longest wait before a retry, Retry-After included (default 60 000 ms). */
  maxRetryWaitMs?: number;
  /** Strings that must never appear in an error message (API keys, secrets, tokens). */
  secrets?: string[];
  clock?: Clock;
  /** 0 ≤ value < 1, for jitter (default Math.random). */
  random?: () => number;
  /** The fetch to send with (default the global one); tests wrap it to stamp requests. */
  fetch?: typeof fetch;
  /** Told of every attempt's outcome and time (metrics: docs/operations.md "Metrics"). */
  observe?: (outcome: CatalogOutcome, seconds: number) => void;
}

export interface CatalogRequest {
  method?: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
}

/** A catalog request failed; `status` is the last HTTP status, undefined for network errors. */
export class CatalogHttpError extends Error {
  override name = 'CatalogHttpError';
  constructor(
    message: string,
    readonly provider: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** Sends catalog requests; `json` resolves to the parsed body of a 2xx answer. */
export interface CatalogHttp {
  json(request: CatalogRequest): Promise<unknown>;
}

/**
 * Spaces requests so that no one-second window holds more than `perSecond` of them and at most
 * `maxOpen` are open at once, and decides which waiting request goes next: every waiting
 * `interactive` one before any `background` one, each kind in the order it asked (catalog-caller.ts).
 * A request is given its place when it may be sent, not when it asks, so a person's search that
 * arrives behind a thousand queued background lookups takes the next free slot. Background
 * requests are also spread evenly (one every 1/`perSecond` s, the same rate): let go in bursts,
 * they would fill each window at its start, and a person's request would wait for the next window,
 * up to a second; spread, it waits one spacing at most.
 */
export function createRateLimiter(perSecond: number, maxOpen: number | undefined, clock: Clock) {
  const sent: number[] = []; // when the last `perSecond` requests were let go, oldest first
  const spacing = 1000 / perSecond;
  let lastBackground = Number.NEGATIVE_INFINITY;
  let pausedUntil = 0;
  let open = 0;
  const waiting: Record<CatalogPriority, (() => void)[]> = { interactive: [], background: [] };
  /** When the pending wake-up (if any) lets the next request go. */
  let wakeAt: number | undefined;

  /** The earliest time the next request may be sent. */
  const nextSlot = () => Math.max(clock.now(), pausedUntil, sent.length >= perSecond ? sent[sent.length - perSecond]! + 1000 : 0);

  /** Lets waiting requests go while the rate and the open places allow, then waits for the next slot. */
  const letGo = () => {
    while (waiting.interactive.length > 0 || waiting.background.length > 0) {
      if (maxOpen !== undefined && open >= maxOpen) return; // release() lets the next one go
      const interactive = waiting.interactive.length > 0;
      const slot = interactive ? nextSlot() : Math.max(nextSlot(), lastBackground + spacing);
      const now = clock.now();
      if (slot > now) {
        if (wakeAt === undefined || slot < wakeAt) {
          wakeAt = slot;
          void clock.sleep(slot - now).then(() => {
            if (wakeAt === slot) wakeAt = undefined;
            letGo();
          });
        }
        return;
      }
      const next = interactive ? waiting.interactive.shift()! : waiting.background.shift()!;
      if (!interactive) lastBackground = now;
      open += 1;
      sent.push(now);
      if (sent.length > perSecond) sent.shift();
      next();
    }
  };

  return {
    /** Waits for an open-request place and a rate slot, in `priority`'s turn; call `release` when the request ends. */
    acquire(priority: CatalogPriority = 'background'): Promise<void> {
      return new Promise<void>((resolve) => {
        waiting[priority].push(resolve);
        letGo();
      });
    },
    release(): void {
      open -= 1;
      letGo();
    },
    /** Holds every later request until `time` (after a 429 with Retry-After). */
    pauseUntil(time: number): void {
      pausedUntil = Math.max(pausedUntil, time);
    },
  };
}

/** How an answered request is counted. */
function outcomeOf(status: number): CatalogOutcome {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return status >= 200 && status < 300 ? 'ok' : 'client_error';
}

const retryableStatus = (status: number) => status === 429 || status === 408 || (status >= 500 && status !== 501);

/** Creates the client for one provider (one rate limit shared by all of its requests). */
export function createCatalogHttp(options: CatalogHttpOptions): CatalogHttp {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const send = options.fetch ?? fetch;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= 4);
  const limiter = createRateLimiter(options.requestsPerSecond, options.maxOpenRequests, clock);

  const scrub = (text: string) => secrets.reduce((result, secret) => result.split(secret).join('***'), text);
  const fail = (request: CatalogRequest, problem: string, status?: number) =>
    new CatalogHttpError(scrub(`${options.provider} ${request.method ?? 'GET'} ${request.url.pathname}: ${problem}`), options.provider, status);
  const backoff = (attempt: number) => Math.min(maxRetryWaitMs, retryBaseMs * 2 ** (attempt - 1) * (0.5 + random() / 2));

  /** One attempt: the response's status, Retry-After and body text, or a thrown network error. */
  async function attempt(request: CatalogRequest) {
    // Charged before it waits its turn, so that a burst cannot queue past its budget.
    const caller = currentCatalogCaller();
    if (caller.budget && !caller.budget.take()) throw new CatalogBudgetSpent(caller.budget.name);
    await limiter.acquire(caller.priority);
    const started = performance.now();
    let outcome: CatalogOutcome = 'network_error';
    try {
      const response = await send(request.url, {
        method: request.method ?? 'GET',
        headers: { accept: 'application/json', ...request.headers },
        body: request.body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'follow',
      });
      const text = await response.text();
      outcome = outcomeOf(response.status);
      return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') outcome = 'timeout';
      throw error;
    } finally {
      limiter.release();
      options.observe?.(outcome, (performance.now() - started) / 1000);
    }
  }

  return {
    async json(request) {
      let problem = '';
      let status: number | undefined;
      for (let tries = 1; tries <= maxAttempts; tries += 1) {
        let wait: number;
        try {
          const answer = await attempt(request);
          status = answer.status;
          if (answer.status >= 200 && answer.status < 300) {
            try {
              return answer.text === '' ? null : JSON.parse(answer.text);
            } catch (error) {
              throw fail(request, `the response is not JSON (${(error as Error).message})`, answer.status);
            }
          }
          const snippet = answer.text.replace(/\s+/g, ' ').slice(0, 200);
          problem = `HTTP ${answer.status}${snippet === '' ? '' : ` ${snippet}`}`;
          if (!retryableStatus(answer.status)) throw fail(request, problem, answer.status);
          const asked = parseRetryAfter(answer.retryAfter, clock.now());
          wait = asked === null ? backoff(tries) : Math.min(asked, maxRetryWaitMs);
          if (answer.status === 429) limiter.pauseUntil(clock.now() + wait);
        } catch (error) {
          if (error instanceof CatalogHttpError || error instanceof CatalogBudgetSpent) throw error;
          const name = (error as Error).name;
          status = undefined;
          problem = name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `network error: ${describeNetworkError(error)}`;
          wait = backoff(tries);
        }
        if (tries < maxAttempts) await clock.sleep(wait);
      }
      throw fail(request, `${problem} (gave up after ${maxAttempts} attempts)`, status);
    },
  };
}
