import { describe, expect, it } from 'vitest';
import { db, postgresCountersPool } from '../../src/db/client.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { createRateLimiter, type RateLimitOptions } from '../../src/http/rate-limit.ts';
import { createLogger } from '../../src/log.ts';
import { testDatabaseKind, useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '3' });
const onPostgres = testDatabaseKind() === 'postgres';

/** A limiter on the test's database, as the app builds one (shared on PostgreSQL, in memory on SQLite). */
const limiter = (options: RateLimitOptions) => createRateLimiter(options, { pool: postgresCountersPool(), logger: createLogger({ level: 'silent', format: 'json' }) });
let serial = 0;
/** A limit name no other test uses (the PostgreSQL table outlives each limiter). */
const fresh = (label: string) => `${label}-${process.pid}-${++serial}`;

/** How each of `count` takes of `key` ends: 'ok' or the RateLimitedError's Retry-After. */
async function takes(take: (key: string) => Promise<void>, key: string, count: number): Promise<(string | number)[]> {
  const results: (string | number)[] = [];
  for (let index = 0; index < count; index += 1) {
    results.push(
      await take(key).then(
        () => 'ok',
        (error: unknown) => (error instanceof RateLimitedError ? error.retryAfterSeconds : Promise.reject(error)),
      ),
    );
  }
  return results;
}

describe('rate limit per account', () => {
  it('answers 429 with Retry-After and a JSON error past the limit, for REST and GraphQL alike', async () => {
    const account = await makeAccount();
    for (let request = 0; request < 3; request += 1) {
      expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
    }
    const limited = await call(app, 'GET', '/api/machine/releases', { token: account.token });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.json).toEqual({ error: `too many requests; try again in ${retryAfter} s` });
    expect((await graphql(app, account.token, '{ viewer { name } }')).status).toBe(429);
    // Another account has its own allowance.
    const other = await makeAccount();
    expect((await call(app, 'GET', '/api/machine/summary', { token: other.token })).status).toBe(200);
    // On PostgreSQL the counts are in the database, where every server process sees them (the
    // refused GraphQL request was refused from memory: a key past its limit costs no more
    // statements until its window ends); on SQLite they stay in the process.
    const rows = await db().rateLimit.findMany({ where: { key: { in: [`requests:${account.id}`, `requests:${other.id}`] } }, orderBy: { points: 'desc' } });
    expect(rows.map((row) => row.points)).toEqual(onPostgres ? [4, 1] : []);
  });

  it.runIf(onPostgres)('counts on connections that commit without waiting for the WAL flush, and only those', async () => {
    const setting = async (query: () => Promise<{ synchronous_commit: string }[]>) => (await query())[0]!.synchronous_commit;
    expect(await setting(async () => (await postgresCountersPool()!.query('SHOW synchronous_commit')).rows)).toBe('off');
    expect(await setting(() => db().$queryRawUnsafe('SHOW synchronous_commit'))).toBe('on');
  });

  it('allows a burst of the limit per window, then refuses until the window ends', async () => {
    const take = limiter({ name: fresh('window'), points: 3, windowSeconds: 1 }).take;
    expect(await takes(take, 'k', 5)).toEqual(['ok', 'ok', 'ok', 1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await takes(take, 'k', 4)).toEqual(['ok', 'ok', 'ok', 1]);
  });

  it('keeps keys and limits apart, and is off at 0', async () => {
    const name = fresh('apart');
    const first = limiter({ name, points: 2, windowSeconds: 60 });
    expect(await takes(first.take, 'a', 3)).toEqual(['ok', 'ok', expect.any(Number)]);
    expect(await takes(first.take, 'b', 2)).toEqual(['ok', 'ok']);
    expect(await takes(limiter({ name: fresh('other'), points: 2, windowSeconds: 60 }).take, 'a', 2)).toEqual(['ok', 'ok']);
    // A second limiter of the same name is another server process: on PostgreSQL it shares the
    // first one's counts, in memory it has its own.
    expect(await takes(limiter({ name, points: 2, windowSeconds: 60 }).take, 'a', 1)).toEqual(onPostgres ? [expect.any(Number)] : ['ok']);
    const off = limiter({ name: fresh('off'), points: 0, windowSeconds: 60 });
    for (let request = 0; request < 5_000; request += 1) await off.take('a');
  });

  it('counts concurrent requests exactly: of 40 at once with a limit of 10, 10 pass', async () => {
    const name = fresh('burst');
    // Two limiters of one name, as two server processes (in memory: one, since they would not share).
    const limiters = onPostgres ? [limiter({ name, points: 10, windowSeconds: 60 }), limiter({ name, points: 10, windowSeconds: 60 })] : [limiter({ name, points: 10, windowSeconds: 60 })];
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, index) => limiters[index % limiters.length]!.take('k')));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(RateLimitedError);
  });
});
