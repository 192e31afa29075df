import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { restRoutes } from '../../src/routes.ts';
import { setFollow } from '../../src/library/library.ts';
import { Browser, signedInPerson } from '../support/browser.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { multipart } from '../support/upload.ts';

// What a page of another origin of the same site (another port, a sibling subdomain: the
// SameSite=Lax cookie goes along) can do with a signed-in person's browser, and what a cache
// between the person and the server may keep. The browser side of it, in Chromium:
// test/browser/web-security.sqlite.test.ts.
const provider = await startOidcProvider({ redirectUri: 'http://airdate.test/auth/oidc/callback' });
const { app } = await useTestApp({ AIRDATE_OIDC_ISSUER: provider.issuer, AIRDATE_OIDC_CLIENT_ID: provider.clientId, AIRDATE_OIDC_CLIENT_SECRET: provider.clientSecret });

/** A page of the same site on another port, as a browser describes its cross-origin fetch. */
const otherPage = { origin: 'http://airdate.test:8123', 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' };
const tokenQuery = `/graphql?query=${encodeURIComponent('{ viewer { name apiToken } }')}`;

describe('another page of the same site, with the person signed in', () => {
  it('reads no API token over GET /graphql: 403 before anything runs, and no CORS header to read it by', async () => {
    const { browser } = await signedInPerson(app);
    for (const headers of [otherPage, { origin: otherPage.origin }, { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }] as Record<string, string>[]) {
      const answer = await browser.fetch('GET', tokenQuery, { headers });
      expect([answer.status, answer.json], JSON.stringify(headers)).toEqual([403, { error: 'cross-site request refused' }]);
      expect(answer.text).not.toMatch(/adt_/);
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    // The web app's own page reads it: no Origin on a same-origin GET, or Sec-Fetch-Site: same-origin.
    for (const headers of [{}, { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }] as Record<string, string>[]) {
      const own = await browser.fetch('GET', tokenQuery, { headers });
      expect(own.status).toBe(200);
      expect(own.json.data.viewer.apiToken).toMatch(/^adt_/);
    }
  });

  it('gets no CORS header from /graphql for any request (Yoga reflected the Origin with credentials)', async () => {
    const { browser } = await signedInPerson(app);
    const account = await makeAccount();
    const answers = [
      // A preflight carries no cookie.
      await call(app, 'OPTIONS', '/graphql', { headers: { origin: otherPage.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }),
      await browser.fetch('GET', `/graphql?query=${encodeURIComponent('{ authInfo { signedIn } }')}`, { headers: { origin: otherPage.origin } }),
      await call(app, 'GET', `/graphql?query=${encodeURIComponent('{ authInfo { signedIn } }')}`, { headers: { origin: otherPage.origin } }),
      await browser.graphql('{ viewer { name } }', undefined, { origin: otherPage.origin }),
      await call(app, 'POST', '/graphql', { token: account.token, body: { query: '{ viewer { name } }' }, headers: { origin: otherPage.origin } }),
      await call(app, 'GET', '/api/machine/summary', { token: account.token, headers: { origin: otherPage.origin } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 403, 200, 403, 200, 200]);
    for (const answer of answers) expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it("fetches no export with the person's cookie; a link followed from anywhere still downloads it", async () => {
    const { browser, name } = await signedInPerson(app);
    const fetched = await browser.fetch('GET', '/api/export', { headers: otherPage });
    expect([fetched.status, fetched.json]).toEqual([403, { error: 'cross-site request refused' }]);
    const followed = await browser.fetch('GET', '/api/export', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    expect(followed.status).toBe(200);
    expect(followed.json.account.name).toBe(name);
  });
});

describe('a host the server does not answer to (DNS rebinding)', () => {
  it('gets a 400 before anything runs: no sign-in attempt, no single sign-on redirect URI built on it', async () => {
    const account = await makeAccount();
    const refusal = { error: expect.stringMatching(/^this server does not answer to the host "attacker\.example": set AIRDATE_PUBLIC_URL/) };
    const attempts = [
      await call(app, 'GET', 'http://attacker.example/auth/oidc/start?returnTo=/'),
      await call(app, 'POST', 'http://attacker.example/graphql', { body: { query: 'mutation { signIn(name: "root", password: "guess") { name } }' }, headers: { origin: 'http://attacker.example' } }),
      await call(app, 'GET', 'http://attacker.example:4000/api/machine/summary', { token: account.token }),
    ];
    for (const answer of attempts) {
      expect([answer.status, answer.json]).toEqual([400, refusal]);
      expect(answer.headers.get('location')).toBeNull();
    }
    // On a host it answers to, the redirect URI is built on that host.
    const start = await call(app, 'GET', '/auth/oidc/start?returnTo=/');
    expect(start.status).toBe(302);
    expect(new URL(start.headers.get('location')!).searchParams.get('redirect_uri')).toBe('http://airdate.test/auth/oidc/callback');
  });
});

describe('Cache-Control: no shared cache keeps an account\'s answer', () => {
  /** An account following a show, so that its feeds and calendar are not empty. */
  async function followingAccount() {
    const account = await makeAccount();
    const today = localDate('UTC', new Date());
    const show = await makeShow({ episodes: [{ number: 1, airDate: addDays(today, -1) }, { number: 2, airDate: addDays(today, 1) }] });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    return { account, show };
  }

  /** What each REST route answers with, 200 and 304 alike: feeds and the calendar revalidate with their ETags. */
  const expected: Record<string, string> = {
    '/api/machine/summary': 'private, no-cache',
    '/api/machine/releases': 'private, no-cache',
    '/api/machine/airing': 'private, no-cache',
    '/api/machine/widget': 'private, no-cache',
    '/api/calendar.ics': 'private, no-cache',
    '/api/export': 'no-store',
    '/api/machine/watched': 'no-store',
    '/api/machine/follow': 'no-store',
    '/api/machine/sync': 'no-store',
  };

  it('names every REST route here', () => {
    const named = (path: string) => (path.startsWith('/api/import/') ? '/api/import/*' : path.startsWith('/api/media-servers/') ? '/api/media-servers/*' : path);
    expect([...new Set(restRoutes.flatMap((route) => route.paths.map(named)))].sort()).toEqual([...Object.keys(expected), '/api/import/*', '/api/media-servers/*'].sort());
  });

  it.each(Object.entries(expected).filter(([path]) => restRoutes.some((route) => route.paths.includes(path) && route.method === 'GET')))(
    'GET %s: %s on the 200 and the 304, with the token in the header or in ?token=',
    async (path, cacheControl) => {
      const { account } = await followingAccount();
      const viaHeader = await call(app, 'GET', path, { token: account.token });
      expect(viaHeader.status).toBe(200);
      const route = restRoutes.find((candidate) => candidate.paths.includes(path))!;
      const answers = [viaHeader];
      if (route.auth === 'header-or-query') answers.push(await call(app, 'GET', path, { queryToken: account.token }));
      const etag = viaHeader.headers.get('etag');
      if (etag !== null) {
        const revalidated = await call(app, 'GET', path, { token: account.token, headers: { 'if-none-match': etag } });
        expect(revalidated.status).toBe(304);
        answers.push(revalidated);
      }
      // Those that are revalidated have an ETag to revalidate with.
      expect(etag !== null).toBe(cacheControl.includes('no-cache'));
      for (const answer of answers) {
        expect(answer.headers.get('cache-control')).toBe(cacheControl);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      }
    },
  );

  it('POST writes and imports: no-store', async () => {
    const { account, show } = await followingAccount();
    const writes = [
      await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: show.episodes[0]!.id, watched: true } }),
      await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: true } }),
      await call(app, 'POST', '/api/machine/sync', { token: account.token }),
    ];
    // An import of the account's own export: its report is the account's data too.
    const exported = await call(app, 'GET', '/api/export', { token: account.token });
    const form = new FormData();
    form.append('file', new File([exported.text], 'airdate-export.json'));
    const { body, contentType } = await multipart(form);
    const imported = await app.fetch(
      new Request('http://airdate.test/api/import/airdate', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': contentType }, body: body as BodyInit }),
    );
    // A media server's delivery: its answer says what was recorded in the account.
    const connected = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { connectMediaServer(source: GENERIC) { ... on MutationConnectMediaServerSuccess { data { path } } } }' }) }));
    const { data } = (await connected.json()) as { data: { connectMediaServer: { data: { path: string } } } };
    const delivered = await app.fetch(new Request(`http://airdate.test${data.connectMediaServer.data.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'episode', ids: { tvdb: 1 } }) }));
    expect([...writes.map((answer) => answer.status), imported.status, delivered.status]).toEqual([200, 200, 200, 200, 200]);
    for (const headers of [...writes.map((answer) => answer.headers), imported.headers, delivered.headers]) expect(headers.get('cache-control')).toBe('no-store');
  });

  it('/graphql: no-store, with a cookie (GET and POST), a token, or none (signing in)', async () => {
    const { browser, name, password } = await signedInPerson(app);
    const account = await makeAccount();
    const answers = [
      await browser.fetch('GET', tokenQuery),
      await browser.graphql('{ viewer { apiToken } }'),
      await call(app, 'POST', '/graphql', { token: account.token, body: { query: '{ viewer { apiToken webhookSecret } }' } }),
      await call(app, 'GET', `/graphql?query=${encodeURIComponent('{ viewer { apiToken } }')}`, { token: account.token }),
      await new Browser(app).graphql('mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', { n: name, p: password }),
      await call(app, 'POST', '/graphql', { body: { query: '{ viewer { name } }' } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 401]);
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
