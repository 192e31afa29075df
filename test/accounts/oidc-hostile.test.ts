import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { decryptSecret, encryptSecret } from '../../src/keys/crypto.ts';
import { createOidcClient } from '../../src/accounts/single-sign-on/oidc.ts';
import { secretKey } from '../../src/keys/secret-key.ts';
import { initSessions } from '../../src/accounts/sessions.ts';
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { useTestApp } from '../support/database.ts';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { airdateOrigin, callbackUrl, navigate, runSignIn, signInError } from '../support/oidc-sign-in.ts';

// What a hostile or unlucky browser can do to single sign-on: every path ends on the sign-in page
// with a message (or on `/`), never with a session it should not have, never with a 500.
const provider = await startOidcProvider({ redirectUri: callbackUrl });
const oidcEnv = { AIRDATE_OIDC_ISSUER: provider.issuer, AIRDATE_OIDC_CLIENT_ID: provider.clientId, AIRDATE_OIDC_CLIENT_SECRET: provider.clientSecret };
const { app, config } = await useTestApp({ ...oidcEnv, AIRDATE_OIDC_CREATE_USERS: 'true' });

function person() {
  const sub = `sub-${randomUUID()}`;
  provider.addAccount({ sub, preferred_username: `p-${sub.slice(4, 12)}` });
  return { sub, subject: `${provider.issuer} ${sub}` };
}

/**
 * Runs `work` on another app over the same database with other settings, then stops its jobs.
 * (createApp also points the session cookie's naming at its settings: the file's own app is made
 * current again afterwards.)
 */
async function withApp(settings: Config, work: (other: App) => Promise<void>): Promise<void> {
  const other = await createApp(settings);
  try {
    await work(other);
  } finally {
    await other.jobs.stop(2_000);
    initSessions(config.web);
  }
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the callback refuses what this browser did not start', () => {
  it('refuses a state that differs from the cookie, keeping the real sign-in usable', async () => {
    const victim = person();
    const start = await navigate(app, '/auth/oidc/start');
    const returned = await provider.signIn(start.location!, { username: victim.sub });
    const state = `airdate_oidc=${start.cookies.get('airdate_oidc')}`;
    const forged = new URL(returned);
    forged.searchParams.set('state', 'forged-state');
    const refused = await navigate(app, forged.pathname + forged.search, state);
    expect(signInError(refused.location)).toMatch(/does not belong to the sign-in this browser started/);
    expect(refused.cookies.has('airdate_session')).toBe(false);
    expect(refused.cookies.has('airdate_oidc')).toBe(false);

    const real = await navigate(app, returned.pathname + returned.search, state);
    expect(real.location).toBe('/');
    expect(real.cookies.get('airdate_session')).toMatch(/^[\w-]{43}$/);
  });

  it('refuses a callback without the state cookie, with an altered one, with one sealed by another key, or expired', async () => {
    const someone = person();
    const start = await navigate(app, '/auth/oidc/start');
    const returned = await provider.signIn(start.location!, { username: someone.sub });
    const sealed = start.cookies.get('airdate_oidc')!;
    const callbackPath = returned.pathname + returned.search;
    // The second-to-last character replaced by another one (choosing by the last character could
    // put back the same letter, leaving the cookie intact: a test that passed by chance 1 run in 64).
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
    expect(flipped).not.toBe(sealed);
    const expired = encryptSecret(
      JSON.stringify({ codeVerifier: 'v', state: returned.searchParams.get('state'), nonce: 'n', returnTo: '/', expiresAt: Date.now() - 1 }),
      secretKey(),
    );
    for (const cookie of ['', `airdate_oidc=${flipped}`, `airdate_oidc=${encryptSecret('{}', Buffer.alloc(32, 7))}`, `airdate_oidc=${expired}`, 'airdate_oidc=%%%']) {
      const refused = await navigate(app, callbackPath, cookie);
      expect(refused.status, cookie).toBe(302);
      expect(signInError(refused.location), cookie).toBe('this sign-in expired or was started in another browser; start again');
      expect(refused.cookies.has('airdate_session')).toBe(false);
    }
    expect(await db().account.count({ where: { oidcSubject: someone.subject } })).toBe(0);
  });

  it('refuses a replayed callback: the code works once', async () => {
    const someone = person();
    const run = await runSignIn(app, provider, { username: someone.sub });
    expect(run.callback.location).toBe('/');
    const replay = await navigate(app, run.returned.pathname + run.returned.search, run.stateCookie);
    expect(replay.status).toBe(302);
    expect(signInError(replay.location)).toMatch(/identity provider refused the sign-in \(invalid_grant\)/);
    expect(replay.cookies.has('airdate_session')).toBe(false);
  });

  it('refuses a callback with no code, or with a code the provider never issued', async () => {
    const someone = person();
    const start = await navigate(app, '/auth/oidc/start');
    const returned = await provider.signIn(start.location!, { username: someone.sub });
    const state = `airdate_oidc=${start.cookies.get('airdate_oidc')}`;
    for (const change of [(url: URL) => url.searchParams.delete('code'), (url: URL) => url.searchParams.set('code', 'x'.repeat(43))]) {
      const tampered = new URL(returned);
      change(tampered);
      const refused = await navigate(app, tampered.pathname + tampered.search, state);
      expect(refused.status).toBe(302);
      expect(signInError(refused.location)).toBeDefined();
      expect(refused.cookies.has('airdate_session')).toBe(false);
    }
  });
});

