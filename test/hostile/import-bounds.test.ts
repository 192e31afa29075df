import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { catalogLengths, maxIntColumn } from '../../src/limits.ts';
import { bytes, grouveeHeader, grouveeRow, json, traktEpisodePlay, traktShow, tvTimeTrackingV2, tvTimeWatch, zip } from '../imports/fixtures.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { upload } from '../support/upload.ts';

/**
 * Every value an import brings in is held to the bounds of the catalog's own types before anything
 * is written (src/imports/sources/validate-document.ts): imports create catalog rows every account shares.
 * Past a bound the request is a 400 naming the file, the item, the field and the limit, and nothing
 * of it is stored; at the bound it is stored, and survives an export and an import again.
 */

const { app } = await useTestApp();

const history = (at: string) => [{ watched: true, at }];

/** An Airdate export of one show with one episode, one movie and one game; `change` edits it first. */
function airdateExport(ids: { show: number; movie: number; game: number }, change: (file: any) => void = () => {}): Uint8Array {
  const file: any = {
    format: 'airdate-export',
    version: 1,
    shows: [
      {
        ids: { tmdb: ids.show },
        title: 'Bounded Show',
        poster: null,
        overview: null,
        followed: true,
        episodes: [{ season: 1, number: 1, title: 'Pilot', airDate: '2025-01-01', history: history('2025-01-02T20:00:00.000Z') }],
      },
    ],
    movies: [{ ids: { tmdb: ids.movie }, title: 'Bounded Film', poster: null, overview: null, releaseDate: '2024-02-29', history: history('2025-01-03T20:00:00.000Z') }],
    games: [{ ids: { igdb: ids.game }, title: 'Bounded Game', poster: null, overview: null, releaseDate: null, history: [] }],
  };
  change(file);
  return json(file);
}

const newIds = () => ({ show: unique(), movie: unique(), game: unique() });

/** Nothing of an import is stored: no library rows, history or states, and no catalog row with the file's ids. */
async function expectNothingStored(accountId: number, ids: { show?: number; movie?: number; game?: number; tvdb?: number }) {
  expect(await db().libraryItem.count({ where: { accountId } })).toBe(0);
  expect(await db().watchEvent.count({ where: { accountId } })).toBe(0);
  expect(await db().watchState.count({ where: { accountId } })).toBe(0);
  if (ids.show !== undefined) expect(await db().show.count({ where: { tmdbId: ids.show } })).toBe(0);
  if (ids.tvdb !== undefined) expect(await db().show.count({ where: { tvdbId: ids.tvdb } })).toBe(0);
  if (ids.movie !== undefined) expect(await db().movie.count({ where: { tmdbId: ids.movie } })).toBe(0);
  if (ids.game !== undefined) expect(await db().game.count({ where: { igdbId: ids.game } })).toBe(0);
}

const long = (length: number, unit = 'x') => unit.repeat(length);
/** How messages quote a long title: its first 59 characters and "…". */
const quotedLong = (unit = 'x') => `"${unit.repeat(59)}…"`;
const inADay = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();

