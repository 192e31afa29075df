import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/node-server.ts';
import { setWatched } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { signedInPerson, type Browser } from '../support/browser.ts';
import { makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';

// The libraryChanged subscription over server-sent events, through a real HTTP server (a client
// going away must end its stream on the server): an event after a change
// made over REST (and none for another account's), the session's same-origin rule, a token's
// stream, the per-account bound (429 with a clear message, freed when a stream closes), and no
// stream without an account.
const { app } = await useTestApp({ AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '2' });
const server = createHttpServer(app);
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const subscription = 'subscription LibraryChanged { libraryChanged { feedVersion calendarVersion catalogVersion } }';

/** Opens a stream as the web app's EventSource does (a GET, same-origin), or with other headers. */
async function open(headers: Record<string, string>) {
  const url = new URL('/graphql', baseUrl);
  url.searchParams.set('query', subscription);
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = response.body!.getReader();
  let buffered = '';
  /** The next `event: next` of the stream, parsed (waits up to `ms`). */
  const next = async (ms = 10_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = /event: next\ndata: (.*)\n\n/.exec(buffered);
      if (match) {
        buffered = buffered.slice(match.index + match[0].length);
        return JSON.parse(match[1]!) as { data?: { libraryChanged: { feedVersion: number } }; errors?: { message: string }[] };
      }
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      const chunk = await Promise.race([reader.read(), new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), left))]);
      if (chunk === 'timeout') return undefined;
      if (chunk.done) return undefined;
      buffered += new TextDecoder().decode(chunk.value);
    }
  };
  /** Everything up to the end of the answer (a refusal's whole body). */
  const rest = async () => {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return buffered;
      buffered += new TextDecoder().decode(chunk.value);
    }
  };
  const close = async () => {
    await reader.cancel().catch(() => undefined);
    controller.abort();
  };
  return { response, next, rest, close };
}

const sameOrigin = (browser: Browser) => ({ cookie: browser.cookie!, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });

describe('libraryChanged over server-sent events', () => {
  it("tells an open stream of a change made over REST, and not of another account's", { timeout: 30_000 }, async () => {
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

  it('holds at most the bound of streams per account, refuses the next with 429 and a clear message, and frees a place when one closes', { timeout: 30_000 }, async () => {
    const dave = await signedInPerson(app);
    const first = await open(sameOrigin(dave.browser));
    const second = await open(sameOrigin(dave.browser));
    const third = await open(sameOrigin(dave.browser));
    expect(third.response.status).toBe(429);
    expect(await third.rest()).toContain('this account already has 2 live update streams open (one per browser tab)');
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
    // A token opens a stream too (for scripts), under the same bound.
    const token = (await dave.browser.graphql('{ viewer { apiToken } }')).json.data.viewer.apiToken as string;
    const withToken = await open({ authorization: `Bearer ${token}` });
    expect(withToken.response.status).toBe(429);
    await second.close();
    await again!.close();
    await theirs.close();
  });
});
