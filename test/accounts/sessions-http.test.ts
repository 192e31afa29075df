import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { passwordHashingStats } from '../../src/accounts/password-hash.ts';
import { sessionTimes, signInFailures } from '../../src/limits.ts';
import { Browser, makePerson, signedInPerson } from '../support/browser.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp();

const viewerName = async (browser: Browser) => (await browser.graphql('{ viewer { name } }')).json?.data?.viewer?.name;

describe('session expiry over HTTP', () => {
  it('ends a session idle for 14 days and one past 30 days: 401, as without a cookie', async () => {
    const person = await makePerson();
    const idle = await new Browser(app).signIn(person.name, person.password);
    const old = await new Browser(app).signIn(person.name, person.password);
    const [idleRow, oldRow] = await db().session.findMany({ where: { accountId: person.id }, orderBy: { id: 'asc' } });
    await db().session.update({ where: { id: idleRow!.id }, data: { lastSeenAt: new Date(Date.now() - sessionTimes.idleMs - 60_000) } });
    await db().session.update({ where: { id: oldRow!.id }, data: { createdAt: new Date(Date.now() - sessionTimes.absoluteMs), expiresAt: new Date(Date.now() - 1) } });
    expect((await idle.graphql('{ viewer { name } }')).status).toBe(401);
    expect((await old.graphql('{ viewer { name } }')).status).toBe(401);
    expect(await db().session.count({ where: { accountId: person.id } })).toBe(0);
  });
});

describe('changePassword', () => {
  it('needs the current password, ends the other sessions and keeps this browser signed in', async () => {
    const person = await makePerson();
    const here = await new Browser(app).signIn(person.name, person.password);
    const elsewhere = await new Browser(app).signIn(person.name, person.password);
    const change = 'mutation($c: String, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }';
    const wrong = await here.graphql(change, { c: 'not it at all', n: 'a new password' });
    expect([wrong.status, wrong.json.errors[0].extensions.code]).toEqual([400, 'BAD_INPUT']);
    const missing = await here.graphql(change, { n: 'a new password' });
    expect(missing.json.errors[0].message).toBe('enter your current password');
    const short = await here.graphql(change, { c: person.password, n: 'short' });
    expect(short.json.errors[0]).toMatchObject({ message: 'the password must be at least 8 characters', extensions: { code: 'BAD_INPUT' } });
    const changed = await here.graphql(change, { c: person.password, n: 'a new password' });
    expect(changed.json.data.changePassword).toBe(true);
    expect(await viewerName(here)).toBe(person.name);
    expect(await viewerName(elsewhere)).toBeUndefined();
    const account = await db().account.findUniqueOrThrow({ where: { id: person.id } });
    expect(account.passwordChangedAt).not.toBeNull();
    expect((await new Browser(app).graphql('mutation { signIn(name: "' + person.name + '", password: "a new password") { name } }')).status).toBe(200);
  });
});

describe('changePassword under a stolen session', () => {
  it(`checks no more than ${signInFailures.perAccountChange.points} current passwords, even sent at once from many addresses, then refuses the right one; sign-in is not locked by it`, async () => {
    const person = await makePerson();
    const stolen = await new Browser(app).signIn(person.name, person.password);
    const change = 'mutation($c: String, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }';
    const before = passwordHashingStats().started;
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => {
        const thief = new Browser(app);
        thief.cookie = stolen.cookie;
        return thief.graphql(change, { c: `guess number ${index}`, n: 'the thief password' });
      }),
    );
    expect(passwordHashingStats().started - before).toBe(signInFailures.perAccountChange.points);
    const codes = guesses.map((answer) => answer.json.errors[0].extensions.code);
    expect(codes.filter((code) => code === 'BAD_INPUT')).toHaveLength(signInFailures.perAccountChange.points);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(12 - signInFailures.perAccountChange.points);
    const right = await stolen.graphql(change, { c: person.password, n: 'the thief password' });
    expect([right.status, right.json.errors[0].extensions.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(passwordHashingStats().started - before).toBe(signInFailures.perAccountChange.points);
    // The password is unchanged, and signing in is limited on its own.
    await new Browser(app).signIn(person.name, person.password);
  }, 120_000);
});

