import { describe, expect, it, vi } from 'vitest';
import { db, queryCounter } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { generateToken, isWellFormedToken } from '../../src/keys/token-format.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';

const { app } = await useTestApp();

const today = () => localDate('UTC', new Date());

/** An account following one show with two aired episodes (first watched), one airing today, one next week. */
async function libraryFixture() {
  const account = await makeAccount();
  const show = await makeShow({
    title: 'Sunday Science',
    poster: 'https://images.example/sunday.jpg',
    episodes: [
      { number: 1, airDate: addDays(today(), -14) },
      { number: 2, airDate: addDays(today(), -7), title: 'Second' },
      { number: 3, airDate: today() },
      { number: 4, airDate: addDays(today(), 7) },
    ],
  });
  const movie = await makeMovie({ title: 'Tomorrow Movie', releaseDate: addDays(today(), 1) });
  await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  await setWatched({ accountId: account.id, kind: 'episode', id: show.episodes[0]!.id, watched: true });
  return { account, show, movie };
}

describe('GET /api/machine/summary', () => {
  it('answers the summary object with the spec fields', async () => {
    const { account, show, movie } = await libraryFixture();
    const response = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const summary = response.json;
    expect(Object.keys(summary)).toEqual(['generatedAt', 'counts', 'next', 'upNext', 'today', 'week', 'releasing']);
    expect(summary.generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(summary.counts).toEqual({ upNext: 1, airingToday: 1, airingWeek: 1, unwatchedEpisodes: 2 });
    const second = show.episodes[1]!;
    expect(summary.next).toEqual({
      kind: 'episode', id: second.id, title: 'Sunday Science', show: 'Sunday Science', show_id: show.id,
      episode: 'S01E02', season: 1, number: 2, episode_title: 'Second', air_date: addDays(today(), -7),
      poster: 'https://images.example/sunday.jpg',
    });
    expect(summary.upNext).toEqual([summary.next]);
    expect(summary.today.map((item: any) => item.episode)).toEqual(['S01E03']);
    expect(summary.week.map((item: any) => item.episode)).toEqual(['S01E03']);
    expect(summary.releasing.map((item: any) => [item.kind, item.id])).toEqual([
      ['episode', show.episodes[2]!.id],
      ['movie', movie.id],
    ]);
    expect(summary.releasing[1]).toEqual({ kind: 'movie', id: movie.id, title: 'Tomorrow Movie', air_date: addDays(today(), 1), poster: null });
  });

  it('accepts the token as ?token= and answers HEAD without a body', async () => {
    const { account } = await libraryFixture();
    const viaQuery = await call(app, 'GET', '/api/machine/summary', { queryToken: account.token });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.json.counts.upNext).toBe(1);
    const head = await call(app, 'HEAD', '/api/machine/summary', { token: account.token });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('gives an empty feed to a new account', async () => {
    const account = await makeAccount();
    const { json } = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(json).toMatchObject({ counts: { upNext: 0, airingToday: 0, airingWeek: 0, unwatchedEpisodes: 0 }, next: null, upNext: [], today: [], week: [], releasing: [] });
  });

  it("dates every feed in the account's time zone, and moves them when the zone changes", async () => {
    // Kiritimati (UTC+14) and Pago Pago (UTC-11) are always on different calendar dates.
    const now = new Date();
    const ahead = localDate('Pacific/Kiritimati', now);
    const show = await makeShow({ title: 'Date Line', episodes: [{ number: 1, airDate: ahead }] });
    const east = await makeAccount({ timezone: 'Pacific/Kiritimati' });
    const west = await makeAccount({ timezone: 'Pacific/Pago_Pago' });
    for (const account of [east, west]) await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    const summary = async (token: string) => (await call(app, 'GET', '/api/machine/summary', { token })).json;
    expect((await summary(east.token)).today.map((item: { air_date: string }) => item.air_date)).toEqual([ahead]);
    expect((await summary(west.token)).today).toEqual([]);
    await updateAccount({ name: west.name, timezone: 'Pacific/Kiritimati' });
    expect((await summary(west.token)).today).toHaveLength(1);
  });

  it('reflects a write at once (no stale cache)', async () => {
    const { account, show } = await libraryFixture();
    await call(app, 'GET', '/api/machine/summary', { token: account.token });
    await setWatched({ accountId: account.id, kind: 'episode', id: show.episodes[1]!.id, watched: true });
    const after = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(after.json.counts.unwatchedEpisodes).toBe(1);
    expect(after.json.next.episode).toBe('S01E03');
  });

  it('follows catalog changes at once: a new episode and a moved air date', async () => {
    const { account, show } = await libraryFixture();
    const before = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).json;
    expect(before.today.map((item: any) => item.episode)).toEqual(['S01E03']);
    await storeCatalogRecords([{
      kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title, poster: show.poster, overview: null,
      episodes: [
        { season: 1, number: 3, title: 'Moved', airDate: addDays(today(), 2) },
        { season: 1, number: 5, title: 'New', airDate: today() },
      ],
    }]);
    const after = (await call(app, 'GET', '/api/machine/summary', { token: account.token })).json;
    expect(after.today.map((item: any) => item.episode)).toEqual(['S01E05']);
    expect(after.week.map((item: any) => item.episode)).toEqual(['S01E05', 'S01E03']);
  });

  it('loads the feed in a fixed number of queries whatever the library size', async () => {
    const small = await libraryFixture();
    const large = await makeAccount();
    for (let index = 0; index < 15; index += 1) {
      const show = await makeShow({ episodes: [{ number: 1, airDate: addDays(today(), -1) }, { number: 2, airDate: today() }] });
      await setFollow({ accountId: large.id, kind: 'show', id: show.id, followed: true });
      const game = await makeGame({ releaseDate: today() });
      await setFollow({ accountId: large.id, kind: 'game', id: game.id, followed: true });
    }
    const queriesFor = async (token: string, accountId: number) => {
      // The first request records the token's use; a write then makes the next feed a fresh one.
      await call(app, 'GET', '/api/machine/summary', { token });
      await db().account.update({ where: { id: accountId }, data: { feedVersion: { increment: 1 } } });
      const before = queryCounter();
      const response = await call(app, 'GET', '/api/machine/summary', { token });
      expect(response.status).toBe(200);
      return queryCounter() - before;
    };
    const smallQueries = await queriesFor(small.account.token, small.account.id);
    const largeQueries = await queriesFor(large.token, large.id);
    expect(largeQueries).toBe(smallQueries);
    // One to authenticate, three to load the library; the shows' episodes come from the catalog cache.
    expect(largeQueries).toBe(4);
    // A catalog change empties the episode cache: one more query, whatever the number of shows.
    const bumpCatalog = () => db().serverState.upsert({ where: { id: 1 }, create: { id: 1, catalogVersion: 1 }, update: { catalogVersion: { increment: 1 } } });
    await bumpCatalog();
    const before = queryCounter();
    await call(app, 'GET', '/api/machine/summary', { token: large.token });
    expect(queryCounter() - before).toBe(5);
  });
});

describe('authentication', () => {
  const cases: [string, Record<string, string>, string | undefined][] = [
    ['no token', {}, undefined],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }, undefined],
    ['a bearer with nothing', { authorization: 'Bearer ' }, undefined],
    ['a malformed token', { authorization: 'Bearer not-a-token' }, undefined],
    ['a bare prefix as ?token=', {}, 'adt_'],
    ['a malformed ?token=', {}, 'garbage'],
  ];
  it.each(cases)('401 with a JSON error for %s', async (_name, headers, queryToken) => {
    const response = await call(app, 'GET', '/api/machine/summary', { headers, queryToken });
    expect(response.status).toBe(401);
    expect(Object.keys(response.json)).toEqual(['error']);
    expect(typeof response.json.error).toBe('string');
  });

  it('401 for a well-formed token (valid checksum) that no account has', async () => {
    await makeAccount();
    const unknown = generateToken();
    expect(isWellFormedToken(unknown)).toBe(true);
    const response = await call(app, 'GET', '/api/machine/summary', { token: unknown });
    expect(response.status).toBe(401);
    expect(Object.keys(response.json)).toEqual(['error']);
  });
});

