import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { db } from '../../src/db/client.ts';
import type { ImportDocument } from '../../src/imports/sources/import-document.ts';
import { parseImdbFile } from '../../src/imports/sources/parse-imdb.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { retryPendingImports } from '../../src/imports/pending-imports.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { fakeClock } from '../catalog/support/fake-clock.ts';
import { tmdbRoute, type TmdbMovie, type TmdbShow } from '../catalog/support/tmdb-fixture.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, zip } from './fixtures.ts';
import { imdbCsv, ratedDay, type ImdbKind, type ImdbLayout, type ImdbTitle } from './imdb-fixtures.ts';

/**
 * Issue 26, item 6: IMDb's own exports as a new source. An account's ratings.csv of 3 000 rows
 * (movies with remakes of one title, TV films, shorts, specials, series, mini-series, episodes, a
 * few video games and podcasts, 30 rows repeated), its watchlist.csv and a list export, matched by
 * IMDb id through the offline file (most titles) and a TMDB stand-in on a real HTTP server (TMDB's
 * /find by IMDb id: a few films, shows and episodes); ten films no catalog knows stay unmatched and
 * are retried when TMDB learns them.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-imdb-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const movieImdb = (index: number) => `tt${1_000_000 + index}`;
const seriesImdb = (index: number) => `tt${2_000_000 + index}`;
const episodeImdb = (index: number) => `tt${2_400_000 + index}`;
const extraImdb = (index: number) => `tt${3_000_000 + index}`;
const movieTitle = (index: number): [string, number] =>
  index < 3 ? ['The Thing', [1951, 1982, 2011][index]!] : index < 5 ? ['Dune', [1984, 2021][index - 3]!] : [`Film ${index}, "rated"`, 1930 + (index % 90)];

/** The rated titles of ratings.csv, in file order (2 970 titles; 30 more rows repeat the first films). */
const rated: ImdbTitle[] = [
  ...Array.from({ length: 2_500 }, (_, index): ImdbTitle => ({ imdb: movieImdb(index), title: movieTitle(index)[0], year: movieTitle(index)[1], kind: 'movie', rating: (index % 10) + 1, rated: ratedDay(index) })),
  ...Array.from({ length: 200 }, (_, index): ImdbTitle => ({ imdb: seriesImdb(index), title: `Series ${index}`, year: 1990 + (index % 30), kind: index < 150 ? 'series' : 'mini', rating: 8, rated: ratedDay(index + 10) })),
  // Ten episodes each of series 0–18 (the offline file's) and of series 190 (TMDB's).
  ...Array.from({ length: 200 }, (_, index): ImdbTitle => ({ imdb: episodeImdb(index), title: `Series ${index < 190 ? Math.floor(index / 10) : 190}: Episode ${index % 10}`, year: 2000, kind: 'episode', rating: 9, rated: ratedDay(index + 20) })),
  ...(['tvMovie', 'short', 'special'] as ImdbKind[]).flatMap((kind, group) =>
    Array.from({ length: group === 2 ? 10 : 20 }, (_, index): ImdbTitle => ({ imdb: extraImdb(900_000 + group * 100 + index), title: `${kind} ${index}`, year: 2005, kind, rating: 6, rated: ratedDay(index + 30) })),
  ),
  ...(['game', 'podcast'] as ImdbKind[]).flatMap((kind, group) =>
    Array.from({ length: 10 }, (_, index): ImdbTitle => ({ imdb: extraImdb(950_000 + group * 100 + index), title: `${kind} ${index}`, year: 2013, kind, rating: 10, rated: ratedDay(40) })),
  ),
];
const ratingRows = [...rated, ...rated.slice(0, 30).map((title) => ({ ...title, rating: undefined, rated: undefined }))];
const watchlist: ImdbTitle[] = [
  ...Array.from({ length: 250 }, (_, index): ImdbTitle => ({ imdb: extraImdb(index), title: `Wanted ${index}`, year: 2024, kind: 'movie', ...(index < 10 ? { rating: 7, rated: ratedDay(3_000 + index) } : {}) })),
  ...Array.from({ length: 40 }, (_, index): ImdbTitle => ({ imdb: extraImdb(1_000 + index), title: `Wanted Series ${index}`, year: 2023, kind: 'series' })),
];
const list: ImdbTitle[] = [
  ...rated.slice(100, 160).map(({ rating: _rating, rated: _rated, ...title }) => title),
  ...Array.from({ length: 40 }, (_, index): ImdbTitle => ({ imdb: extraImdb(2_000 + index), title: `Listed ${index}`, year: 1999, kind: 'movie' })),
];
const files = {
  'ratings.csv': imdbCsv('ratings-2024', ratingRows),
  'watchlist.csv': imdbCsv('watchlist-2024', watchlist),
  'ls012345678.csv': imdbCsv('list-2017', list),
};

