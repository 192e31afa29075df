import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { startSession } from '../../src/accounts/sessions.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { accountOfSession, airdateOrigin, callbackUrl, joinCookies, navigate, runSignIn, signInError } from '../support/oidc-sign-in.ts';

// Single sign-on end to end: Airdate in-process (app.fetch), a real OpenID provider over HTTP.
const provider = await startOidcProvider({ redirectUri: callbackUrl });
const oidcEnv = { AIRDATE_OIDC_ISSUER: provider.issuer, AIRDATE_OIDC_CLIENT_ID: provider.clientId, AIRDATE_OIDC_CLIENT_SECRET: provider.clientSecret };
const { app, config } = await useTestApp({ ...oidcEnv, AIRDATE_OIDC_CREATE_USERS: 'true' });

/** The same server with AIRDATE_OIDC_CREATE_USERS off, on the same database. */
async function appWithoutCreateUsers(): Promise<App> {
  const other = await createApp(
    loadConfig({ AIRDATE_DATA_DIR: config.dataDir, AIRDATE_LOG_LEVEL: 'silent', DATABASE_URL: config.database.url, ...oidcEnv }),
  );
  afterAll(() => other.jobs.stop(2_000));
  return other;
}
const closedApp = await appWithoutCreateUsers();

/** A person at the provider with a fresh `sub`. */
function person(claims: { preferred_username?: string; email?: string } = {}) {
  const sub = `sub-${randomUUID()}`;
  provider.addAccount({ sub, ...claims });
  return { sub, subject: `${provider.issuer} ${sub}` };
}

/** A signed-in browser's session cookie for `accountId`. */
async function sessionCookieFor(accountId: number): Promise<string> {
  const header = await startSession({ accountId, method: 'password', request: new Request(airdateOrigin), clientAddress: undefined });
  return header.split(';')[0]!;
}

/** A GraphQL query as the web app sends it: the session cookie and our own Origin (CSRF check). */
async function graphqlWithCookie(target: App, cookie: string, query: string) {
  const response = await target.fetch(
    new Request(`${airdateOrigin}/graphql`, {
      method: 'POST',
      headers: { cookie, origin: airdateOrigin, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    }),
  );
  return { status: response.status, json: (await response.json()) as any };
}

describe('single sign-on with account creation on', () => {
  it('creates a user named after preferred_username, signs in with an oidc session and returns to returnTo', async () => {
    const username = `alice-${randomUUID().slice(0, 6)}`;
    const alice = person({ preferred_username: username, email: 'alice@example.com' });
    const run = await runSignIn(app, provider, { username: alice.sub, query: 'returnTo=%2Fsettings%2Faccount%3Ftab%3D1' });

    expect(run.start.setCookies[0]).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const authorization = new URL(run.start.location!);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('redirect_uri')).toBe(callbackUrl);
    expect(authorization.searchParams.get('scope')).toBe('openid profile email');
    expect(run.callback.status).toBe(302);
    expect(run.callback.location).toBe('/settings/account?tab=1');
    expect(run.callback.cookies.get('airdate_oidc')).toBe('');

    const account = await db().account.findUniqueOrThrow({ where: { oidcSubject: alice.subject } });
    expect(account).toMatchObject({ role: 'user', timezone: 'UTC', passwordHash: null });
    expect(account.name).toBe(username);
    expect((await accountOfSession(run.sessionCookie))?.id).toBe(account.id);
    const sessions = await db().session.findMany({ where: { accountId: account.id } });
    expect(sessions.map((session) => [session.method, session.userAgent])).toEqual([['oidc', 'oidc-test-browser']]);

    // The session works where the web app uses it.
    const viewer = await graphqlWithCookie(app, run.sessionCookie!, '{ viewer { name role ssoLinked hasPassword } authInfo { signedIn } }');
    expect(viewer.status).toBe(200);
    expect(viewer.json.data).toEqual({ viewer: { name: username, role: 'USER', ssoLinked: true, hasPassword: false }, authInfo: { signedIn: true } });

    // The next sign-in of the same person reaches the same account, not a second one.
    const again = await runSignIn(app, provider, { username: alice.sub });
    expect(again.callback.location).toBe('/');
    expect((await accountOfSession(again.sessionCookie))?.id).toBe(account.id);
    expect(await db().account.count({ where: { oidcSubject: alice.subject } })).toBe(1);
  });

  it('makes the name unique, falls back to the email local part, then to "user", and never exceeds 64 characters', async () => {
    const taken = await makeAccount();
    const clash = person({ preferred_username: taken.name });
    const byEmail = person({ email: `zoë+films-${randomUUID().slice(0, 4)}@mail.example` });
    const nameless = person();
    const long = person({ preferred_username: `${'x'.repeat(70)}${randomUUID().slice(0, 4)}` });
    const names = [];
    for (const identity of [clash, byEmail, nameless, nameless, long]) {
      const run = await runSignIn(app, provider, { username: identity.sub });
      expect(run.callback.location).toBe('/');
      names.push((await accountOfSession(run.sessionCookie))?.name);
    }
    expect(names[0]).toBe(`${taken.name}-2`);
    expect(names[1]).toMatch(/^zoë-films-[0-9a-f]{4}$/);
    expect(names[2]).toMatch(/^user(-\d+)?$/);
    expect(names[3]).toBe(names[2]);
    expect([...names[4]!]).toHaveLength(64);
  });

  it('answers a redirect to the sign-in page when the person refuses at the provider (access_denied)', async () => {
    const bob = person({ preferred_username: 'bob' });
    const run = await runSignIn(app, provider, { username: bob.sub, deny: true });
    expect(run.returned.searchParams.get('error')).toBe('access_denied');
    expect(run.callback.status).toBe(302);
    expect(signInError(run.callback.location)).toContain('access_denied');
    expect(run.sessionCookie).toBeUndefined();
    expect(await db().account.count({ where: { oidcSubject: bob.subject } })).toBe(0);
  });
});

