import { describe, expect, it } from 'vitest';
import { showToken } from '../../src/accounts/tokens.ts';
import { db } from '../../src/db/client.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { useTestDatabase } from '../support/database.ts';
import { makePerson } from '../support/browser.ts';
import { openEventStream } from '../support/event-stream.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

// Two real `serve` processes on one database (the PostgreSQL run is the one that matters: several
// processes behind a load balancer): a stream opened on the first hears of a mark made through
// the second, and a stopping server ends its stream (the client sees the end, and it reconnects
// elsewhere), rather than holding the shutdown. A stream on the first ends when the session or
// token that opened it is ended through the second, in every way that ends one, hearing nothing
// of a change made after, and the owner's next stream on the first is let in.
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config, { AIRDATE_ROLE: 'web', AIRDATE_LIVE_STREAMS_PER_CREDENTIAL: '2', AIRDATE_LIVE_STREAMS_PER_ACCOUNT: '4' });

const subscription = encodeURIComponent('subscription { libraryChanged { feedVersion } }');

/** A browser on a real server: its session cookie, and GraphQL as the web app sends it. */
class ProcessBrowser {
  cookie = '';
  constructor(readonly baseUrl: string) {}
  async graphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: this.baseUrl, ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      if (pair.startsWith('airdate_session=')) this.cookie = pair.endsWith('=') ? '' : pair;
    }
    return (await response.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] };
  }
  async signIn(name: string, password: string) {
    const answer = await this.graphql('mutation($n: String!, $p: String!) { signIn(name: $n, password: $p) { name } }', { n: name, p: password });
    if (!answer.data?.signIn) throw new Error(`sign-in failed: ${JSON.stringify(answer)}`);
    return this;
  }
}

describe('live updates across server processes', () => {
  it('a mark made through one process reaches a stream open on another; a stopping server ends its stream', { timeout: 90_000 }, async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2024-01-01' }] });
    const [first, second] = await Promise.all([serve(), serve()]);
    const stream = await openEventStream(`${first.baseUrl}/graphql?query=${subscription}`, { authorization: `Bearer ${account.token}` });
    expect(stream.response.status).toBe(200);
    // The first process reads the account's versions when the stream opens; give it that read.
    await new Promise((done) => setTimeout(done, 1_500));
    const marked = await fetch(`${second.baseUrl}/api/machine/watched`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: show.episodes[0]!.id, watched: true }),
    });
    expect(marked.status).toBe(200);
    expect(await stream.next(15_000)).toEqual({ data: { libraryChanged: { feedVersion: expect.any(Number) } } });

    // SIGTERM: the stream ends at once (not after the 25 s bound for requests under way).
    const started = Date.now();
    const stopping = first.stop();
    expect(await stream.untilEnd(20_000)).toEqual({ ended: true, events: 0 });
    await stopping;
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a stream on one process ends when its session or token is ended through the other, however it ends', { timeout: 240_000 }, async () => {
    const [first, second] = await Promise.all([serve(), serve()]);
    const streamUrl = `${first.baseUrl}/graphql?query=${subscription}`;
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2024-01-01' }] });
    const admin = await makePerson({ role: 'admin' });
    const adminBrowser = await new ProcessBrowser(second.baseUrl).signIn(admin.name, admin.password);
    // The removal first: its transaction on SQLite is best not raced by the other ways' writes.
    const ways = ['account removed', 'sign-out', 'sign-out everywhere', 'password change', 'reset by an administrator', 'session expiry', 'token regenerated'] as const;
    // Each person signs in on the second process and streams from the first (the session is the
    // database's): two tabs of the session, two streams of the token, the account's four places.
    // One at a time: the server hashes at most four passwords at once for one address.
    const people = [];
    for (const way of ways) {
      const person = await makePerson();
      const token = await showToken({ accountId: person.id });
      const browser = await new ProcessBrowser(second.baseUrl).signIn(person.name, person.password);
      const tab = { cookie: browser.cookie, 'sec-fetch-site': 'same-origin' };
      const tabs = [await openEventStream(streamUrl, tab), await openEventStream(streamUrl, tab)];
      const scripts = [await openEventStream(streamUrl, { authorization: `Bearer ${token}` }), await openEventStream(streamUrl, { authorization: `Bearer ${token}` })];
      expect([...tabs, ...scripts].map((stream) => stream.response.status), way).toEqual([200, 200, 200, 200]);
      people.push({ way, person, token, browser, tabs, scripts });
    }
    // The first process reads each account's versions when its streams open.
    await new Promise((done) => setTimeout(done, 1_500));

    for (const { way, person, token, browser } of people) {
      // Ended through the second process (expiry: the row's time passed).
      let password = person.password;
      let standingToken = token;
      if (way === 'sign-out') expect((await browser.graphql('mutation { signOut }')).data?.signOut).toBe(true);
      if (way === 'sign-out everywhere') expect((await browser.graphql('mutation { signOutEverywhere }')).data?.signOutEverywhere).toBe(true);
      if (way === 'password change') {
        password = 'changed through the second';
        const changed = await browser.graphql('mutation($c: String, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }', { c: person.password, n: password });
        expect(changed.data?.changePassword).toBe(true);
      }
      if (way === 'reset by an administrator') {
        password = 'reset through the second';
        const reset = await adminBrowser.graphql('mutation($id: Int!, $p: String!) { resetPassword(id: $id, newPassword: $p) }', { id: person.id, p: password });
        expect(reset.data?.resetPassword).toBe(true);
      }
      if (way === 'session expiry') await db().session.updateMany({ where: { accountId: person.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
      if (way === 'token regenerated') standingToken = (await browser.graphql('mutation { regenerateToken }')).data?.regenerateToken as string;
      if (way === 'account removed') {
        const removed = await adminBrowser.graphql('mutation($id: Int!) { removeAccount(id: $id) }', { id: person.id });
        expect(removed.data?.removeAccount, JSON.stringify(removed)).toBe(true);
        continue;
      }
      // A change after the credential ended, through the second process, by a credential that stands.
      const marked = await fetch(`${second.baseUrl}/api/machine/watched`, {
        method: 'POST',
        headers: { authorization: `Bearer ${standingToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'episode', id: show.episodes[0]!.id, watched: true }),
      });
      expect(marked.status, way).toBe(200);
      // The owner's next stream on the first process is let in: the ended credential's no longer count.
      const again =
        way === 'token regenerated'
          ? await openEventStream(streamUrl, { authorization: `Bearer ${standingToken}` })
          : await openEventStream(streamUrl, { cookie: (await new ProcessBrowser(second.baseUrl).signIn(person.name, password)).cookie, 'sec-fetch-site': 'same-origin' });
      expect(again.response.status, way).toBe(200);
      await again.close();
    }

    for (const { way, tabs, scripts } of people) {
      const [ended, standing] = way === 'token regenerated' ? [scripts, tabs] : way === 'account removed' ? [[...tabs, ...scripts], []] : [tabs, scripts];
      for (const stream of ended) expect(await stream.untilEnd(5_000), way).toEqual({ ended: true, events: 0 });
      // The credential that stands hears the change the ended one did not.
      for (const stream of standing) expect(await stream.next(5_000), way).toEqual({ data: { libraryChanged: { feedVersion: expect.any(Number) } } });
      for (const stream of [...tabs, ...scripts]) await stream.close();
    }
  });
});
