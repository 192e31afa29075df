import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/http/rate-limit.ts';
import { HttpError } from '../../src/http/responses.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '3' });

describe('rate limit per account', () => {
  it('answers 429 with Retry-After and a JSON error past the limit, for REST and GraphQL alike', async () => {
    const account = await makeAccount();
    for (let request = 0; request < 3; request += 1) {
      expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
    }
    const limited = await call(app, 'GET', '/api/machine/releases', { token: account.token });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Object.keys(limited.json)).toEqual(['error']);
    expect((await graphql(app, account.token, '{ viewer { name } }')).status).toBe(429);
    // Another account has its own allowance.
    const other = await makeAccount();
    expect((await call(app, 'GET', '/api/machine/summary', { token: other.token })).status).toBe(200);
  });

  it('refills over time and can be turned off', () => {
    const limiter = createRateLimiter(60);
    const start = 1_000_000;
    for (let request = 0; request < 60; request += 1) limiter.take(1, start);
    expect(() => limiter.take(1, start)).toThrow(HttpError);
    limiter.take(1, start + 1_000); // one request a second comes back
    expect(() => limiter.take(1, start + 1_000)).toThrow(/try again in 1 s/);
    const off = createRateLimiter(0);
    for (let request = 0; request < 10_000; request += 1) off.take(1, start);
  });
});
