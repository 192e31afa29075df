import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * A rate limit by key (rate-limiter-flexible): at most `points` takes per key in a window of
 * `windowSeconds` that starts at the key's first take, so a burst of up to `points` is fine;
 * past it, RateLimitedError (429 with Retry-After: the seconds until the window ends).
 *
 * With a PostgreSQL pool the counts live in the database (the `RateLimit` table, one row per key,
 * updated by one atomic upsert), so several server processes on one database share one limit:
 * a key gets `points` per window in all of them together. Without one (SQLite, a single process)
 * they are counted in this process's memory.
 *
 * A limit never fails a request by itself: when the database cannot count (unreachable, a
 * failed statement) the take is counted in memory instead, per process, until it can again
 * (rate-limiter-flexible's insurance limiter, written out so the failure is logged with its cause).
 */
export interface RateLimiter {
  /** Counts one request for `key`; throws RateLimitedError when the key's window is used up. */
  take(key: string): Promise<void>;
  /**
   * Takes one point for `key` as `take` does (one atomic consume: concurrent reservations never
   * pass the limit together) and returns the function that gives it back: for limits that count
   * only failures (password checks), reserved before the attempt and given back when it succeeds
   * (rate-limiter-flexible's reward).
   */
  reserve(key: string): Promise<() => Promise<void>>;
}

export interface RateLimitOptions {
  /** Names the limit; keys of different limits never meet (stored as `<name>:<key>`). */
  name: string;
  /** Takes allowed per key and window; 0 turns the limit off. */
  points: number;
  windowSeconds: number;
}

export interface RateLimitStore {
  /** A PostgreSQL pool to count in (db/client.ts postgresCountersPool()); undefined: count in memory. */
  pool: pg.Pool | undefined;
  logger: Logger;
  /** Counts refusals (by the limit's name); none by default. */
  metrics?: Pick<Metrics, 'rateLimitRefused'>;
}

/** The table the shared counts live in (prisma/schema.prisma, model RateLimit). */
const table = 'RateLimit';
/** Store failures are logged at most this often (a database that is down fails every request). */
const failureLogIntervalMs = 60_000;

export function createRateLimiter(options: RateLimitOptions, store: RateLimitStore): RateLimiter {
  if (options.points === 0) return { take: async () => undefined, reserve: async () => async () => undefined };
  const settings = { keyPrefix: options.name, points: options.points, duration: options.windowSeconds };
  const local = new RateLimiterMemory(settings);
  const shared =
    store.pool === undefined
      ? undefined
      : new RateLimiterPostgres({
          ...settings,
          storeClient: store.pool,
          storeType: 'pool',
          tableName: table,
          // Created by a migration, like every table (test/db/schema-drift.test.ts).
          tableCreated: true,
          // A key past its limit is refused from memory for the rest of its window, so a client
          // hammering away costs no database work (every process reaches the same verdict).
          inMemoryBlockOnConsumed: options.points + 1,
        });
  let failureLoggedAt = -Infinity;
  /** The refusal of a take, counted: the key may try again in `msBeforeNext`. */
  const refused = (msBeforeNext: number): RateLimitedError => {
    store.metrics?.rateLimitRefused(options.name);
    return new RateLimitedError(Math.max(1, Math.ceil(msBeforeNext / 1000)));
  };

  /** One take from `limiter`; its refusal becomes RateLimitedError, a store failure is rethrown as it is. */
  const consume = async (limiter: RateLimiterAbstract, key: string): Promise<void> => {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw refused(rejection.msBeforeNext);
      throw rejection;
    }
  };

  /** Logs a store failure, at most once per failureLogIntervalMs. */
  const storeFailed = (error: unknown, what: string): void => {
    const now = Date.now();
    if (now - failureLoggedAt < failureLogIntervalMs) return;
    failureLoggedAt = now;
    store.logger.warn({ err: error }, `rate limit "${options.name}": the database could not ${what}`);
  };

  /** One take on the shared store, or in memory when there is none or it fails; the limiter that counted it. */
  const onStore = async (key: string): Promise<RateLimiterAbstract> => {
    if (shared === undefined) {
      await consume(local, key);
      return local;
    }
    try {
      await consume(shared, key);
      return shared;
    } catch (error) {
      if (error instanceof RateLimitedError) throw error;
      storeFailed(error, 'count this request, counting in this process until it can');
      await consume(local, key);
      return local;
    }
  };

  return {
    take: async (key) => void (await onStore(key)),
    async reserve(key) {
      const counted = await onStore(key);
      // Given back where it was taken. A failure leaves the point taken: the limit errs on the safe side.
      return () => counted.reward(key, 1).then(() => undefined, (error: unknown) => storeFailed(error, 'give back a reserved point'));
    },
  };
}