describe('returnTo stays on this server', () => {
  it.each([
    ['a protocol-relative URL', '//evil.example', '/'],
    ['an absolute URL', 'https://evil.example', '/'],
    ['a backslash host', '/\\evil.example', '/'],
    ['a line break (header injection)', '/\r\nSet-Cookie: x=1', '/'],
    ['a tab between two slashes (a URL parser drops it)', '/\t/evil.example', '/'],
    ['a C1 control character', '/\u0085evil.example', '/'],
    ['a javascript: URL', 'javascript:alert(1)', '/'],
    ['a relative path', 'evil.example', '/'],
    ['a dot segment that resolves to //', '/.//evil.example', '/'],
    ['percent-encoded dot segments that resolve to //', '/%2e%2e//evil.example', '/'],
    ['a path over 2 000 characters', `/${'a'.repeat(2_000)}`, '/'],
    ['a path that percent-encoding makes longer than 2 000 characters', `/${'🎬'.repeat(200)}`, '/'],
    ['an ideographic full stop (U+3002, a "." to some URL parsers)', '/。evil.example', '/%E3%80%82evil.example'],
    ['a fullwidth solidus (U+FF0F)', '/／evil.example', '/%EF%BC%8Fevil.example'],
    ['an emoji', '/🎬', '/%F0%9F%8E%AC'],
    ['a Latin-1 letter', '/café', '/caf%C3%A9'],
    ['non-Latin-1 characters in the query and fragment', '/search?q=映画#ü', '/search?q=%E6%98%A0%E7%94%BB#%C3%BC'],
    ['a percent-encoded double slash (a harmless path)', '/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['a percent-encoded line break (a harmless path)', '/%0d%0a', '/%0d%0a'],
    ['a path with query and fragment', '/settings/developer?tab=webhook#log', '/settings/developer?tab=webhook#log'],
  ])('returnTo as %s is made safe when the sign-in starts, and the callback goes there', async (_, returnTo, expected) => {
    const run = await runSignIn(app, provider, { username: person().sub, query: `returnTo=${encodeURIComponent(returnTo)}` });
    expect(run.callback.status).toBe(302);
    expect(run.callback.location).toBe(expected);
    // Decided before the browser left for the provider: the sealed state holds the safe path.
    const sealed = run.stateCookie.slice('airdate_oidc='.length);
    expect((JSON.parse(decryptSecret(sealed, secretKey())) as { returnTo: string }).returnTo).toBe(expected);
    expect(run.sessionCookie).toBeDefined();
    expect(run.callback.cookies.get('airdate_oidc')).toBe('');
    // The next sign-in works as usual.
    const next = await runSignIn(app, provider, { username: person().sub, query: 'returnTo=/calendar' });
    expect([next.callback.location, next.sessionCookie !== undefined]).toEqual(['/calendar', true]);
  });

  it('sends a state sealed by an older version with a non-ASCII returnTo to its encoded path, not a 500', async () => {
    const someone = person();
    const start = await navigate(app, '/auth/oidc/start');
    const returned = await provider.signIn(start.location!, { username: someone.sub });
    const sealed = JSON.parse(decryptSecret(start.cookies.get('airdate_oidc')!, secretKey())) as Record<string, unknown>;
    const old = encryptSecret(JSON.stringify({ ...sealed, returnTo: '/。evil.example' }), secretKey());
    const callback = await navigate(app, returned.pathname + returned.search, `airdate_oidc=${old}`);
    expect(callback.status).toBe(302);
    expect(callback.location).toBe('/%E3%80%82evil.example');
    expect(callback.cookies.get('airdate_session')).toMatch(/^[\w-]{43}$/);
  });
});

describe('the routes themselves', () => {
  it('takes GET only', async () => {
    const response = await app.fetch(new Request(`${airdateOrigin}/auth/oidc/callback`, { method: 'POST', body: 'code=x' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('sends the state cookie as __Host- and Secure when the public origin is https', async () => {
    await withApp({ ...config, web: { ...config.web, publicUrl: 'https://airdate.example' } }, async (secure) => {
      const start = await secure.fetch(new Request(`${airdateOrigin}/auth/oidc/start`));
      expect(start.status).toBe(302);
      expect(new URL(start.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://airdate.example/auth/oidc/callback');
      expect(start.headers.getSetCookie()[0]).toMatch(/^__Host-airdate_oidc=v1\.[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/);
    });
  });

  it('redirects to the sign-in page when single sign-on is not configured', async () => {
    await withApp({ ...config, web: { ...config.web, oidc: undefined } }, async (plain) => {
      for (const path of ['/auth/oidc/start', '/auth/oidc/callback?code=x&state=y']) {
        const response = await navigate(plain, path);
        expect(signInError(response.location)).toBe('single sign-on is not configured on this server');
      }
    });
  });
});

describe('a provider that is down', () => {
  it('lets the server start; the start route redirects with a clear message', async () => {
    const issuer = `http://127.0.0.1:${await closedPort()}`;
    await withApp({ ...config, web: { ...config.web, oidc: { ...config.web.oidc!, issuer } } }, async (down) => {
      expect((await down.fetch(new Request(`${airdateOrigin}/healthz`))).status).toBe(200);
      const start = await navigate(down, '/auth/oidc/start?returnTo=/admin');
      expect(start.status).toBe(302);
      expect(signInError(start.location)).toMatch(/^single sign-on is unavailable: the identity provider could not be reached \(.+\); try again later$/);
      // No sign-in state is left behind: the cookie is removed, not set.
      expect(start.cookies.get('airdate_oidc')).toBe('');
    });
  });

  it('is asked again after the pause, and works once it is up', async () => {
    const late = await startOidcProvider({ redirectUri: callbackUrl });
    await late.close();
    const client = createOidcClient({ ...config.web.oidc!, issuer: late.issuer }, createLogger({ level: 'silent', format: 'json' }), { discoveryRetryMs: 200 });
    await expect(client.begin(callbackUrl)).rejects.toThrow(/single sign-on is unavailable/);
    const port = new URL(late.issuer).port;
    const revived = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ issuer: late.issuer, authorization_endpoint: `${late.issuer}/auth`, token_endpoint: `${late.issuer}/token` }));
    });
    await new Promise<void>((resolve) => revived.listen(Number(port), '127.0.0.1', resolve));
    try {
      // Within the pause the failure is remembered, not retried on every click.
      await expect(client.begin(callbackUrl)).rejects.toThrow(/single sign-on is unavailable/);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const { url } = await client.begin(callbackUrl);
      expect(url.href.startsWith(`${late.issuer}/auth?`)).toBe(true);
    } finally {
      revived.closeAllConnections();
      await new Promise((resolve) => revived.close(resolve));
    }
  });
});

describe('configuration', () => {
  it('refuses an http issuer that is not on this machine, and accepts loopback ones', () => {
    const base = { AIRDATE_OIDC_CLIENT_ID: 'airdate' };
    expect(() => loadConfig({ ...base, AIRDATE_OIDC_ISSUER: 'http://auth.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, AIRDATE_OIDC_ISSUER: 'http://10.0.0.5:9000' })).toThrow(/must be an https:\/\/ URL/);
    for (const issuer of ['https://auth.example.com/realms/home', 'http://localhost:9000', 'http://127.0.0.1:9000', 'http://[::1]:9000']) {
      expect(loadConfig({ ...base, AIRDATE_OIDC_ISSUER: issuer }).web.oidc?.issuer).toBe(issuer);
    }
  });
});
