import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { deviceCookie } from '../../src/accounts/device-cookie.ts';
import { passwordHashingStats } from '../../src/accounts/password-hash.ts';
import { createSignInLimiter } from '../../src/accounts/sign-in-limit.ts';
import { db, postgresCountersPool } from '../../src/db/client.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { passwordHashing, signInFailures, trustedDeviceMs } from '../../src/limits.ts';
import { Browser, makePerson, signedInPerson, testOrigin } from '../support/browser.ts';
import { testDatabaseKind, useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app, config } = await useTestApp();

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

describe('the sign-in limit under concurrent attempts', () => {
  it(`checks no more than ${signInFailures.perName.points} passwords of a burst at once (on PostgreSQL through two server instances), then refuses the right one`, async () => {
    const person = await makePerson();
    // On PostgreSQL a second app on the same database counts in the same table, as another process would.
    const second = testDatabaseKind() === 'postgres' ? await createApp(config) : undefined;
    try {
      const apps = second ? [app, second] : [app];
      const before = passwordHashingStats().started;
      // Each from its own address, as a botnet sends them: only the name's limit stands in the way.
      const burst = await Promise.all(
        Array.from({ length: 24 }, (_, index) => new Browser(apps[index % apps.length]!).graphql(signIn, { n: person.name, p: `wrong guess ${index}` })),
      );
      expect(passwordHashingStats().started - before).toBe(signInFailures.perName.points);
      const statuses = burst.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(signInFailures.perName.points);
      expect(statuses.filter((status) => status === 429)).toHaveLength(24 - signInFailures.perName.points);
      for (const target of apps) expect((await new Browser(target).graphql(signIn, { n: person.name, p: person.password })).status).toBe(429);
      expect(passwordHashingStats().started - before).toBe(signInFailures.perName.points);
    } finally {
      await second?.jobs.stop(2_000);
    }
  }, 120_000);

  it('answers another person promptly during a burst: each address gets a few checks queued, the rest 429 at once', async () => {
    const person = await makePerson();
    const attackers = [new Browser(app), new Browser(app)];
    const answered: string[] = [];
    const before = passwordHashingStats().started;
    const burst = attackers.flatMap((attacker, which) =>
      Array.from({ length: 2 * passwordHashing.perAddress }, (_, index) =>
        attacker.graphql(signIn, { n: `nobody-${which}-${index}-${person.name}`, p: 'guess guess' }).then((answer) => {
          answered.push(`attacker ${answer.status}`);
          return answer;
        }),
      ),
    );
    // Every attempt of the burst is checked, waiting or refused before the person's comes in.
    const refusedSoFar = () => answered.filter((entry) => entry === 'attacker 429').length;
    await expect.poll(() => passwordHashingStats().started - before + passwordHashingStats().waiting + refusedSoFar(), { timeout: 30_000 }).toBe(burst.length);
    const own = await new Browser(app).graphql(signIn, { n: person.name, p: person.password });
    answered.push('person');
    expect(own.status).toBe(200);
    const answers = await Promise.all(burst);
    const refused = answers.filter((answer) => answer.status === 429);
    // A burst of 8 per address over a bound of 4: some refused at once, whatever the machine's speed.
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe(String(passwordHashing.retryAfterSeconds));
      expect(answer.json.errors[0].extensions.code).toBe('RATE_LIMITED');
    }
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(burst.length - refused.length);
    // The person's check starts once the two running and at most one of the other address have:
    // three of the burst's checks are answered before it in the usual order, one or two more when a
    // stall of the machine reorders finishing; a first-come queue answers every queued one first.
    const checkedBefore = answered.slice(0, answered.indexOf('person')).filter((entry) => entry === 'attacker 401');
    const fairBound = passwordHashing.concurrent + 3;
    expect(checkedBefore.length).toBeLessThanOrEqual(fairBound);
    expect(answers.length - refused.length).toBeGreaterThan(fairBound);
  }, 120_000);
});

