import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../src/catalog/offline-catalog.ts';
import type { CatalogProvider } from '../../src/catalog/provider.ts';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { db } from '../../src/db/client.ts';
import type { ImportDocument, ImportTitle } from '../../src/imports/sources/import-document.ts';
import { importCatalogLookups } from '../../src/limits.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { applyImportDocuments } from '../../src/imports/import-service.ts';
import { collectIdQueries, resolveUnknownIds, type PrepassQuery } from '../../src/imports/import-prepass.ts';
import { retryPendingImports } from '../../src/imports/pending-imports.ts';
import type { Answer, SeenRequest } from '../catalog/support/catalog-peer.ts';
import { deadUrl, startCatalogServer } from '../catalog/support/catalog-server.ts';
import { fakeClock } from '../catalog/support/fake-clock.ts';
import { igdbFixture, type IgdbGame } from '../catalog/support/igdb-fixture.ts';
import { tmdbRoute, type TmdbMovie } from '../catalog/support/tmdb-fixture.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, grouveeHeader, grouveeRow, zip } from './fixtures.ts';

/** The account of the pre-passes run alone: one that owns no unconfirmed import row. */
const noOwner = 0;

/**
 * Movies and games with no id but a title and a year (every Letterboxd film, Grouvee games without
 * ids) are matched through the network catalogs' title search in the import's pre-pass: only when
 * exactly one result has the same title and release year. TMDB and IGDB are stand-ins on real
 * HTTP servers; the app is built with both configured, and imports go through its HTTP routes.
 */
const tmdbKey = '0123456789abcdef0123456789abcdef';
const tmdbData: { shows: never[]; movies: TmdbMovie[] } = { shows: [], movies: [] };
const tmdbAnswers = tmdbRoute(tmdbData, tmdbKey);
/**
 * Searches open at once, most seen; and a switch that makes TMDB refuse every request. Each search
 * takes 80 ms, longer than the spacing of background requests (1/35 s, http-client.ts), so that the
 * import's searches overlap as they would against the real TMDB.
 */
const searches = { open: 0, most: 0, refuse: false };
const tmdb = await startCatalogServer(async (request: SeenRequest): Promise<Answer> => {
  if (searches.refuse) return { status: 401, json: { success: false, status_code: 7, status_message: 'Invalid API key: You must be granted a valid key.' } };
  if (!request.path.startsWith('/search/')) return tmdbAnswers(request);
  searches.most = Math.max(searches.most, ++searches.open);
  await new Promise((resolve) => setTimeout(resolve, 80));
  searches.open -= 1;
  return tmdbAnswers(request);
});
const igdbData: { games: IgdbGame[] } = { games: [] };
const igdbStandIn = igdbFixture(igdbData, 'client-id', 'client-secret');
const igdb = await startCatalogServer(igdbStandIn.route);

const { app } = await useTestApp({
  TMDB_API_KEY: tmdbKey,
  AIRDATE_TMDB_URL: tmdb.url,
  AIRDATE_TMDB_IMAGE_URL: 'https://image.tmdb.org/t/p/w500',
  IGDB_CLIENT_ID: 'client-id',
  IGDB_CLIENT_SECRET: 'client-secret',
  AIRDATE_IGDB_URL: igdb.url,
  AIRDATE_TWITCH_TOKEN_URL: `${igdb.url}/oauth2/token`,
  AIRDATE_LOG_LEVEL: 'silent',
});

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-title-search-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };

