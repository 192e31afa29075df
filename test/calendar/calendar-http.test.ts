import { describe, expect, it } from 'vitest';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { db, queryCounter } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { calendarRenderCount } from '../../src/calendar/calendar-route.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { expectWellFormedLines, parseBoth } from './parse-ics.ts';

const { app } = await useTestApp();

/** GET (or HEAD) the calendar with `?token=` and return the raw bytes, for byte-level checks. */
async function fetchIcs(token: string, query = '', init: { method?: string; headers?: Record<string, string> } = {}) {
  const url = new URL(`/api/calendar.ics?${query}`, 'http://airdate.test');
  url.searchParams.set('token', token);
  const response = await app.fetch(new Request(url, { method: init.method ?? 'GET', headers: init.headers }));
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/**
 * An account in `timezone` following a show with episodes on and just outside the default
 * window's edges (local today − 30 … + 365), a special today, an episode without a date, an
 * archived show, an unfollowed show, and followed and unfollowed movies and games.
 */
async function populated(timezone: string) {
  const account = await makeAccount({ timezone });
  const today = localDate(timezone, new Date());
  const { episodes, ...show } = await makeShow({
    title: 'Alpha Hour',
    episodes: [
      { number: 1, airDate: addDays(today, -31), title: 'Too Old' },
      { number: 2, airDate: addDays(today, -30), title: 'Oldest' },
      { number: 3, airDate: today, title: 'Pilot, Part 2; Finale' },
      { number: 4, airDate: addDays(today, 365), title: null },
      { number: 5, airDate: addDays(today, 366) },
      { number: 6, airDate: null },
      { season: 0, number: 1, airDate: today, title: 'Behind the Scenes' },
    ],
  });
  const archived = await makeShow({ title: 'Archived Show', episodes: [{ number: 1, airDate: today }] });
  const unfollowed = await makeShow({ title: 'Unfollowed Show', episodes: [{ number: 1, airDate: today }] });
  const movie = await makeMovie({ title: 'Northbound Static', releaseDate: addDays(today, 1) });
  const undated = await makeMovie({ title: 'Someday', releaseDate: null });
  const game = await makeGame({ title: 'Lantern Quest', releaseDate: addDays(today, -2) });
  const otherGame = await makeGame({ title: 'Not Followed', releaseDate: today });
  for (const [kind, id] of [['show', show.id], ['show', archived.id], ['movie', movie.id], ['movie', undated.id], ['game', game.id]] as const) {
    await setFollow({ accountId: account.id, kind, id, followed: true });
  }
  await setFollow({ accountId: account.id, kind: 'show', id: archived.id, archived: true });
  // Watched items stay in the calendar: it lists releases, not a to-do list.
  const episode = (season: number, number: number) => episodes.find((row) => row.season === season && row.number === number)!;
  await setWatched({ accountId: account.id, kind: 'episode', id: episode(1, 3).id, watched: true });
  void unfollowed;
  void otherGame;
  return { account, today, show: { ...show, episodes }, episode, movie, game };
}

describe('GET /api/calendar.ics', () => {
  it.each(['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC'])('lists the window around local today in %s, read alike by two parsers', async (timezone) => {
    const { account, today, show, episode } = await populated(timezone);
    const response = await fetchIcs(account.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]{32}"$/);
    expectWellFormedLines(response.bytes);

    const text = response.bytes.toString('utf8');
    expect(text).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n');
    expect(text).toContain('X-PUBLISHED-TTL:PT1H\r\n');
    const calendar = parseBoth(text);
    expect(calendar.name).toBe(`Airdate — ${account.name}`);
    expect(calendar.events.map(({ start, end, summary }) => ({ start, end, summary }))).toEqual([
      { start: addDays(today, -30), end: addDays(today, -29), summary: 'Alpha Hour S01E02 · Oldest' },
      { start: addDays(today, -2), end: addDays(today, -1), summary: 'Lantern Quest' },
      { start: today, end: addDays(today, 1), summary: 'Alpha Hour S00E01 · Behind the Scenes' },
      { start: today, end: addDays(today, 1), summary: 'Alpha Hour S01E03 · Pilot, Part 2; Finale' },
      { start: addDays(today, 1), end: addDays(today, 2), summary: 'Northbound Static' },
      { start: addDays(today, 365), end: addDays(today, 366), summary: 'Alpha Hour S01E04' },
    ]);
    // DTSTAMP is the item's last change (the later of the episode's and its show's), to the second.
    const changedAt = Math.max(show.updatedAt.getTime(), episode(1, 2).updatedAt.getTime());
    expect(calendar.events[0]!.stamp).toBe(new Date(Math.floor(changedAt / 1000) * 1000).toISOString());
    expect(new Set(calendar.events.map((event) => event.uid)).size).toBe(6);
    for (const event of calendar.events) expect(event.uid).toMatch(/^[0-9a-f]{32}@airdate$/);
  });

  it('narrows with ?past=, ?future= and ?kinds=', async () => {
    const { account, today } = await populated('Asia/Tokyo');
    const starts = async (query: string) => parseBoth((await fetchIcs(account.token, query)).bytes.toString('utf8')).events.map((event) => `${event.start} ${event.summary}`);
    expect(await starts('past=0&future=0')).toEqual([`${today} Alpha Hour S00E01 · Behind the Scenes`, `${today} Alpha Hour S01E03 · Pilot, Part 2; Finale`]);
    expect(await starts('past=2&future=1&kinds=movie,game')).toEqual([`${addDays(today, -2)} Lantern Quest`, `${addDays(today, 1)} Northbound Static`]);
    expect(await starts('kinds=game')).toEqual([`${addDays(today, -2)} Lantern Quest`]);
    expect(await starts('past=400&future=400&kinds=episode')).toHaveLength(6);
  });

  it('answers bad parameters with 400 and bad tokens with 401, as JSON errors', async () => {
    const account = await makeAccount();
    for (const query of ['past=-1', 'past=abc', 'past=3651', 'past=1.5', 'past=', 'future=1e3', 'future=%207', 'past=1&past=2', 'kinds=show', 'kinds=', 'kinds=episode,,movie', 'kinds=EPISODE']) {
      const response = await call(app, 'GET', `/api/calendar.ics?${query}`, { queryToken: account.token });
      expect(response.status, query).toBe(400);
      expect(Object.keys(response.json), query).toEqual(['error']);
    }
    expect((await call(app, 'GET', '/api/calendar.ics?past=3650&future=3650', { queryToken: account.token })).status).toBe(200);
    for (const options of [{}, { queryToken: 'adt_not-a-token' }, { token: 'adt_not-a-token' }]) {
      const response = await call(app, 'GET', '/api/calendar.ics', options);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(response.json)).toEqual(['error']);
    }
    expect((await call(app, 'POST', '/api/calendar.ics', { queryToken: account.token })).status).toBe(405);
  });

  it('answers If-None-Match with 304 and HEAD with the headers alone', async () => {
    const { account } = await populated('Europe/Berlin');
    const full = await fetchIcs(account.token);
    const etag = full.headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await fetchIcs(account.token, '', { headers: { 'if-none-match': ifNoneMatch } });
      expect(cached.status).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect(cached.headers.get('etag')).toBe(etag);
      expect(cached.headers.get('cache-control')).toBe('private, no-cache');
    }
    expect((await fetchIcs(account.token, '', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);

    const head = await fetchIcs(account.token, '', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    for (const name of ['etag', 'content-type', 'content-length', 'cache-control', 'referrer-policy']) expect(head.headers.get(name), name).toBe(full.headers.get(name));
    expect(Number(head.headers.get('content-length'))).toBe(full.bytes.length);
    expect((await fetchIcs(account.token, '', { method: 'HEAD', headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('gives byte-identical output until the library changes: the header token, watched toggles and other accounts’ writes change nothing', async () => {
    const { account, today, show, episode } = await populated('America/New_York');
    const first = await fetchIcs(account.token);
    const etag = first.headers.get('etag');
    expect((await fetchIcs(account.token)).bytes.equals(first.bytes)).toBe(true);
    const viaHeader = await call(app, 'GET', '/api/calendar.ics', { token: account.token });
    expect(viaHeader.text).toBe(first.bytes.toString('utf8'));
    expect(viaHeader.headers.get('etag')).toBe(etag);

    // The calendar lists releases, not watch state: a toggle keeps the ETag (and the cached body).
    await setWatched({ accountId: account.id, kind: 'episode', id: episode(1, 2).id, watched: true });
    const other = await makeAccount();
    await setFollow({ accountId: other.id, kind: 'show', id: show.id, followed: true });
    await setWatched({ accountId: other.id, kind: 'episode', id: show.episodes[1]!.id, watched: true });
    const afterToggles = await fetchIcs(account.token);
    expect(afterToggles.headers.get('etag')).toBe(etag);
    expect(afterToggles.bytes.equals(first.bytes)).toBe(true);

    // A catalog change to a show this account does not follow: the same bytes under a new ETag
    // (the ETag is the catalog's version, not a hash of the body).
    const stranger = await makeShow({ title: 'Stranger', episodes: [{ number: 1, airDate: today }] });
    await storeCatalogRecords([{ kind: 'show', ids: { tmdb: stranger.tmdbId! }, title: 'Stranger Renamed', poster: null, overview: null, episodes: [] }]);
    const after = await fetchIcs(account.token, '', { headers: { 'if-none-match': etag! } });
    expect(after.status).toBe(200);
    expect(after.bytes.equals(first.bytes)).toBe(true);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('answers a matching If-None-Match before loading or rendering anything, also when the body is no longer cached', async () => {
    const { account, show } = await populated('Europe/Lisbon');
    const first = await fetchIcs(account.token);
    const etag = first.headers.get('etag')!;
    const measure = async (query: string, headers: Record<string, string> = {}) => {
      const [queries, renders] = [queryCounter(), calendarRenderCount()];
      const response = await fetchIcs(account.token, query, { headers });
      return { response, queries: queryCounter() - queries, renders: calendarRenderCount() - renders };
    };
    // The token check's queries: what a cached 200 costs.
    const cached = await measure('');
    expect([cached.response.status, cached.renders]).toEqual([200, 0]);
    // Other parameters take the account's one cache slot: the default calendar's body is gone.
    const narrowed = await measure('kinds=movie');
    expect([narrowed.response.status, narrowed.renders]).toEqual([200, 1]);
    for (const method of ['GET', 'HEAD']) {
      const [queries, renders] = [queryCounter(), calendarRenderCount()];
      const revalidated = await fetchIcs(account.token, '', { method, headers: { 'if-none-match': etag } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(calendarRenderCount() - renders).toBe(0);
      expect(queryCounter() - queries).toBeLessThanOrEqual(cached.queries);
    }
    // The narrowed calendar has an ETag of its own; a follow change makes both stale.
    expect(narrowed.response.headers.get('etag')).not.toBe(etag);
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, archived: true });
    const changed = await measure('', { 'if-none-match': etag });
    expect([changed.response.status, changed.renders]).toEqual([200, 1]);
    expect(changed.response.headers.get('etag')).not.toBe(etag);
  });

  it('renders once for concurrent requests of the same calendar', async () => {
    const { account } = await populated('UTC');
    const renders = calendarRenderCount();
    const responses = await Promise.all(Array.from({ length: 5 }, () => fetchIcs(account.token)));
    expect(calendarRenderCount() - renders).toBe(1);
    for (const response of responses) expect(response.bytes.equals(responses[0]!.bytes)).toBe(true);
  });

  it('drops a show the account unfollows or archives after a first fetch, with a new ETag', async () => {
    const { account, show, movie } = await populated('UTC');
    const summaries = async () => {
      const response = await fetchIcs(account.token);
      return { etag: response.headers.get('etag'), titles: parseBoth(response.bytes.toString('utf8')).events.map((event) => event.summary) };
    };
    const first = await summaries();
    expect(first.titles.some((title) => title.startsWith('Alpha Hour'))).toBe(true);
    expect(first.titles).toContain('Northbound Static');
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, archived: true });
    const archived = await summaries();
    expect(archived.titles.some((title) => title.startsWith('Alpha Hour'))).toBe(false);
    expect(archived.etag).not.toBe(first.etag);
    await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: false });
    const unfollowed = await summaries();
    expect(unfollowed.titles).not.toContain('Northbound Static');
    expect(unfollowed.etag).not.toBe(archived.etag);
  });

  it('changes the ETag and that event’s DTSTAMP alone when an episode changes', async () => {
    const { account, show } = await populated('UTC');
    // An hour back, so the change below gets a later DTSTAMP even at DTSTAMP's one-second precision.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await db().show.update({ where: { id: show.id }, data: { updatedAt: anHourAgo } });
    await db().episode.updateMany({ where: { showId: show.id }, data: { updatedAt: anHourAgo } });
    const before = await fetchIcs(account.token);
    const episodes = show.episodes.map(({ season, number, title, airDate }) => ({ season, number, title, airDate }));
    episodes.find((row) => row.season === 1 && row.number === 3)!.title = 'Pilot (Director’s Cut)';
    await storeCatalogRecords([{ kind: 'show', ids: { tmdb: show.tmdbId! }, title: show.title, poster: null, overview: null, episodes }]);
    const after = await fetchIcs(account.token, '', { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const [old, fresh] = [before, after].map((response) => parseBoth(response.bytes.toString('utf8')).events);
    const changed = fresh!.findIndex((event) => event.summary === 'Alpha Hour S01E03 · Pilot (Director’s Cut)');
    expect(changed).toBeGreaterThanOrEqual(0);
    expect(fresh!.map((event) => event.uid)).toEqual(old!.map((event) => event.uid));
    expect(Date.parse(fresh![changed]!.stamp)).toBeGreaterThan(Date.parse(old![changed]!.stamp));
    fresh!.forEach((event, index) => index !== changed && expect(event.stamp).toBe(old![index]!.stamp));
  });

  it('is the GraphQL calendar field rendered: same UIDs, dates and summaries', async () => {
    const { account } = await populated('Australia/Sydney');
    const { json } = await graphql(app, account.token, '{ calendar(past: 30, future: 365) { name events { uid kind date summary updatedAt } } }');
    const ics = parseBoth((await fetchIcs(account.token)).bytes.toString('utf8'));
    expect(json.data.calendar.events.map((event: { uid: string; date: string; summary: string }) => [event.uid, event.date, event.summary])).toEqual(
      ics.events.map((event) => [event.uid, event.start, event.summary]),
    );
    const bad = await graphql(app, account.token, '{ calendar(past: -1) { name } }');
    expect(bad.json.errors[0]).toMatchObject({ message: 'past must be a whole number of days from 0 to 3650', extensions: { code: 'BAD_INPUT' } });
  });
});