// Who knows what: the offline file most titles; TMDB movies 2 470–2 489, series 190–199 and the ten
// episodes of series 190; movies 2 490–2 499 nobody (until TMDB learns them below).
const isMovie = (title: ImdbTitle) => ['movie', 'tvMovie', 'short', 'special'].includes(title.kind);
const tmdbOnlyMovie = (index: number) => index >= 2_470 && index < 2_490;
const unknownMovie = (index: number) => index >= 2_490 && index < 2_500;
const offlineMovies = [...rated, ...watchlist, ...list].filter(isMovie).filter((title) => {
  const index = Number(title.imdb.slice(2)) - 1_000_000;
  return !(index >= 0 && index < 2_500 && (tmdbOnlyMovie(index) || unknownMovie(index)));
});
const uniqueBy = <T,>(items: T[], key: (item: T) => string) => [...new Map(items.map((item) => [key(item), item])).values()];
const offlineShows = [...rated.filter((title) => title.kind === 'series' || title.kind === 'mini').slice(0, 190), ...watchlist.filter((title) => title.kind === 'series')];
writeFileSync(path.join(folder, 'catalog.json'), JSON.stringify({
  movies: uniqueBy(offlineMovies, (title) => title.imdb).map((title, index) => ({ ids: { tmdb: 100_000 + index, imdb: title.imdb }, title: title.title, release_date: `${title.year}-04-17` })),
  shows: offlineShows.map((title, index) => ({
    ids: { tmdb: 800_000 + index, imdb: title.imdb },
    title: title.title,
    // Series 0–18's episodes, with their IMDb ids.
    episodes: index < 19 ? Array.from({ length: 10 }, (_, episode) => ({ season: 1, number: episode + 1, title: `Episode ${episode}`, air_date: '2000-01-01', ids: { imdb: episodeImdb(index * 10 + episode) } })) : [],
  })),
  games: [],
}));

const tmdbKey = '0123456789abcdef0123456789abcdef';
const tmdbData: { shows: TmdbShow[]; movies: TmdbMovie[] } = {
  movies: Array.from({ length: 20 }, (_, offset) => {
    const index = 2_470 + offset;
    return { id: 600_000 + index, title: movieTitle(index)[0], release_date: `${movieTitle(index)[1]}-04-17`, poster_path: null, overview: '', imdb_id: movieImdb(index) };
  }),
  // Series 190–199; series 190 with its ten episodes' IMDb ids.
  shows: Array.from({ length: 10 }, (_, offset): TmdbShow => ({
    id: 900_000 + offset,
    name: `Series ${190 + offset}`,
    poster_path: null,
    overview: '',
    imdbId: seriesImdb(190 + offset),
    seasons: { 1: Array.from({ length: offset === 0 ? 10 : 1 }, (_, episode) => ({ episode_number: episode + 1, name: `Episode ${episode}`, air_date: '2000-01-01', ...(offset === 0 ? { imdbId: episodeImdb(190 + episode) } : {}) })) },
  })),
};
const tmdb = await startCatalogServer(tmdbRoute(tmdbData, tmdbKey));
const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: path.join(folder, 'catalog.json'), TMDB_API_KEY: tmdbKey, AIRDATE_TMDB_URL: tmdb.url, AIRDATE_TMDB_IMAGE_URL: 'https://image.tmdb.org/t/p/w500' });