describe('the per-name lockout and the owner’s browsers (device cookie)', () => {
  it('a name a stranger has locked still signs in from a browser that signed in to it before, which has a failure count of its own', async () => {
    const person = await makePerson();
    const other = await makePerson();
    const own = await new Browser(app).signIn(person.name, person.password);
    expect([...own.jar.keys()]).toEqual(['airdate_session', 'airdate_device']);
    await own.graphql('mutation { signOut }');
    expect([...own.jar.keys()]).toEqual(['airdate_device']);
    const elsewhere = await new Browser(app).signIn(other.name, other.password);

    // The stranger's guesses come from many addresses at once; the owner's typos below too (its cookie copied).
    const failures = (cookie: string | undefined, count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, attempt) => {
          const browser = new Browser(app);
          browser.cookie = cookie;
          return (await browser.graphql(signIn, { n: person.name, p: `guess ${attempt}` })).status;
        }),
      );
    expect(await failures(undefined, signInFailures.perName.points)).toEqual(Array(signInFailures.perName.points).fill(401));
    const right = { n: person.name, p: person.password };
    expect((await new Browser(app).graphql(signIn, right)).status).toBe(429);
    // Trusted for its own account only; altered, or older than its life: not trusted at all.
    expect((await elsewhere.graphql(signIn, right)).status).toBe(429);
    const forged = new Browser(app);
    forged.cookie = own.cookie!.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    expect((await forged.graphql(signIn, right)).status).toBe(429);
    const expired = new Browser(app);
    expired.cookie = deviceCookie(new Request(testOrigin), person.id, Date.now() - trustedDeviceMs - 1).split(';')[0];
    expect((await expired.graphql(signIn, right)).status).toBe(429);

    expect((await own.graphql(signIn, right)).status).toBe(200);
    await own.graphql('mutation { signOut }');
    expect(await failures(own.cookie, signInFailures.perDevice.points)).toEqual(Array(signInFailures.perDevice.points).fill(401));
    const locked = await own.graphql(signIn, right);
    expect([locked.status, locked.json.errors[0].extensions.code]).toEqual([429, 'RATE_LIMITED']);
  }, 120_000);
});

describe('signUp when AIRDATE_OPEN_SIGNUP is off (the default)', () => {
  it('is refused with 403 FORBIDDEN and creates nothing', async () => {
    const answer = await new Browser(app).graphql('mutation { signUp(name: "uninvited", password: "long enough pw") { name } }');
    expect([answer.status, answer.json.errors[0].extensions.code]).toEqual([403, 'FORBIDDEN']);
    expect(await db().account.count({ where: { name: 'uninvited' } })).toBe(0);
  });
});

describe('the sign-in limit per address', () => {
  it(`refuses an address after ${signInFailures.perAddress.points} failures, whatever the names; an IPv6 address by its /64`, async () => {
    const limiter = createSignInLimiter({ pool: postgresCountersPool(), logger: app.logger });
    const fail = (name: string, address: string) => limiter.reserveSignIn({ name, address, deviceId: undefined });
    // Half the failures from one IPv6 address, half from others of its /64 (an attacker picks a new one each time).
    for (let failure = 0; failure < signInFailures.perAddress.points; failure++) {
      await fail(`name-${failure}`, failure % 2 === 0 ? '2001:db8:77:1::1' : `2001:db8:77:1:${failure.toString(16)}::abcd`);
    }
    await expect(fail('a-fresh-name', '2001:0db8:0077:0001:ffff:ffff:ffff:ffff')).rejects.toThrow(RateLimitedError);
    await expect(fail('a-fresh-name', '2001:db8:77:2::1')).resolves.toBeDefined();
    // An IPv4 client is one key whether it reaches a dual-stack socket as IPv4 or IPv4-mapped IPv6.
    for (let failure = 0; failure < signInFailures.perAddress.points; failure++) {
      await fail(`name-${failure}`, failure % 2 === 0 ? '203.0.113.77' : '::ffff:203.0.113.77');
    }
    await expect(fail('a-fresh-name', '::ffff:cb00:714d')).rejects.toThrow(RateLimitedError);
    await expect(fail('a-fresh-name', '203.0.113.78')).resolves.toBeDefined();
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