describe('an Airdate export with values out of bounds: 400 naming file, item, field and limit; nothing stored', () => {
  const file = 'export.json';
  const cases: [string, (file: any) => void, string][] = [
    ['a season past 32 bits', (f) => (f.shows[0].episodes[0].season = maxIntColumn + 1), `show "Bounded Show" season 2147483648 episode 1: the season is not a whole number from 0 to ${maxIntColumn}`],
    ['an episode number past 32 bits', (f) => (f.shows[0].episodes[0].number = 2 ** 53 - 1), `show "Bounded Show" season 1 episode 9007199254740991: the episode number is not a whole number from 0 to ${maxIntColumn}`],
    ['a show title of 501 characters', (f) => (f.shows[0].title = long(501)), `show ${quotedLong()}: the title is longer than 500 characters`],
    ['a movie title of a megabyte', (f) => (f.movies[0].title = long(1_000_000)), `movie ${quotedLong()}: the title is longer than 500 characters`],
    ['501 emoji as a game title', (f) => (f.games[0].title = long(501, '🎬')), `game ${quotedLong('🎬')}: the title is longer than 500 characters`],
    ['an episode title of 501 characters', (f) => (f.shows[0].episodes[0].title = long(501)), 'show "Bounded Show" season 1 episode 1: the title is longer than 500 characters'],
    ['an overview of 10 001 characters', (f) => (f.movies[0].overview = long(10_001)), 'movie "Bounded Film": the overview is longer than 10000 characters'],
    ['a poster of 1 025 characters', (f) => (f.shows[0].poster = `https://img.example/${long(1_005)}`), `show "Bounded Show": the poster "https://img.example/${long(39)}…" is not an http(s) URL of at most 1024 characters`],
    ['a poster that is not http(s)', (f) => (f.games[0].poster = 'javascript:alert(1)'), 'game "Bounded Game": the poster "javascript:alert(1)" is not an http(s) URL of at most 1024 characters'],
    ['an air date before 1800', (f) => (f.shows[0].episodes[0].airDate = '1799-12-31'), 'shows[0].episodes[0].airDate: expected a date from 1800-01-01 to 2199-12-31 (1799-12-31 is outside)'],
    ['a release date after 2199', (f) => (f.movies[0].releaseDate = '2200-01-01'), 'movies[0].releaseDate: expected a date from 1800-01-01 to 2199-12-31 (2200-01-01 is outside)'],
    ['a watch before 1900', (f) => (f.movies[0].history = history('1899-12-31T23:59:59.999Z')), 'movie "Bounded Film": a watch at 1899-12-31T23:59:59.999Z is outside 1900-01-01T00:00:00.000Z to a day from now'],
    ['a watch more than a day ahead', (f) => (f.shows[0].episodes[0].history = history('2999-01-01T00:00:00.000Z')), 'show "Bounded Show" season 1 episode 1: a watch at 2999-01-01T00:00:00.000Z is outside 1900-01-01T00:00:00.000Z to a day from now'],
    ['an id past 32 bits', (f) => (f.games[0].ids.igdb = maxIntColumn + 1), `games[0].ids.igdb: expected a positive integer up to ${maxIntColumn}`],
  ];
  for (const [title, change, problem] of cases) {
    it(title, async () => {
      const account = await makeAccount();
      const ids = newIds();
      const answer = await upload(app, '/api/import/airdate', account.token, { [file]: airdateExport(ids, change) });
      expect(answer).toEqual({ status: 400, json: { error: `${file}: ${problem}` } });
      await expectNothingStored(account.id, ids);
    });
  }

  it('a bad value in the last file of a zip: nothing from the good files before it', async () => {
    const account = await makeAccount();
    const [good, bad] = [newIds(), newIds()];
    const archive = zip({ 'a.json': airdateExport(good), 'b.json': airdateExport(bad, (f) => (f.shows[0].episodes[0].season = -1 + 2 ** 32)) });
    const answer = await upload(app, '/api/import/airdate', account.token, { 'backup.zip': archive });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(/^backup\.zip\/b\.json: show "Bounded Show" season 4294967295 episode 1: /);
    await expectNothingStored(account.id, good);
  });
});

describe('at the bounds', () => {
  it('every value at its limit is stored, exported, and imported again into another account unchanged', async () => {
    const account = await makeAccount();
    const ids = newIds();
    // On a catalog's image host: a poster on any other host is dropped at import (docs/security.md).
    const poster = `https://image.tmdb.org/t/p/${long(catalogLengths.posterUrl - 27)}`;
    const watchedAt = inADay(23);
    const atLimits = airdateExport(ids, (f) => {
      f.shows[0].title = long(catalogLengths.title, '🎬');
      f.shows[0].poster = poster;
      f.shows[0].overview = long(catalogLengths.overview, 'é');
      f.shows[0].episodes[0] = { season: maxIntColumn, number: maxIntColumn, title: long(catalogLengths.title), airDate: '1800-01-01', history: history(watchedAt) };
      f.movies[0].releaseDate = '2199-12-31';
      f.movies[0].history = history('1900-01-01T00:00:00.000Z');
    });
    const answer = await upload(app, '/api/import/airdate', account.token, { 'export.json': atLimits });
    expect(answer).toMatchObject({ status: 200, json: { ok: true, imported: { shows: 1, episodes: 1, movies: 1, games: 1, history: 2 } } });
    const show = await db().show.findUniqueOrThrow({ where: { tmdbId: ids.show }, include: { episodes: true } });
    expect(show).toMatchObject({ title: long(catalogLengths.title, '🎬'), poster, overview: long(catalogLengths.overview, 'é') });
    expect(show.episodes).toMatchObject([{ season: maxIntColumn, number: maxIntColumn, airDate: '1800-01-01' }]);

    const exported = await call(app, 'GET', '/api/export', { token: account.token });
    expect(exported.status).toBe(200);
    // Rows an import file creates are its importer's until a catalog confirms them (docs/security.md):
    // confirmed here as a catalog's answer would, so that the other account's import finds them.
    const confirmed = { where: { ownerAccountId: account.id }, data: { ownerAccountId: null } };
    await db().show.updateMany(confirmed);
    await db().movie.updateMany(confirmed);
    await db().game.updateMany(confirmed);
    const other = await makeAccount();
    const again = await upload(app, '/api/import/airdate', other.token, { 'again.json': bytes(exported.text) });
    expect(again).toMatchObject({ status: 200, json: { ok: true, imported: { shows: 1, episodes: 1, movies: 1, games: 1, history: 2 } } });
    const library = (document: any) => ({ shows: document.shows, movies: document.movies, games: document.games });
    expect(library((await call(app, 'GET', '/api/export', { token: other.token })).json)).toEqual(library(exported.json));
    expect((await call(app, 'GET', '/api/machine/summary', { token: other.token })).status).toBe(200);
  });

  it('a 1 MB title of an item without ids is answered in `skipped` cut to 500 characters, not echoed whole', async () => {
    const account = await makeAccount();
    const file = airdateExport(newIds(), (f) => f.shows.push({ ids: {}, title: long(1_000_000), episodes: [] }));
    const answer = await upload(app, '/api/import/airdate', account.token, { 'export.json': file });
    expect(answer.status).toBe(200);
    expect(answer.json.skipped).toEqual([{ file: 'export.json', item: `show "${long(catalogLengths.title - 7)}…`, reason: 'no tmdb, tvdb or imdb id' }]);
  });
});

