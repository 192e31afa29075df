import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/node-server.ts';
import { db } from '../../src/db/client.ts';
import { setWatched } from '../../src/library/library.ts';
import { sessionTimes } from '../../src/limits.ts';
import { useTestApp } from '../support/database.ts';
import { Browser, signedInPerson } from '../support/browser.ts';
import { makeShow } from '../support/factories.ts';
import { openEventStream } from '../support/event-stream.ts';
import { call } from '../support/http.ts';

// The libraryChanged subscription over server-sent events, through a real HTTP server (a client
// going away must end its stream on the server): an event after a change
// made over REST (and none for another account's), the session's same-origin rule, a token's
// stream, the bounds per credential and per account (429 with a clear message, freed when a
// stream closes), no stream without an account, and a stream's end with the session or token that
// opened it, however that ends, with nothing told after and the owner's next tab let in.
const { app } = await useTestApp({ AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '2', AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '4' });
const server = createHttpServer(app);
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const subscription = 'subscription LibraryChanged { libraryChanged { feedVersion calendarVersion catalogVersion } }';

/** Opens a stream as the web app's EventSource does (a GET, same-origin), or with other headers. */
function open(headers: Record<string, string>) {
  const url = new URL('/graphql', baseUrl);
  url.searchParams.set('query', subscription);
  return openEventStream(url, headers);
}

const sameOrigin = (browser: Browser) => ({ cookie: browser.cookie!, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });

