import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';

const { app } = await useTestApp();

/** An account following one show with an aired and a coming episode; the aired one's id is returned too. */
async function followingAccount() {
  const account = await makeAccount();
  const today = localDate('UTC', new Date());
  const show = await makeShow({ episodes: [{ number: 1, airDate: addDays(today, -3) }, { number: 2, airDate: addDays(today, 2) }] });
  await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  return { account, episodeId: show.episodes[0]!.id };
}

const feeds = ['/api/machine/summary', '/api/machine/releases', '/api/machine/airing', '/api/machine/widget'];

describe('feed validators (ETag, If-None-Match)', () => {
  it.each(feeds)('%s: 304 without a body for its own ETag, plain or weak or in a list, HEAD too', async (path) => {
    const { account } = await followingAccount();
    const first = await call(app, 'GET', path, { token: account.token });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await call(app, 'GET', path, { token: account.token, headers: { 'if-none-match': ifNoneMatch } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    const head = await call(app, 'HEAD', path, { token: account.token, headers: { 'if-none-match': etag } });
    expect(head.status).toBe(304);
    // Another tag, or none: the whole body, byte-identical while nothing changed (generatedAt included).
    const other = await call(app, 'GET', path, { token: account.token, headers: { 'if-none-match': '"summary-x-1"' } });
    expect(other.status).toBe(200);
    expect(other.text).toBe(first.text);
  });

  it.each(feeds)('%s: a watched toggle answers 200 with a new ETag to the old one', async (path) => {
    const { account, episodeId } = await followingAccount();
    const before = await call(app, 'GET', path, { token: account.token });
    const etag = before.headers.get('etag')!;
    const toggled = await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: episodeId, watched: true } });
    expect(toggled.status, toggled.text).toBe(200);
    const after = await call(app, 'GET', path, { token: account.token, headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    const revalidated = await call(app, 'GET', path, { token: account.token, headers: { 'if-none-match': after.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
  });

  it('keeps ETags apart by account and by summary limit', async () => {
    const { account } = await followingAccount();
    const { account: twin } = await followingAccount();
    const own = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).headers.get('etag')!;
    const theirs = await call(app, 'GET', '/api/machine/summary', { token: twin.token, headers: { 'if-none-match': own } });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('etag')).not.toBe(own);
    const limited = await call(app, 'GET', '/api/machine/summary?limit=1', { token: account.token, headers: { 'if-none-match': own } });
    expect(limited.status).toBe(200);
    expect(limited.headers.get('etag')).not.toBe(own);
  });

  it('checks the token and the parameters before answering 304', async () => {
    const { account } = await followingAccount();
    const etag = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).headers.get('etag')!;
    const anonymous = await call(app, 'GET', '/api/machine/summary', { headers: { 'if-none-match': etag } });
    expect(anonymous.status).toBe(401);
    const badLimit = await call(app, 'GET', '/api/machine/summary?limit=abc', { token: account.token, headers: { 'if-none-match': etag } });
    expect(badLimit.status).toBe(400);
  });
});
