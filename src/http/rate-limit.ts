import { HttpError } from './responses.ts';

/**
 * A token bucket per account: `perMinute` requests a minute, in bursts of up to that many. It is
 * kept in this server instance's memory, so with several instances behind a load balancer each
 * one allows its own share; that is enough to stop a runaway widget or script from hogging a
 * server, which is what it is for. Over the limit: 429 with Retry-After (decisions.md, "Write
 * semantics").
 */
export interface RateLimiter {
  /** Takes one request from the account's bucket, or throws HttpError 429. */
  take(accountId: number, now?: number): void;
}

/** Buckets kept at most; the oldest are dropped beyond it (a dropped bucket starts full again). */
const bucketCapacity = 10_000;

export function createRateLimiter(perMinute: number): RateLimiter {
  const buckets = new Map<number, { tokens: number; at: number }>();
  const refillPerMs = perMinute / 60_000;
  return {
    take(accountId, now = Date.now()) {
      if (perMinute === 0) return;
      const bucket = buckets.get(accountId) ?? { tokens: perMinute, at: now };
      buckets.delete(accountId);
      bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * refillPerMs);
      bucket.at = now;
      buckets.set(accountId, bucket);
      if (buckets.size > bucketCapacity) buckets.delete(buckets.keys().next().value!);
      if (bucket.tokens < 1) {
        const retryAfter = Math.ceil((1 - bucket.tokens) / refillPerMs / 1000);
        throw new HttpError(429, `too many requests; try again in ${retryAfter} s`, { 'retry-after': String(retryAfter) });
      }
      bucket.tokens -= 1;
    },
  };
}