describe('libraryChanged over server-sent events', () => {
  it("tells an open stream of a change made over REST, and not of another account's", { timeout: 60_000 }, async () => {
    const alice = await signedInPerson(app);
    const bob = await signedInPerson(app);
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2024-01-01' }] });
    const aliceStream = await open(sameOrigin(alice.browser));
    const bobStream = await open(sameOrigin(bob.browser));
    expect(aliceStream.response.status).toBe(200);
    expect(aliceStream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Let the first read of the versions happen, then change Alice's library over REST.
    await new Promise((done) => setTimeout(done, 1_200));
    const token = (await alice.browser.graphql('{ viewer { apiToken } }')).json.data.viewer.apiToken as string;
    const marked = await call(app, 'POST', '/api/machine/watched', { token, body: { kind: 'episode', id: show.episodes[0]!.id, watched: true } });
    expect(marked.status).toBe(200);
    const event = await aliceStream.next();
    expect(event?.data?.libraryChanged.feedVersion).toBeGreaterThan(0);
    expect(await bobStream.next(1_500)).toBeUndefined();
    // A change made in-process (another tab's GraphQL, Home Assistant's REST: the same writer).
    await setWatched({ accountId: bob.id, kind: 'episode', id: show.episodes[0]!.id, watched: true });
    expect((await bobStream.next())?.data?.libraryChanged).toBeDefined();
    await aliceStream.close();
    await bobStream.close();
  });

  it('refuses a session stream that does not come from a page of this site, and one without an account', async () => {
    const carol = await signedInPerson(app);
    for (const headers of <Record<string, string>[]>[{ cookie: carol.browser.cookie! }, { ...sameOrigin(carol.browser), 'sec-fetch-site': 'same-site' }, { cookie: carol.browser.cookie!, origin: 'http://evil.test' }, { cookie: carol.browser.cookie!, origin: 'http://127.0.0.1:1' }]) {
      const stream = await open(headers);
      const body = await stream.rest();
      expect(body).toMatch(/cross-site request refused|must come from a page of this site/);
      await stream.close();
    }
    // Our own Origin passes (a browser that sends one on a same-origin GET).
    const own = await open({ cookie: carol.browser.cookie!, origin: baseUrl });
    expect(own.response.status).toBe(200);
    await own.close();
    const anonymous = await open({ 'sec-fetch-site': 'same-origin' });
    expect(anonymous.response.status).toBe(401);
    await anonymous.close();
  });

  it('holds at most the bound of streams per credential, refuses the next with 429 and a clear message, and frees a place when one closes', { timeout: 60_000 }, async () => {
    const dave = await signedInPerson(app);
    const first = await open(sameOrigin(dave.browser));
    const second = await open(sameOrigin(dave.browser));
    const third = await open(sameOrigin(dave.browser));
    expect(third.response.status).toBe(429);
    expect(await third.rest()).toContain('this browser already has 2 live update streams open (one per tab)');
    // Another account is not held back by Dave's streams.
    const erin = await signedInPerson(app);
    const theirs = await open(sameOrigin(erin.browser));
    expect(theirs.response.status).toBe(200);
    await first.close();
    // The server sees the stream end when the client goes away.
    let again: Awaited<ReturnType<typeof open>> | undefined;
    for (let tries = 0; tries < 50; tries += 1) {
      again = await open(sameOrigin(dave.browser));
      if (again.response.status === 200) break;
      await again.close();
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(again!.response.status).toBe(200);
    // A token opens streams too (for scripts), under a bound of its own: the browser's two do not count.
    const token = (await dave.browser.graphql('{ viewer { apiToken } }')).json.data.viewer.apiToken as string;
    const scripts = [await open({ authorization: `Bearer ${token}` }), await open({ authorization: `Bearer ${token}` })];
    expect(scripts.map((script) => script.response.status)).toEqual([200, 200]);
    const thirdScript = await open({ authorization: `Bearer ${token}` });
    expect(thirdScript.response.status).toBe(429);
    expect(await thirdScript.rest()).toContain('this API token already has 2 live update streams open');
    // The account's bound (4) holds across its sessions: a second browser finds it full.
    const laptop = await new Browser(app).signIn(dave.name, dave.password);
    const fifth = await open(sameOrigin(laptop));
    expect(fifth.response.status).toBe(429);
    expect(await fifth.rest()).toContain('this account already has 4 live update streams open');
    for (const stream of [second, again!, theirs, ...scripts]) await stream.close();
  });
});

describe('a stream ends with the session or token that opened it', () => {
  const signOutEverywhere = 'mutation { signOutEverywhere }';
  const changePassword = 'mutation($c: String, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }';

  /**
   * Each way a credential ends, done to `owner` (its browser's session opened two streams, its
   * token two more: the account's four places): what ends it, and the owner's browser afterwards
   * (signed in again where it was signed out), or undefined when nothing of the account is left.
   */
  const ways: { name: string; ends: 'session' | 'token' | 'account'; end: (owner: Awaited<ReturnType<typeof signedInPerson>>, token: string) => Promise<{ browser: Browser; token: string } | undefined> }[] = [
    {
      name: 'signing out',
      ends: 'session',
      end: async (owner, token) => {
        expect((await owner.browser.graphql('mutation { signOut }')).json.data.signOut).toBe(true);
        return { browser: await owner.browser.signIn(owner.name, owner.password), token };
      },
    },
    {
      name: 'signing out everywhere (from another browser)',
      ends: 'session',
      end: async (owner, token) => {
        const other = await new Browser(app).signIn(owner.name, owner.password);
        expect((await other.graphql(signOutEverywhere)).json.data.signOutEverywhere).toBe(true);
        return { browser: await owner.browser.signIn(owner.name, owner.password), token };
      },
    },
    {
      name: 'a password change (from another browser)',
      ends: 'session',
      end: async (owner, token) => {
        const other = await new Browser(app).signIn(owner.name, owner.password);
        expect((await other.graphql(changePassword, { c: owner.password, n: 'a brand new password' })).json.data.changePassword).toBe(true);
        return { browser: await owner.browser.signIn(owner.name, 'a brand new password'), token };
      },
    },
    {
      name: 'a password reset by an administrator',
      ends: 'session',
      end: async (owner, token) => {
        const admin = await signedInPerson(app, { role: 'admin' });
        const reset = await admin.browser.graphql('mutation($id: Int!, $p: String!) { resetPassword(id: $id, newPassword: $p) }', { id: owner.id, p: 'reset by the admin' });
        expect(reset.json.data.resetPassword).toBe(true);
        return { browser: await owner.browser.signIn(owner.name, 'reset by the admin'), token };
      },
    },
    {
      name: 'the session expiring',
      ends: 'session',
      end: async (owner, token) => {
        await db().session.updateMany({ where: { accountId: owner.id }, data: { lastSeenAt: new Date(Date.now() - sessionTimes.idleMs - 1_000) } });
        return { browser: await owner.browser.signIn(owner.name, owner.password), token };
      },
    },
    {
      name: 'the token regenerated',
      ends: 'token',
      end: async (owner) => {
        const regenerated = await owner.browser.graphql('mutation { regenerateToken }');
        return { browser: owner.browser, token: regenerated.json.data.regenerateToken as string };
      },
    },
    {
      name: 'the account removed',
      ends: 'account',
      end: async (owner) => {
        const admin = await signedInPerson(app, { role: 'admin' });
        expect((await admin.browser.graphql('mutation($id: Int!) { removeAccount(id: $id) }', { id: owner.id })).json.data.removeAccount).toBe(true);
        return undefined;
      },
    },
  ];

  for (const way of ways) {
    it(`on ${way.name}: the stream ends, hears nothing after, and the owner's next one is let in`, { timeout: 60_000 }, async () => {
      const owner = await signedInPerson(app);
      const token = (await owner.browser.graphql('{ viewer { apiToken } }')).json.data.viewer.apiToken as string;
      const show = await makeShow({ episodes: [{ number: 1, airDate: '2024-01-01' }, { number: 2, airDate: '2024-01-08' }] });
      const tabs = [await open(sameOrigin(owner.browser)), await open(sameOrigin(owner.browser))];
      const scripts = [await open({ authorization: `Bearer ${token}` }), await open({ authorization: `Bearer ${token}` })];
      expect([...tabs, ...scripts].map((stream) => stream.response.status)).toEqual([200, 200, 200, 200]);
      // Let the first read of the versions happen.
      await new Promise((done) => setTimeout(done, 1_200));
      const after = await way.end(owner, token);
      // A change made after the credential ended (by a credential that stands).
      if (after) {
        const marked = await call(app, 'POST', '/api/machine/watched', { token: after.token, body: { kind: 'episode', id: show.episodes[0]!.id, watched: true } });
        expect(marked.status).toBe(200);
        // The owner's next tab (or script) is let in at once: the ended credential's streams no longer count.
        const next = way.ends === 'token' ? await open({ authorization: `Bearer ${after.token}` }) : await open(sameOrigin(after.browser));
        expect(next.response.status).toBe(200);
        await next.close();
      }
      const [ended, standing] = way.ends === 'token' ? [scripts, tabs] : way.ends === 'session' ? [tabs, scripts] : [[...tabs, ...scripts], []];
      for (const stream of ended) expect(await stream.untilEnd(5_000)).toEqual({ ended: true, events: 0 });
      // The credential that stands hears the change its account's ended one did not.
      for (const stream of standing) expect((await stream.next())?.data?.libraryChanged.feedVersion).toBeGreaterThan(0);
      for (const stream of [...tabs, ...scripts]) await stream.close();
    });
  }
});