describe('authInfo.sso', () => {
  it('offers the SSO button (label and start URL) to anyone', async () => {
    const response = await app.fetch(
      new Request(`${airdateOrigin}/graphql`, {
        method: 'POST',
        headers: { origin: airdateOrigin, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ authInfo { signedIn sso { label startUrl } } }' }),
      }),
    );
    expect(await response.json()).toEqual({ data: { authInfo: { signedIn: false, sso: { label: 'Single sign-on', startUrl: '/auth/oidc/start' } } } });
  });
});

describe('single sign-on with account creation off', () => {
  it('refuses a person no account is linked to, with a message to ask an administrator', async () => {
    const carol = person({ preferred_username: 'carol' });
    const run = await runSignIn(closedApp, provider, { username: carol.sub });
    expect(signInError(run.callback.location)).toMatch(/^no Airdate account is linked to this sign-in; ask an administrator/);
    expect(run.sessionCookie).toBeUndefined();
    expect(await db().account.count({ where: { oidcSubject: carol.subject } })).toBe(0);
  });

  it('signs in the account an identity is already linked to', async () => {
    const dave = person({ preferred_username: 'someone-else' });
    const account = await makeAccount();
    await db().account.update({ where: { id: account.id }, data: { oidcSubject: dave.subject } });
    const run = await runSignIn(closedApp, provider, { username: dave.sub, query: 'returnTo=/import-export' });
    expect(run.callback.location).toBe('/import-export');
    expect(await accountOfSession(run.sessionCookie)).toMatchObject({ id: account.id, name: account.name });
  });

  it('links the identity to the signed-in account, which can then sign in with it', async () => {
    const erin = person({ preferred_username: 'erin' });
    const account = await makeAccount();
    const session = await sessionCookieFor(account.id);
    const link = await runSignIn(closedApp, provider, { username: erin.sub, query: 'link=1&returnTo=/settings/account', cookies: session });
    expect(link.callback.location).toBe('/settings/account');
    expect(link.sessionCookie).toBeUndefined();
    expect((await db().account.findUniqueOrThrow({ where: { id: account.id } })).oidcSubject).toBe(erin.subject);

    const signIn = await runSignIn(closedApp, provider, { username: erin.sub });
    expect((await accountOfSession(signIn.sessionCookie))?.id).toBe(account.id);
    const viewer = await graphqlWithCookie(closedApp, signIn.sessionCookie!, '{ viewer { name ssoLinked } }');
    expect(viewer.json.data).toEqual({ viewer: { name: account.name, ssoLinked: true } });
  });

  it('refuses to link an identity another account holds, and linking without a session', async () => {
    const frank = person({ preferred_username: 'frank' });
    const holder = await makeAccount();
    await db().account.update({ where: { id: holder.id }, data: { oidcSubject: frank.subject } });
    const other = await makeAccount();
    const run = await runSignIn(closedApp, provider, { username: frank.sub, query: 'link=1', cookies: await sessionCookieFor(other.id) });
    expect(signInError(run.callback.location)).toBe('this sign-in is already linked to another Airdate account');
    expect((await db().account.findUniqueOrThrow({ where: { id: other.id } })).oidcSubject).toBeNull();

    const anonymous = await navigate(closedApp, '/auth/oidc/start?link=1');
    expect(signInError(anonymous.location)).toMatch(/^sign in to Airdate first/);
  });

  it('refuses the link when the browser signed out (or switched accounts) while at the provider', async () => {
    const grace = person();
    const account = await makeAccount();
    const start = await navigate(closedApp, '/auth/oidc/start?link=1', await sessionCookieFor(account.id));
    const returned = await provider.signIn(start.location!, { username: grace.sub });
    const state = `airdate_oidc=${start.cookies.get('airdate_oidc')}`;
    const someoneElse = await sessionCookieFor((await makeAccount()).id);
    const callback = await navigate(closedApp, returned.pathname + returned.search, joinCookies(state, someoneElse));
    expect(signInError(callback.location)).toMatch(/signed out while linking/);
    expect(await db().account.count({ where: { oidcSubject: grace.subject } })).toBe(0);
  });
});
