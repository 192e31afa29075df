import { describe, expect, it } from 'vitest';
import { createSignInLimiter } from '../../src/auth/sign-in-limit.ts';
import { db, postgresCountersPool } from '../../src/db/client.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { signInFailures } from '../../src/limits.ts';
import { Browser, makePerson, signedInPerson } from '../support/browser.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp();

const signIn = 'mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name role hasPassword } }';

describe('signIn', () => {
  it('signs in with the right password: an HttpOnly SameSite=Lax cookie, and GraphQL then answers for the account', async () => {
    const person = await makePerson();
    const browser = new Browser(app);
    const answer = await browser.graphql(signIn, { n: person.name, p: person.password }, { 'user-agent': 'Test Browser/1' });
    expect(answer.status).toBe(200);
    expect(answer.json.data.signIn).toEqual({ name: person.name, role: 'USER', hasPassword: true });
    const [cookie] = answer.headers.getSetCookie();
    expect(cookie).toMatch(/^airdate_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    const viewer = await browser.graphql('{ viewer { name sessions { method userAgent address current } } authInfo { signedIn } }');
    expect(viewer.json.data).toEqual({
      viewer: { name: person.name, sessions: [{ method: 'password', userAgent: 'Test Browser/1', address: browser.address, current: true }] },
      authInfo: { signedIn: true },
    });
  });

  it('answers a wrong password and an unknown name with the same 401, both after the work of a hash', async () => {
    const person = await makePerson();
    const timed = async (name: string) => {
      const started = performance.now();
      const answer = await new Browser(app).graphql(signIn, { n: name, p: 'not the password' });
      return { answer, ms: performance.now() - started };
    };
    const wrong = await timed(person.name);
    const unknown = await timed('nobody-by-this-name');
    for (const { answer } of [wrong, unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.getSetCookie()).toEqual([]);
      expect(answer.json.data).toBeNull();
      expect(answer.json.errors.map((error: any) => [error.message, error.extensions.code])).toEqual([['wrong name or password', 'WRONG_CREDENTIALS']]);
    }
    // Loose on purpose (shared machine): both paths run a full scrypt verification.
    const started = performance.now();
    await makePerson();
    const hashMs = performance.now() - started;
    expect(wrong.ms).toBeGreaterThan(hashMs / 3);
    expect(unknown.ms).toBeGreaterThan(hashMs / 3);
  });

  it('refuses an account without a password (single sign-on only) like a wrong password', async () => {
    const account = await makeAccount();
    const answer = await new Browser(app).graphql(signIn, { n: account.name, p: 'anything at all' });
    expect(answer.json.errors[0].extensions.code).toBe('WRONG_CREDENTIALS');
  });

  it(`locks a name out after ${signInFailures.perName.points} failures: 429 with Retry-After, even with the right password; other names go on`, async () => {
    const person = await makePerson();
    const other = await makePerson();
    const browser = new Browser(app);
    for (let attempt = 0; attempt < signInFailures.perName.points; attempt++) {
      expect((await browser.graphql(signIn, { n: person.name, p: 'guess guess' })).status).toBe(401);
    }
    const locked = await browser.graphql(signIn, { n: person.name, p: person.password });
    expect(locked.status).toBe(429);
    expect(locked.json.errors[0].extensions.code).toBe('RATE_LIMITED');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(signInFailures.perName.windowSeconds);
    expect(locked.headers.getSetCookie()).toEqual([]);
    await new Browser(app).signIn(other.name, other.password);
  }, 60_000);

  it('refuses oversized input without a crash', async () => {
    const answer = await new Browser(app).graphql(signIn, { n: 'x'.repeat(5000), p: 'y'.repeat(5000) });
    expect(answer.status).toBe(401);
  });
});

describe('the sign-in limit per address', () => {
  it(`refuses an address after ${signInFailures.perAddress.points} failures, whatever the names`, async () => {
    const limiter = createSignInLimiter({ pool: postgresCountersPool(), logger: app.logger });
    const address = '203.0.113.77';
    for (let failure = 0; failure < signInFailures.perAddress.points; failure++) {
      await limiter.check({ name: `name-${failure}`, address });
      await limiter.fail({ name: `name-${failure}`, address });
    }
    await expect(limiter.check({ name: 'a-fresh-name', address })).rejects.toThrow(RateLimitedError);
    await expect(limiter.check({ name: 'a-fresh-name', address: '203.0.113.78' })).resolves.toBeUndefined();
  });
});

describe('signOut', () => {
  it('ends the session and clears the cookie; the old cookie no longer works', async () => {
    const { browser, id } = await signedInPerson(app);
    const oldCookie = browser.cookie;
    const answer = await browser.graphql('mutation { signOut }');
    expect(answer.json.data.signOut).toBe(true);
    expect(answer.headers.getSetCookie()).toEqual(['airdate_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0']);
    expect(await db().session.count({ where: { accountId: id } })).toBe(0);
    const replay = await app.fetch(new Request('http://airdate.test/graphql?query={viewer{name}}', { headers: { cookie: oldCookie! } }));
    expect(replay.status).toBe(401);
    expect((await new Browser(app).graphql('mutation { signOut }')).json.data.signOut).toBe(true);
  });
});

describe('the API token, beside sessions', () => {
  it('works exactly as before on GraphQL and REST, and wins over a cookie sent with it', async () => {
    const account = await makeAccount();
    const { browser } = await signedInPerson(app);
    expect((await graphql(app, account.token, '{ viewer { name } }')).json.data.viewer.name).toBe(account.name);
    expect((await call(app, 'GET', '/api/machine/summary', { token: account.token })).status).toBe(200);
    const both = await call(app, 'POST', '/graphql', { token: account.token, headers: { cookie: browser.cookie! }, body: { query: '{ viewer { name } }' } });
    expect(both.json.data.viewer.name).toBe(account.name);
    const badTokenGoodCookie = await call(app, 'POST', '/graphql', { token: 'adt_wrong', headers: { cookie: browser.cookie! }, body: { query: '{ viewer { name } }' } });
    expect(badTokenGoodCookie.status).toBe(401);
  });

  it('lets the session download the export (GET /api/export), but not other REST routes', async () => {
    const { browser, name } = await signedInPerson(app);
    const exported = await browser.fetch('GET', '/api/export');
    expect(exported.status).toBe(200);
    expect(exported.text).toContain(name);
    expect((await browser.fetch('GET', '/api/machine/summary')).status).toBe(401);
  });
});