describe('routing', () => {
  it('answers unknown /api paths with a JSON 404', async () => {
    const response = await call(app, 'GET', '/api/machine/nothing-here');
    expect(response.status).toBe(404);
    expect(Object.keys(response.json)).toEqual(['error']);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const account = await makeAccount();
    const post = await call(app, 'POST', '/api/machine/summary', { token: account.token, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.json).toEqual({ error: 'method POST is not allowed here; use GET, HEAD' });
    const get = await call(app, 'GET', '/api/machine/watched', { token: account.token });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    // Every other method on every path, the open ones too; without a token as well (the method is
    // checked first), and nothing is logged as an error.
    const errors = vi.spyOn(app.logger, 'error');
    const allowed: [string, string][] = [
      ['/api/machine/summary', 'GET, HEAD'],
      ['/api/machine/follow', 'POST'],
      ['/api/export', 'GET, HEAD'],
      ['/api/import/trakt', 'POST'],
      ['/api/calendar.ics', 'GET, HEAD'],
      ['/healthz', 'GET, HEAD'],
      ['/readyz', 'GET, HEAD'],
    ];
    for (const [path, allow] of allowed) {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        for (const token of [account.token, undefined]) {
          const response = await call(app, method, path, { token, body: method === 'OPTIONS' ? undefined : {} });
          expect([response.status, response.headers.get('allow')], `${method} ${path}`).toEqual([405, allow]);
          expect(Object.keys(response.json)).toEqual(['error']);
        }
      }
    }
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it('ignores a trailing slash and answers HEAD wherever GET works', async () => {
    const account = await makeAccount();
    for (const path of ['/api/machine/summary', '/api/machine/releases', '/api/machine/airing', '/api/machine/widget', '/api/calendar.ics']) {
      const slashed = await call(app, 'GET', `${path}/`, { token: account.token });
      expect(slashed.status, path).toBe(200);
      const head = await call(app, 'HEAD', path, { token: account.token });
      expect([head.status, head.text], path).toEqual([200, '']);
    }
  });

  it('serves health and readiness without a token', async () => {
    expect((await call(app, 'GET', '/healthz')).json).toEqual({ ok: true });
    expect((await call(app, 'GET', '/readyz')).json).toMatchObject({ ok: true, database: 'ok' });
  });
});