const noonOf = (day: string) => new Date(`${day}T12:00:00Z`);
const entriesOf = (document: ImportDocument) => [...document.titles, ...(document.episodeRefs ?? [])].flatMap((item) => item.history);

describe('IMDb exports (parser)', () => {
  const ratings = parseImdbFile(files['ratings.csv'], 'imdb.zip/ratings.csv');

  it('reads ratings.csv by Title Type: movies, shows and episodes by IMDb id, rated ones watched on their Date Rated', () => {
    expect([ratings.titles.length, ratings.shows.length, ratings.episodeRefs?.length]).toEqual([2_550, 200, 200]);
    expect(ratings.titles.filter((movie) => movie.title === 'The Thing').map((movie) => [movie.ids, movie.year])).toEqual([
      [{ imdb: movieImdb(0) }, 1951], [{ imdb: movieImdb(1) }, 1982], [{ imdb: movieImdb(2) }, 2011],
    ]);
    expect(ratings.titles[7]).toEqual({ kind: 'movie', ids: { imdb: movieImdb(7) }, title: 'Film 7, "rated"', year: 1937, history: [{ watched: true, at: noonOf(ratedDay(7)), estimated: true }] });
    expect(ratings.shows[160]).toEqual({ kind: 'show', ids: { imdb: seriesImdb(160) }, title: 'Series 160', year: 2000, episodes: [] });
    expect(ratings.episodeRefs![12]).toEqual({ ids: { imdb: episodeImdb(12) }, label: 'Series 1: Episode 2', history: [{ watched: true, at: noonOf(ratedDay(32)), estimated: true }] });
    expect(entriesOf(ratings)).toHaveLength(2_550 + 200);
  });

  it('accounts for every row: an item, a repeat merged into one, or skipped with its line; every rating reported as not stored', () => {
    const byReason = (pattern: RegExp) => ratings.skipped.filter((skip) => pattern.test(skip.reason));
    const items = ratings.titles.length + ratings.shows.length + ratings.episodeRefs!.length;
    const merged = byReason(/^merged as a duplicate/);
    const notTracked = byReason(/^not imported: Title Type/);
    expect([merged.length, notTracked.length]).toEqual([30, 20]);
    expect(items + merged.length + notTracked.length).toBe(3_000);
    expect(merged[0]).toEqual({ item: 'The Thing (1951) (ratings.csv line 2972)', reason: `merged as a duplicate: line 2 lists the same title (${movieImdb(0)})` });
    expect(notTracked[0]).toEqual({ item: 'game 0 (2013) (ratings.csv line 2952)', reason: 'not imported: Title Type "Video Game" is no movie, show or episode' });
    expect(byReason(/not stored/)).toHaveLength(2_950);
    expect(byReason(/not stored/)[1]).toEqual({ item: 'The Thing (1982) (ratings.csv line 3)', reason: 'rating 2/10 not stored: the library keeps no ratings' });
    expect(ratings.notes).toEqual([
      'Date Rated is the only date the file has: 2750 rated titles are recorded watched on the day they were rated (at 12:00 UTC, marked estimated: the viewing was then or before); the ratings themselves are not stored',
      '200 rated shows are followed: the file does not say which episodes were watched',
    ]);
  });

  it('reads every generation of the header the same: 2017–2023 (13 columns), a 10-column copy, the older list form', () => {
    const sample = rated.filter((_, index) => index % 10 === 0);
    const read = (layout: ImdbLayout) => {
      const document = parseImdbFile(imdbCsv(layout, sample), `${layout}.csv`);
      // A type not tracked is quoted as the file spells it ("Video Game", "videoGame").
      const skipped = document.skipped.map((skip) => skip.reason.replace(/Title Type "[^"]*"/, 'Title Type …'));
      return { titles: document.titles, shows: document.shows, refs: document.episodeRefs, skipped };
    };
    const current = read('ratings-2024');
    expect(current.titles.length + current.shows.length + current.refs!.length).toBe(295);
    for (const layout of ['ratings-2017', 'ratings-10', 'list-legacy'] as const) expect(read(layout), layout).toEqual(current);
    const watchlistDocument = parseImdbFile(files['watchlist.csv'], 'watchlist.csv');
    expect(watchlistDocument.notes).toContain('280 titles of the watchlist followed, not watched');
    expect(watchlistDocument.titles.filter((movie) => movie.history.length > 0)).toHaveLength(10);
  });

  it('refuses another service\'s file, a header without rows, bad ratings and dates, naming file and line', () => {
    expect(() => parseImdbFile(bytes('Date,Name,Year,Letterboxd URI\r\n2024-01-01,Heat,1995,https://boxd.it/2b0k\r\n'), 'watched.csv'))
      .toThrow('watched.csv: is a Letterboxd CSV, not an IMDb export (ratings.csv, watchlist.csv or a list export with a "Const" column)');
    expect(() => parseImdbFile(imdbCsv('ratings-2024', []), 'ratings.csv')).toThrow('ratings.csv: holds no titles: the IMDb export has a header and no rows');
    expect(() => parseImdbFile(imdbCsv('ratings-2024', [{ ...rated[0]!, rating: 11 }]), 'ratings.csv')).toThrow('ratings.csv: line 2: Your Rating "11" is not a rating from 1 to 10');
    expect(() => parseImdbFile(imdbCsv('ratings-2024', [{ ...rated[0]!, rated: '17/04/2020' }]), 'ratings.csv')).toThrow('ratings.csv: line 2: Date Rated "17/04/2020" is not a date (YYYY-MM-DD)');
    const odd = parseImdbFile(imdbCsv('ratings-2024', [{ ...rated[0]!, imdb: 'nm0000001' }, { ...rated[1]!, imdb: '1000001' }]), 'ratings.csv');
    expect(odd.skipped[0]).toEqual({ item: 'The Thing (1951) (ratings.csv line 2)', reason: 'Const "nm0000001" is not an IMDb title id (tt and digits): nothing to match it by' });
    expect(odd.titles.map((movie) => movie.ids.imdb)).toEqual([movieImdb(1)]);
    // Rated without a Date Rated: watched, no date to put in the history.
    const undated = parseImdbFile(imdbCsv('ratings-2024', [{ ...rated[0]!, rated: undefined }, rated[1]!]), 'ratings.csv');
    expect(undated.titles.map((movie) => [movie.history.length, movie.watched])).toEqual([[0, true], [1, undefined]]);
    expect(undated.notes).toEqual([expect.stringMatching(/: 1 rated title is recorded watched on the day/), '1 rated title has no Date Rated: marked watched without a date']);
  });
});

describe('POST /api/import/imdb', () => {
  it('imports ratings, watchlist and a list through the offline file and TMDB\'s find; the dry run says the same; again adds nothing; the unmatched are retried', async () => {
    const account = await makeAccount();
    const upload3 = { 'imdb-export.zip': zip(files) };
    const dry = await upload(app, '/api/import/imdb?dryRun=true', account.token, upload3);
    expect(dry.status, JSON.stringify(dry.json).slice(0, 400)).toBe(200);
    const real = await upload(app, '/api/import/imdb', account.token, upload3);
    const { dryRun: _dry, ...report } = dry.json;
    expect(real.json).toEqual(report);
    // Movies: 2 540 rated of the 2 550 (ten unknown), 250 of the watchlist, 40 of the list; shows: 200 rated, 40 wanted.
    expect(real.json.imported).toEqual({ shows: 240, episodes: 200, movies: 2_830, games: 0, history: 2_540 + 200 + 10 });
    expect(real.json.unmatched).toEqual(Array.from({ length: 10 }, (_, offset) => {
      const [title, year] = movieTitle(2_490 + offset);
      return { file: 'imdb-export.zip/ratings.csv', kind: 'movie', title, ids: { imdb: movieImdb(2_490 + offset) }, year };
    }));
    expect(real.json.notes.filter((note: { file: string }) => note.file === 'imdb-export.zip/watchlist.csv').map((note: { note: string }) => note.note)).toEqual([
      expect.stringMatching(/^Date Rated is the only date the file has: 10 rated titles are recorded watched/),
      '280 titles of the watchlist followed, not watched',
    ]);
    expect(real.json.notes).toContainEqual({ file: 'imdb-export.zip/ls012345678.csv', note: '100 titles of the list followed, not watched' });

    // The three films called "The Thing", each its own year's, watched on the day it was rated.
    const things = await db().watchEvent.findMany({ where: { accountId: account.id, movie: { title: 'The Thing' } }, select: { at: true, estimated: true, movie: { select: { releaseDate: true } } }, orderBy: { at: 'asc' } });
    expect(things.map((event) => [event.movie!.releaseDate!.slice(0, 4), event.at, event.estimated])).toEqual([0, 1, 2].map((index) => [String(movieTitle(index)[1]), noonOf(ratedDay(index)), true]));
    // Rated shows followed, none of their episodes watched; rated episodes watched under their show.
    const series160 = await db().show.findUniqueOrThrow({ where: { imdbId: seriesImdb(160) } });
    expect(await db().libraryItem.findFirst({ where: { accountId: account.id, showId: series160.id }, select: { followed: true } })).toEqual({ followed: true });
    expect(await db().watchState.count({ where: { accountId: account.id, episode: { showId: series160.id } } })).toBe(0);
    const episode = await db().episode.findFirstOrThrow({ where: { imdbId: episodeImdb(195) }, include: { show: true } });
    expect([episode.show.imdbId, episode.number]).toEqual([seriesImdb(190), 6]);
    expect(await db().watchEvent.findMany({ where: { accountId: account.id, episodeId: episode.id }, select: { at: true } })).toEqual([{ at: noonOf(ratedDay(215)) }]);
    // Watchlist titles followed, not watched.
    const wanted = await db().movie.findUniqueOrThrow({ where: { imdbId: extraImdb(100) } });
    expect(await db().libraryItem.findFirst({ where: { accountId: account.id, movieId: wanted.id }, select: { followed: true } })).toEqual({ followed: true });
    expect(await db().watchState.count({ where: { accountId: account.id, movieId: wanted.id } })).toBe(0);

    const again = await upload(app, '/api/import/imdb', account.token, upload3);
    expect([again.json.imported.history, again.json.unmatched.length]).toEqual([0, 10]);

    // TMDB learns the ten films: the next retry of pending imports adds them with their Date Rated.
    for (let offset = 0; offset < 10; offset += 1) {
      const index = 2_490 + offset;
      tmdbData.movies.push({ id: 600_000 + index, title: movieTitle(index)[0], release_date: `${movieTitle(index)[1]}-04-17`, poster_path: null, overview: '', imdb_id: movieImdb(index) });
    }
    const catalog = createCatalogService([createTmdbProvider({ apiKey: tmdbKey, baseUrl: tmdb.url, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock() } })], { warn: () => {} });
    expect(await retryPendingImports({ catalog, accountId: account.id, logger: { warn: () => {} } })).toMatchObject({ tried: 10, matched: 10 });
    const late = await db().movie.findUniqueOrThrow({ where: { imdbId: movieImdb(2_495) } });
    expect(await db().watchEvent.findMany({ where: { accountId: account.id, movieId: late.id }, select: { at: true, source: true } })).toEqual([{ at: noonOf(ratedDay(2_495)), source: 'import:imdb' }]);
  });

  it('writes nothing when one file of the upload is malformed (the whole request, 400 naming the file and line)', async () => {
    const account = await makeAccount();
    const broken = imdbCsv('watchlist-2024', [...watchlist.slice(0, 3), { ...watchlist[3]!, rating: 8, rated: '2024-02-30' }]);
    const answer = await upload(app, '/api/import/imdb', account.token, { 'ratings.csv': files['ratings.csv'], 'watchlist.csv': broken });
    expect([answer.status, answer.json.error]).toEqual([400, 'watchlist.csv: line 5: Date Rated "2024-02-30" is not a date (YYYY-MM-DD)']);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('another service\'s route refuses an IMDb file naming what it is', async () => {
    const account = await makeAccount();
    const answer = await upload(app, '/api/import/letterboxd', account.token, { 'ratings.csv': imdbCsv('ratings-2017', rated.slice(0, 3)) });
    expect([answer.status, answer.json.error]).toEqual([400, expect.stringMatching(/^ratings\.csv: is an IMDb export CSV, not a Letterboxd export/)]);
  });
});