const cell = (value: string | number) => (/[",\r\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
/** A CSV as Letterboxd writes it: a BOM and CRLF line ends. */
const csv = (header: string, rows: (string | number)[][]) => bytes(`\uFEFF${[header, ...rows.map((row) => row.map(cell).join(','))].join('\r\n')}\r\n`);
const day = (offset: number) => new Date(Date.UTC(2016, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
const pad = (index: number) => String(index).padStart(3, '0');

/** Catalog ids within the database's INTEGER columns: a block per fixture. */
let fixtures = 0;
const idBlock = () => 700_000_000 + ++fixtures * 10_000;

interface Film {
  index: number;
  name: string;
  year: number;
  uri: string;
  /** The TMDB id it is expected to match, undefined when it must stay unmatched. */
  tmdb?: number;
}

/**
 * A Letterboxd export of 300 watched films (every tenth watched three times, two rewatches in
 * the diary) and 10 films only in the watchlist, with what TMDB knows about them:
 * - most films under the same title and year (one in upper case, one with " (YEAR)" added on
 *   TMDB's side, one with it on Letterboxd's side), many next to decoys a substring search also
 *   finds: a remake ten years later, a sequel "… 2" of the same year;
 * - film 5 twice with the same title and year (two different TMDB films: ambiguous, unmatched);
 * - film 6 only a year later (unmatched); every film numbered …9 not at all (unmatched);
 * - films 7 and 8 are two Letterboxd entries (two URIs) of the same title and year: one search.
 */
function letterboxdExport(base: number) {
  const ids = idBlock();
  const films: Film[] = Array.from({ length: 300 }, (_, index) => {
    const year = 1970 + (index % 50);
    const name =
      index === 1 ? `Amélie ${base}, "Le Fabuleux Destin"` :
      index === 2 ? `Dune ${base} (${year})` :
      index === 7 || index === 8 ? `Twin ${base}` :
      `Reel ${base}-${pad(index)}`;
    return { index, name, year: index === 8 ? 1977 : year, uri: `https://boxd.it/f${base}x${index}` };
  });
  const wished: Film[] = Array.from({ length: 10 }, (_, index) => ({ index: 300 + index, name: `Wish ${base}-${pad(index)}`, year: 2024, uri: `https://boxd.it/w${base}x${index}` }));
  const movie = (id: number, title: string, year: number): TmdbMovie => ({ id, title, release_date: `${year}-0${1 + (id % 9)}-15`, poster_path: `/p${id}.jpg`, overview: `About ${title}` });
  const known: TmdbMovie[] = [];
  for (const film of [...films, ...wished]) {
    if (film.index === 5) {
      known.push(movie(ids + 9_001, film.name, film.year), movie(ids + 9_002, film.name, film.year));
      continue;
    }
    if (film.index === 6) {
      known.push(movie(ids + 9_003, film.name, film.year + 1));
      continue;
    }
    if (film.index % 10 === 9 && film.index < 300) continue;
    if (film.index === 8) {
      film.tmdb = films[7]!.tmdb; // the same film as 7
      continue;
    }
    film.tmdb = ids + film.index;
    const title =
      film.index === 2 ? `Dune ${base}` :
      film.index === 3 ? `${film.name} (${film.year})` :
      film.index === 4 ? film.name.toUpperCase() :
      film.name;
    known.push(movie(film.tmdb, title, film.year));
    if (film.index % 5 === 0) known.push(movie(ids + 5_000 + film.index, film.name, film.year + 10));
    if (film.index % 7 === 0) known.push(movie(ids + 6_000 + film.index, `${film.name} 2`, film.year));
  }
  const watched = films.map((film) => [day(film.index), film.name, film.year, film.uri]);
  const diary = films.flatMap((film) => {
    const viewings = film.index % 10 === 0 ? [day(film.index), day(film.index + 400), day(film.index + 500)] : [day(film.index)];
    return viewings.map((date, viewing) => [date, film.name, film.year, `https://boxd.it/d${base}e${film.index}v${viewing}`, '4', viewing > 0 ? 'Yes' : '', '', date]);
  });
  const watchlist = wished.map((film) => [day(1), film.name, film.year, film.uri]);
  const ratings = films.slice(0, 120).map((film) => [day(film.index), film.name, film.year, film.uri, 3.5]);
  const folderName = `letterboxd-title-${base}-2025-01-01-00-00-utc`;
  const file = zip({
    [`${folderName}/watched.csv`]: csv('Date,Name,Year,Letterboxd URI', watched),
    [`${folderName}/diary.csv`]: csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date', diary),
    [`${folderName}/ratings.csv`]: csv('Date,Name,Year,Letterboxd URI,Rating', ratings),
    [`${folderName}/watchlist.csv`]: csv('Date,Name,Year,Letterboxd URI', watchlist),
  });
  return { films, wished, known, file };
}

const searchesFor = (films: Film[]) => new Set(films.map((film) => `${film.name.replace(/ \(\d{4}\)$/, '')}|${film.year}`));

describe('matching by title and year through the catalogs\' search', () => {
  it('imports a Letterboxd export of 310 films on a fresh server: those TMDB knows exactly once by title and year are followed with their diary', async () => {
    const account = await makeAccount();
    const base = unique();
    const { films, wished, known, file } = letterboxdExport(base);
    tmdbData.movies.push(...known);
    const before = tmdb.seen('/search/movie').length;
    searches.most = 0;

    const first = await upload(app, '/api/import/letterboxd', account.token, { 'letterboxd.zip': file });
    expect(first.status).toBe(200);
    const unmatched = [...films, ...wished].filter((film) => film.tmdb === undefined);
    expect(unmatched).toHaveLength(32); // 5 (ambiguous), 6 (another year), 30 unknown
    expect(first.json.unmatched.map((item: { sourceId: string }) => item.sourceId).sort()).toEqual(unmatched.map((film) => film.uri).sort());

    // One search per distinct title and year (films 7 and 8 share theirs), each narrowed by its year, a few at a time.
    const asked = tmdb.seen('/search/movie').slice(before);
    expect(asked).toHaveLength(searchesFor([...films, ...wished]).size);
    expect(asked).toHaveLength(309);
    expect(new Set(asked.map((request) => `${request.query.get('query')}|${request.query.get('primary_release_year')}`)).size).toBe(309);
    expect(asked.filter((request) => request.query.get('query') === `Twin ${base}`)).toHaveLength(1);
    expect(asked.some((request) => request.query.get('query') === `Dune ${base}`)).toBe(true); // searched without its " (YEAR)"
    expect(searches.most).toBeGreaterThan(1);
    expect(searches.most).toBeLessThanOrEqual(importCatalogLookups.concurrent);

    // Only the accepted films were stored, not the decoys the searches also returned.
    const matchedIds = [...new Set([...films, ...wished].flatMap((film) => (film.tmdb === undefined ? [] : [film.tmdb])))];
    expect(matchedIds).toHaveLength(277);
    const stored = await db().movie.findMany({ where: { tmdbId: { in: known.map((movie) => movie.id) } } });
    expect(stored.map((movie) => movie.tmdbId).sort()).toEqual(matchedIds.sort());
    const library = await db().libraryItem.findMany({ where: { accountId: account.id }, include: { movie: true } });
    expect(library).toHaveLength(277);
    expect(library.every((row) => row.followed && row.movie !== null)).toBe(true);
    expect(library.map((row) => row.movie!.tmdbId).sort()).toEqual(matchedIds.sort());

    const historyOf = async (film: Film) => {
      const movie = await db().movie.findUniqueOrThrow({ where: { tmdbId: film.tmdb! } });
      return (await db().watchEvent.findMany({ where: { accountId: account.id, movieId: movie.id }, orderBy: { at: 'asc' } })).map((event) => event.at.toISOString().slice(0, 10));
    };
    expect(await historyOf(films[10]!)).toEqual([day(10), day(410), day(510)]); // rewatches from the diary
    expect(await historyOf(films[11]!)).toEqual([day(11)]);
    expect(await historyOf(films[2]!)).toEqual([day(2)]); // "Dune (YEAR)" on Letterboxd's side
    expect(await historyOf(films[3]!)).toEqual([day(3)]); // " (YEAR)" on TMDB's side
    expect(await historyOf(films[4]!)).toEqual([day(4)]); // case
    expect(await historyOf(films[1]!)).toEqual([day(1)]);
    expect(await historyOf(wished[0]!)).toEqual([]); // the watchlist: followed, never watched
    expect((await db().movie.findUniqueOrThrow({ where: { tmdbId: films[2]!.tmdb! } })).title).toBe(`Dune ${base}`);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(30 * 3 + (300 - 30 - 30 - 2));

    // Again: the stored films are found without asking, and the unmatched ones are not searched
    // again either: what TMDB answered them (none, or several) is remembered for a while.
    const again = await upload(app, '/api/import/letterboxd', account.token, { 'letterboxd.zip': file });
    expect(again.status).toBe(200);
    expect(again.json.imported.history).toBe(0);
    expect(again.json.unmatched).toHaveLength(32);
    expect(searchesFor(unmatched).size).toBeGreaterThan(0);
    expect(tmdb.seen('/search/movie').length - before).toBe(309);
  });

  it('matches Grouvee games without ids through IGDB\'s search: one game of that title and year, never two', async () => {
    const account = await makeAccount();
    const base = unique();
    const ids = idBlock();
    const released = (year: number) => Date.UTC(year, 9, 10, 12) / 1000; // grouveeRow's release_date is 2007-10-10
    const names = Array.from({ length: 20 }, (_, index) => `Quest ${base}-${pad(index)}`);
    igdbData.games.push(
      ...names.slice(0, 17).map((name, index) => ({ id: ids + index, name, first_release_date: released(2007), summary: `About ${name}` })),
      { id: ids + 100, name: names[17]!, first_release_date: released(2007) }, // two games of one title and year
      { id: ids + 101, name: names[17]!, first_release_date: released(2007) },
      { id: ids + 102, name: names[18]!, first_release_date: released(2019) }, // only a remake
      { id: ids + 103, name: `Remade ${base}`, first_release_date: released(2007) },
      { id: ids + 104, name: `Remade ${base}`, first_release_date: released(2019) },
    );
    // names[19]: IGDB does not know it at all.
    const rows = [...names, `Remade ${base}`].map((name, index) => grouveeRow(name, '', 'Played', `2021-04-${String(1 + (index % 28)).padStart(2, '0')}`));
    const file = bytes(`\uFEFF${[grouveeHeader, ...rows].join('\r\n')}\r\n`);
    const before = igdb.seen('/games').filter((request) => request.body.startsWith('search')).length;

    const response = await upload(app, '/api/import/grouvee', account.token, { 'grouvee.csv': file });
    expect(response.status).toBe(200);
    expect(response.json.unmatched.map((item: { title: string }) => item.title).sort()).toEqual([names[17], names[18], names[19]].sort());
    const searched = igdb.seen('/games').filter((request) => request.body.startsWith('search')).length - before;
    expect(searched).toBe(21); // one per title
    const library = await db().libraryItem.findMany({ where: { accountId: account.id }, include: { game: true } });
    expect(library.map((row) => row.game!.igdbId).sort()).toEqual([...names.slice(0, 17).map((_, index) => ids + index), ids + 103].sort());
    const game = await db().game.findUniqueOrThrow({ where: { igdbId: ids + 3 } });
    expect([game.title, game.releaseDate, game.overview]).toEqual([names[3], '2007-10-10', `About ${names[3]}`]);
    expect(await db().game.count({ where: { igdbId: { in: [ids + 100, ids + 101, ids + 102, ids + 104] } } })).toBe(0);
  });

  it('searches a Grouvee game by title and year when IGDB does not know its Giant Bomb id, and only then', async () => {
    const account = await makeAccount();
    const base = unique();
    const ids = idBlock();
    const released = Date.UTC(2007, 9, 10, 12) / 1000; // grouveeRow's release_date is 2007-10-10
    const [known, fallback, lost] = [`Known ${base}`, `Fallback ${base}`, `Lost ${base}`];
    const giantbomb = [ids + 500, ids + 501, ids + 502];
    igdbData.games.push(
      { id: ids, name: known, first_release_date: released, giantbombId: giantbomb[0] }, // IGDB knows the Giant Bomb id
      { id: ids + 1, name: fallback, first_release_date: released }, // only by title and year
    );
    // The 20-column row with a giantbomb_id (its second-to-last column) and no igdb_id.
    const rows = [known, fallback, lost].map((name, index) => grouveeRow(name, '', 'Played', '2021-04-03').replace(/,,$/, `,${giantbomb[index]},`));
    const searches = () => igdb.seen('/games').filter((request) => request.body.startsWith('search')).map((request) => request.body);
    const before = searches().length;

    const response = await upload(app, '/api/import/grouvee', account.token, { 'grouvee.csv': bytes([grouveeHeader, ...rows].join('\n')) });
    expect(response.status).toBe(200);
    expect(response.json.unmatched).toEqual([expect.objectContaining({ kind: 'game', title: lost, ids: { giantbomb: giantbomb[2] } })]);
    const library = await db().libraryItem.findMany({ where: { accountId: account.id }, include: { game: true } });
    expect(library.map((row) => row.game!.igdbId).sort()).toEqual([ids, ids + 1]);
    // The game IGDB found by its Giant Bomb id was not searched by title; the other two were.
    const asked = searches().slice(before);
    expect(asked).toHaveLength(2);
    expect(asked.some((body) => body.includes(known))).toBe(false);
  });

  it('a catalog that refuses every request leaves every film unmatched, and the import succeeds', async () => {
    const account = await makeAccount();
    const base = unique();
    const films = Array.from({ length: 20 }, (_, index) => [day(index), `Offline ${base}-${pad(index)}`, 1999, `https://boxd.it/o${base}x${index}`]);
    tmdbData.movies.push(...films.map((film, index) => ({ id: idBlock() + index, title: String(film[1]), release_date: '1999-05-05', poster_path: null, overview: '' })));
    const before = tmdb.seen('/search/movie').length;
    searches.refuse = true;
    try {
      const response = await upload(app, '/api/import/letterboxd', account.token, { 'watched.csv': csv('Date,Name,Year,Letterboxd URI', films) });
      expect(response.status).toBe(200);
      expect(response.json.unmatched).toHaveLength(20);
      expect(tmdb.seen('/search/movie').length - before).toBe(20); // asked, refused (401 is not retried)
    } finally {
      searches.refuse = false;
    }
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(20);
  });

  it('a catalog that is down (nothing listening) is logged; the items stay unmatched and the rest is imported', async () => {
    const account = await makeAccount();
    const down = createTmdbProvider({ apiKey: tmdbKey, baseUrl: await deadUrl(), imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock(), maxAttempts: 2 } });
    const catalog = createCatalogService([down], logger);
    const movie = await db().movie.create({ data: { tmdbId: idBlock(), title: `Stored ${unique()}`, releaseDate: '2003-03-03' } });
    const titles: ImportTitle[] = [
      { kind: 'movie', ids: {}, title: movie.title, year: 2003, history: [{ watched: true, at: new Date('2020-01-01T12:00:00Z') }] },
      { kind: 'movie', ids: {}, title: `Unreachable ${unique()}`, year: 2003, history: [{ watched: true, at: new Date('2020-01-02T12:00:00Z') }] },
    ];
    const documents: ImportDocument[] = [{ source: 'letterboxd', fileName: 'watched.csv', shows: [], titles, skipped: [] }];
    const queries = new Map<string, PrepassQuery>();
    for (const document of documents) collectIdQueries(document, queries);
    warnings.length = 0;
    // The stored title is not asked about; the other one is, and fails.
    expect(await resolveUnknownIds(catalog, queries, noOwner, logger)).toEqual({ unknown: 1, asked: 1, found: 0 });
    expect(warnings.some((message) => message.includes(`catalog provider tmdb: search movie "${titles[1]!.title}" (2003) failed`))).toBe(true);
    const result = await applyImportDocuments({ accountId: account.id, documents: () => documents });
    expect(result.unmatched.map((item) => item.title)).toEqual([titles[1]!.title]);
    expect(await db().libraryItem.count({ where: { accountId: account.id, movieId: movie.id } })).toBe(1);
  });

  it('the transaction matches stored rows the same way: " (YEAR)" ignored on either side, never when two rows fit', async () => {
    const account = await makeAccount();
    const base = unique();
    const plain = await db().movie.create({ data: { tmdbId: idBlock(), title: `Solaris ${base}`, releaseDate: '1972-03-20' } });
    const suffixed = await db().movie.create({ data: { tmdbId: idBlock(), title: `Stalker ${base} (1979)`, releaseDate: '1979-05-25' } });
    // Both "Nostalghia" and "Nostalghia (1983)" of 1983: ambiguous. A "(1983)" on a 1984 film is part of its title.
    await db().movie.create({ data: { tmdbId: idBlock(), title: `Nostalghia ${base}`, releaseDate: '1983-09-01' } });
    await db().movie.create({ data: { tmdbId: idBlock(), title: `nostalghia ${base} (1983)`, releaseDate: '1983-10-01' } });
    const offYear = await db().movie.create({ data: { tmdbId: idBlock(), title: `Mirror ${base} (1983)`, releaseDate: '1984-01-01' } });
    const title = (name: string, year: number): ImportTitle => ({ kind: 'movie', ids: {}, title: name, year, history: [{ watched: true, at: new Date('2021-01-01T12:00:00Z') }] });
    const documents: ImportDocument[] = [{
      source: 'letterboxd', fileName: 'watched.csv', shows: [], skipped: [],
      titles: [title(`SOLARIS ${base} (1972)`, 1972), title(` stalker ${base}`, 1979), title(`Nostalghia ${base}`, 1983), title(`Mirror ${base}`, 1984), title(`Mirror ${base} (1983)`, 1984)],
    }];
    const result = await applyImportDocuments({ accountId: account.id, documents: () => documents });
    expect(result.unmatched.map((item) => item.title)).toEqual([`Nostalghia ${base}`, `Mirror ${base}`]);
    const library = await db().libraryItem.findMany({ where: { accountId: account.id }, orderBy: { movieId: 'asc' } });
    expect(library.map((row) => row.movieId)).toEqual([plain.id, suffixed.id, offYear.id]);
  });

  it('hostile titles: wildcards, quotes, backslashes and control characters are searched as text; one too long for a search is not sent', async () => {
    const account = await makeAccount();
    const base = unique();
    const odd = [`100% ${base}_x`, `"Quoted" ${base}`, `Back\\slash ${base}`, `Tab\there ${base}`, `Ünïcödé ${base} 映画`];
    const ids = idBlock();
    tmdbData.movies.push(...odd.map((name, index) => ({ id: ids + index, title: name, release_date: '2011-02-02', poster_path: null, overview: '' })));
    tmdbData.movies.push({ id: ids + 50, title: `100 ${base}x`, release_date: '2011-02-02', poster_path: null, overview: '' }); // what % and _ would match as wildcards
    const long = `${'Long '.repeat(60)}${base}`;
    const titles = [...odd, long].map((name): ImportTitle => ({ kind: 'movie', ids: {}, title: name, year: 2011, history: [{ watched: true, at: new Date('2021-03-03T12:00:00Z') }] }));
    const documents: ImportDocument[] = [{ source: 'letterboxd', fileName: 'watched.csv', shows: [], titles, skipped: [] }];
    const provider = createTmdbProvider({ apiKey: tmdbKey, baseUrl: tmdb.url, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock() } });
    const queries = new Map<string, PrepassQuery>();
    collectIdQueries(documents[0]!, queries);
    const before = tmdb.seen('/search/movie').length;
    expect(await resolveUnknownIds(createCatalogService([provider], logger), queries, noOwner, logger)).toEqual({ unknown: 6, asked: 6, found: 5 });
    const sent = tmdb.seen('/search/movie').slice(before).map((request) => request.query.get('query'));
    expect(sent.sort()).toEqual([...odd].sort()); // the long one was never sent
    const result = await applyImportDocuments({ accountId: account.id, documents: () => documents });
    expect(result.unmatched.map((item) => item.title)).toEqual([long]);
    const movies = await db().movie.findMany({ where: { tmdbId: { in: [...odd.map((_, index) => ids + index), ids + 50] } }, orderBy: { tmdbId: 'asc' } });
    expect(movies.map((movie) => movie.title)).toEqual(odd);
  });

  it('title searches share importCatalogLookups.perRequest with id lookups (ids first); the rest stay unmatched', async () => {
    const file = path.join(folder, 'empty.json');
    writeFileSync(file, JSON.stringify({ shows: [], movies: [], games: [] }));
    const offline = createOfflineProvider(file);
    const calls = { search: 0, resolve: 0 };
    const counting: CatalogProvider = {
      ...offline,
      name: 'offline',
      search: (text, kind, options) => ((calls.search += 1), offline.search(text, kind, options)),
      resolveId: (query) => ((calls.resolve += 1), offline.resolveId!(query)),
    };
    const catalog = createCatalogService([counting], logger);
    const ids = 1_500;
    const titled = importCatalogLookups.perRequest - ids + 300;
    const base = unique();
    const documents: ImportDocument[] = [{
      source: 'letterboxd', fileName: 'watched.csv', shows: [], skipped: [],
      titles: [
        ...Array.from({ length: ids }, (_, index): ImportTitle => ({ kind: 'movie', ids: { imdb: `tt${base}${index}` }, title: `Imdb ${index}`, history: [] })),
        // Each title twice, once with different case and spacing: asked once.
        ...Array.from({ length: titled * 2 }, (_, index): ImportTitle => ({ kind: index % 2 ? 'game' : 'movie', ids: {}, title: index >= titled ? ` ${`Budget ${base} ${index - titled}`.toUpperCase()} ` : `Budget ${base} ${index}`, year: 2000, history: [] })),
      ],
    }];
    // Titles alternate movie and game; the repeat of index i is index i + titled, which has the other kind when titled is odd.
    expect(titled % 2).toBe(0);
    const queries = new Map<string, PrepassQuery>();
    collectIdQueries(documents[0]!, queries);
    expect(queries.size).toBe(ids + titled);
    warnings.length = 0;
    const summary = await resolveUnknownIds(catalog, queries, noOwner, logger);
    expect(summary).toEqual({ unknown: ids + titled, asked: importCatalogLookups.perRequest, found: 0 });
    expect(calls).toEqual({ resolve: ids, search: importCatalogLookups.perRequest - ids });
    expect(warnings).toContain(`import: ${titled} titles unknown to the catalog, searching for ${importCatalogLookups.perRequest - ids} (importCatalogLookups.perRequest, ids first)`);
  });

  it('the pending-import retry searches by title too: a film TMDB learns after the import is added with its date', async () => {
    const account = await makeAccount();
    const base = unique();
    const title = `Late Film ${base}`;
    const watched = csv('Date,Name,Year,Letterboxd URI', [['2018-07-08', title, 2017, `https://boxd.it/l${base}`]]);
    const first = await upload(app, '/api/import/letterboxd', account.token, { 'watched.csv': watched });
    expect(first.status).toBe(200);
    expect(first.json.unmatched).toEqual([expect.objectContaining({ title, year: 2017, sourceId: `https://boxd.it/l${base}` })]);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(1);

    const id = idBlock();
    tmdbData.movies.push({ id, title, release_date: '2017-11-11', poster_path: null, overview: '' });
    const provider = createTmdbProvider({ apiKey: tmdbKey, baseUrl: tmdb.url, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock() } });
    const summary = await retryPendingImports({ catalog: createCatalogService([provider], logger), accountId: account.id, logger });
    expect(summary).toMatchObject({ tried: 1, matched: 1 });
    const movie = await db().movie.findUniqueOrThrow({ where: { tmdbId: id } });
    const events = await db().watchEvent.findMany({ where: { accountId: account.id, movieId: movie.id } });
    expect(events.map((event) => event.at.toISOString().slice(0, 10))).toEqual(['2018-07-08']);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(0);
  });
});