describe('the other sources go through the same check', () => {
  it('Trakt: a show title of 501 characters, and a play before 1900', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const longTitle = traktShow(long(501), tmdb, null);
    const titled = await upload(app, '/api/import/trakt', account.token, { 'watched-history.json': json([traktEpisodePlay(1, '2025-03-01T21:00:00.000Z', longTitle, 1, 1)]) });
    expect(titled).toEqual({ status: 400, json: { error: `watched-history.json: show ${quotedLong()}: the title is longer than 500 characters` } });
    const early = await upload(app, '/api/import/trakt', account.token, { 'watched-history.json': json([traktEpisodePlay(1, '1850-03-01T21:00:00.000Z', traktShow('Old', tmdb, null), 1, 1)]) });
    expect(early).toEqual({ status: 400, json: { error: 'watched-history.json: show "Old" season 1 episode 1: a watch at 1850-03-01T21:00:00.000Z is outside 1900-01-01T00:00:00.000Z to a day from now' } });
    await expectNothingStored(account.id, { show: tmdb });
  });

  it('Simkl: a movie title of a megabyte', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const backup = { movies: [{ status: 'completed', last_watched_at: '2024-01-01T00:00:00Z', movie: { title: long(1_000_000), ids: { tmdb } } }] };
    const answer = await upload(app, '/api/import/simkl', account.token, { 'SimklBackup.json': json(backup) });
    expect(answer).toEqual({ status: 400, json: { error: `SimklBackup.json: movie ${quotedLong()}: the title is longer than 500 characters` } });
    await expectNothingStored(account.id, { movie: tmdb });
  });

  it('TV Time: a series name of 501 characters', async () => {
    const account = await makeAccount();
    const tvdb = unique();
    const file = tvTimeTrackingV2([tvTimeWatch(tvdb, long(501), 1, 1, '2022-05-01 20:11:05')]);
    const answer = await upload(app, '/api/import/tvtime', account.token, { 'tracking-prod-records-v2.csv': file });
    expect(answer).toEqual({ status: 400, json: { error: `tracking-prod-records-v2.csv: show ${quotedLong()}: the title is longer than 500 characters` } });
    await expectNothingStored(account.id, { tvdb });
  });

  it('Letterboxd: a film URI past 500 characters refuses the file; one of 500 is kept whole in the report', async () => {
    const account = await makeAccount();
    const uri = (length: number) => `https://boxd.it/${'x'.repeat(length - 16)}`;
    const watched = (link: string) => bytes(`Date,Name,Year,Letterboxd URI\r\n2024-01-01,Nowhere ${unique()},1999,${link}\r\n`);
    const refused = await upload(app, '/api/import/letterboxd', account.token, { 'watched.csv': watched(uri(501)) });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/^watched\.csv: movie "Nowhere \d+": the source id is longer than 500 characters$/);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(0);
    const kept = await upload(app, '/api/import/letterboxd', account.token, { 'watched.csv': watched(uri(500)) });
    expect(kept.status).toBe(200);
    expect(kept.json.unmatched).toEqual([expect.objectContaining({ sourceId: uri(500) })]);
  });

  it('Grouvee: a game name of 501 characters, and a release date before 1800', async () => {
    const account = await makeAccount();
    const igdb = unique();
    const named = await upload(app, '/api/import/grouvee', account.token, { 'grouvee.csv': bytes([grouveeHeader, grouveeRow(long(501), igdb, 'Played', '2021-04-03')].join('\r\n')) });
    expect(named).toEqual({ status: 400, json: { error: `grouvee.csv: game ${quotedLong()}: the title is longer than 500 characters` } });
    const dated = grouveeRow('Ancient', igdb, 'Backlog').replace(',2007-10-10,', ',1700-10-10,');
    const early = await upload(app, '/api/import/grouvee', account.token, { 'grouvee.csv': bytes([grouveeHeader, dated].join('\r\n')) });
    expect(early).toEqual({ status: 400, json: { error: 'grouvee.csv: game "Ancient": the release date "1700-10-10" is not a calendar date from 1800-01-01 to 2199-12-31' } });
    await expectNothingStored(account.id, { game: igdb });
  });
});
