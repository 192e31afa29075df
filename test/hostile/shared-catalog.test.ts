import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { catalogLengths, maxIntColumn } from '../../src/limits.ts';
import { setFollow } from '../../src/library/library.ts';
import { json } from '../imports/fixtures.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { upload } from '../support/upload.ts';

/**
 * One account can never hurt another through the catalog rows every account shares. Imports
 * create and extend those rows, so both attacks of issue 11 are replayed: account A imports a
 * hostile file naming a show account B follows; B still gets its summary, widget, calendar and
 * search, each bounded in size. The same holds for a file with every value at its limit.
 */

const { app } = await useTestApp();
const today = localDate('UTC', new Date());

/** An Airdate export of one show by tmdb id, with `episodes`. */
const showExport = (tmdb: number, title: string, episodes: object[]) =>
  json({ format: 'airdate-export', version: 1, shows: [{ ids: { tmdb }, title, followed: true, episodes }], movies: [], games: [] });

/** Account B: follows a catalog show with an episode today, and reads everything it reads. */
async function follower() {
  const title = `Shared ${unique()}`;
  const show = await makeShow({ title, episodes: [{ number: 1, airDate: today, title: 'Today' }] });
  const account = await makeAccount();
  await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  return { account, show, title };
}

/** B's summary, widget, calendar and search all answer, each within `maxBytes`. */
async function expectServed(token: string, title: string, maxBytes: number) {
  for (const path of ['/api/machine/summary', '/api/machine/widget', '/api/machine/airing', '/api/calendar.ics']) {
    const answer = await call(app, 'GET', path, { queryToken: token });
    expect(answer.status, `${path}: ${answer.text.slice(0, 300)}`).toBe(200);
    expect(answer.text.length, path).toBeLessThan(maxBytes);
  }
  const summary = await graphql(app, token, '{ summary { upNext { title } today { episodeTitle } } }');
  expect(summary.json.errors, JSON.stringify(summary.json.errors)).toBeUndefined();
  const searched = await graphql(app, token, 'query($q: String!) { searchCatalog(query: $q) { ... on Show { title episodes { season number title airDate } } } }', { q: title });
  expect(searched.json.errors, JSON.stringify(searched.json.errors)).toBeUndefined();
  expect(searched.json.data.searchCatalog.map((show: { title: string }) => show.title)).toContain(title);
  expect(searched.text.length).toBeLessThan(maxBytes);
  return searched.json.data.searchCatalog.find((show: { title: string }) => show.title === title).episodes as { season: number; number: number; title: string }[];
}

describe('a season past 32 bits (it made every follower\'s summary and widget answer 400 "Int cannot represent…")', () => {
  it('is refused; the followers keep their feeds, and a season at the limit serves them too', async () => {
    const b = await follower();
    const a = await makeAccount();
    const hostile = showExport(b.show.tmdbId!, 'Anything', [{ season: maxIntColumn + 1, number: 1, airDate: today, history: [] }]);
    const refused = await upload(app, '/api/import/airdate', a.token, { 'export.json': hostile });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/season 2147483648 episode 1: the season is not a whole number from 0 to 2147483647$/);
    expect(await db().episode.count({ where: { showId: b.show.id } })).toBe(1);
    expect(await expectServed(b.account.token, b.title, 20_000)).toEqual([{ season: 1, number: 1, title: 'Today', airDate: today }]);

    const atLimit = showExport(b.show.tmdbId!, 'Anything', [{ season: maxIntColumn, number: maxIntColumn, title: 'Far', airDate: today, history: [] }]);
    expect((await upload(app, '/api/import/airdate', a.token, { 'export.json': atLimit })).status).toBe(200);
    const episodes = await expectServed(b.account.token, b.title, 20_000);
    expect(episodes.map((episode) => [episode.season, episode.number])).toEqual([[1, 1], [maxIntColumn, maxIntColumn]]);
  });
});

describe('titles of a megabyte (another account\'s calendar allocated until the server died)', () => {
  it('are refused for a new show and for a new episode of a followed show; at the limit every answer stays small', async () => {
    const b = await follower();
    const a = await makeAccount();
    const megabyte = 'x'.repeat(1_000_000);
    const newShow = unique();
    const refusedShow = await upload(app, '/api/import/airdate', a.token, { 'export.json': showExport(newShow, megabyte, []) });
    expect(refusedShow.status).toBe(400);
    const refusedEpisode = await upload(app, '/api/import/airdate', a.token, {
      'export.json': showExport(b.show.tmdbId!, 'Anything', [{ season: 1, number: 2, title: megabyte, airDate: today, history: [] }]),
    });
    expect(refusedEpisode.status).toBe(400);
    expect(refusedEpisode.json.error.length).toBeLessThan(200);
    expect(await db().show.count({ where: { tmdbId: newShow } })).toBe(0);
    expect(await db().episode.count({ where: { showId: b.show.id } })).toBe(1);

    // At the limit: 40 new episodes of B's show with 500-character titles, airing this week.
    const longest = 'y'.repeat(catalogLengths.title);
    const episodes = Array.from({ length: 40 }, (_, index) => ({ season: 2, number: index + 1, title: longest, airDate: addDays(today, index % 7), history: [] }));
    expect((await upload(app, '/api/import/airdate', a.token, { 'export.json': showExport(b.show.tmdbId!, longest, episodes) })).status).toBe(200);
    // Episodes a file adds to a shared show take neither title nor air date from it (issue 31, item 7:
    // only a catalog writes what others see), so B's feeds and calendar stay as they were.
    const added = await db().episode.findMany({ where: { showId: b.show.id, season: 2 } });
    expect(added).toHaveLength(40);
    expect(added.every((episode) => episode.title === null && episode.airDate === null)).toBe(true);
    // Each event, item and search result carries at most a few 500-character texts.
    await expectServed(b.account.token, b.title, 41 * 4_096);
    const calendar = await call(app, 'GET', '/api/calendar.ics', { queryToken: b.account.token });
    const events = calendar.text.split('BEGIN:VEVENT').slice(1);
    expect(events).toHaveLength(1);
    for (const event of events) expect(Buffer.byteLength(event)).toBeLessThan(4_096);
  });
});