describe('sessions, signOutSession and signOutEverywhere', () => {
  it('lists the sessions newest first, ends one of them, and refuses another account’s', async () => {
    const person = await makePerson();
    const first = await new Browser(app).signIn(person.name, person.password);
    const second = await new Browser(app).signIn(person.name, person.password);
    const { json } = await second.graphql('{ viewer { sessions { databaseId current expiresAt } } }');
    const sessions = json.data.viewer.sessions;
    expect(sessions.map((session: any) => session.current)).toEqual([true, false]);
    expect(Date.parse(sessions[0].expiresAt)).toBeGreaterThan(Date.now() + sessionTimes.idleMs - 60_000);
    const stranger = await signedInPerson(app);
    const refused = await stranger.browser.graphql('mutation($id: Int!) { signOutSession(id: $id) }', { id: sessions[1].databaseId });
    expect([refused.status, refused.json.errors[0].extensions.code]).toEqual([404, 'NOT_FOUND']);
    expect((await second.graphql('mutation($id: Int!) { signOutSession(id: $id) }', { id: sessions[1].databaseId })).json.data.signOutSession).toBe(true);
    expect(await viewerName(first)).toBeUndefined();
    expect(await viewerName(second)).toBe(person.name);
  });

  it('signOutEverywhere ends every session of the account, this one too, and clears the cookie', async () => {
    const person = await makePerson();
    const browsers = [await new Browser(app).signIn(person.name, person.password), await new Browser(app).signIn(person.name, person.password)];
    const answer = await browsers[0]!.graphql('mutation { signOutEverywhere }');
    expect(answer.json.data.signOutEverywhere).toBe(true);
    expect(answer.headers.getSetCookie()[0]).toMatch(/^airdate_session=; .*Max-Age=0/);
    expect(await db().session.count({ where: { accountId: person.id } })).toBe(0);
    expect(await viewerName(browsers[1]!)).toBeUndefined();
  });

  it('refuses the session-only operations to an API token with 403 SESSION_REQUIRED', async () => {
    const account = await makeAccount();
    for (const query of ['{ viewer { sessions { databaseId } } }', 'mutation { signOutEverywhere }', 'mutation { changePassword(newPassword: "whatever123") }', 'mutation { signOutSession(id: 1) }']) {
      const answer = await graphql(app, account.token, query);
      expect(answer.status, query).toBe(403);
      expect(answer.json.errors[0].extensions.code, query).toBe('SESSION_REQUIRED');
    }
  });
});

describe('CSRF', () => {
  it('refuses a cross-site form post and a cross-site fetch carrying the cookie: 403, nothing changed', async () => {
    const { browser, id } = await signedInPerson(app);
    const form = await browser.fetch('POST', '/graphql', {
      body: 'query=mutation%20%7B%20signOutEverywhere%20%7D',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect([form.status, form.json]).toEqual([403, { error: 'cross-site request refused' }]);
    const fetched = await browser.graphql('mutation { updateSettings(input: { timezone: "Asia/Tokyo" }) { __typename } }', undefined, { origin: 'https://evil.example' });
    expect([fetched.status, fetched.json]).toEqual([403, { error: 'cross-site request refused' }]);
    const noOrigin = new Browser(app, null);
    noOrigin.cookie = browser.cookie;
    expect((await noOrigin.graphql('mutation { signOutEverywhere }')).status).toBe(403);
    expect((await noOrigin.graphql('mutation { signOutEverywhere }', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(await db().session.count({ where: { accountId: id } })).toBe(1);
    expect((await db().account.findUniqueOrThrow({ where: { id } })).timezone).toBe('UTC');
  });

  it('lets same-origin requests through (Origin, or Sec-Fetch-Site without one), and cross-site public sign-in fails', async () => {
    const { browser, name, password } = await signedInPerson(app);
    const sameOrigin = await browser.graphql('mutation { updateSettings(input: { timezone: "Asia/Tokyo" }) { __typename } }');
    expect(sameOrigin.status).toBe(200);
    const noOrigin = new Browser(app, null);
    noOrigin.cookie = browser.cookie;
    expect(await noOrigin.graphql('{ viewer { timezone } }', undefined, { 'sec-fetch-site': 'same-origin' }).then((answer) => answer.json.data.viewer.timezone)).toBe('Asia/Tokyo');
    const evil = new Browser(app, 'https://evil.example');
    const crossSignIn = await evil.graphql('mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', { n: name, p: password });
    expect(crossSignIn.status).toBe(403);
    expect(evil.cookie).toBeUndefined();
    // A public query is no write: anyone may ask.
    expect((await evil.graphql('{ authInfo { signedIn } }')).json.data.authInfo.signedIn).toBe(false);
  });

  it('leaves token requests alone, whatever their Origin', async () => {
    const account = await makeAccount();
    const answer = await call(app, 'POST', '/graphql', { token: account.token, headers: { origin: 'https://evil.example' }, body: { query: 'mutation { regenerateToken }' } });
    expect(answer.status).toBe(200);
  });
});
