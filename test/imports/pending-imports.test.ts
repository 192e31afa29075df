import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { createOfflineProvider } from '../../src/catalog/offline-catalog.ts';
import { jobNames } from '../../src/jobs.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { retryPendingImports } from '../../src/imports/pending-imports.ts';
import { pendingImports } from '../../src/limits.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { upload } from '../support/upload.ts';
import { bytes, zip } from './fixtures.ts';
import { csvFile, goTime, headers, isoTime } from './tvtime-fixtures.ts';

/**
 * Unmatched import items are kept with the account and retried when the catalog can answer them:
 * here the offline catalog file grows after the import, and the account's sync (or the periodic
 * catalog refresh) brings them into the library with their original dates.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-pending-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const catalogFile = path.join(folder, 'catalog.json');
type CatalogFile = { shows: unknown[]; movies: unknown[]; games: unknown[] };
const writeCatalog = (catalog: CatalogFile) => writeFileSync(catalogFile, JSON.stringify(catalog));
writeCatalog({ shows: [{ ids: { tmdb: 9_100_001 }, title: 'Already Known', episodes: [] }], movies: [], games: [] });
const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: catalogFile, AIRDATE_JOB_POLL_MS: '100' });

const day = 86_400_000;
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const grouveeColumns = ['id', 'name', 'shelves', 'platforms', 'rating', 'review', 'dates', 'statuses', 'genres', 'franchises', 'developers', 'publishers', 'release_date', 'url', 'giantbomb_id'];

/**
 * The three kinds of file the issue names, all unknown to the catalog at first:
 * - an older 15-column Grouvee export of 300 games known by giantbomb_id only (BOM, CRLF, a
 *   quoted newline, two different games both called "Remade Classic");
 * - TV Time's older seen_episode.csv: 1 500 watched episodes by TheTVDB episode id only, of 30
 *   shows of 50 episodes, times in Go's ` +0000 UTC` form;
 * - TV Time's current tvtime-movies file: 200 watched movies known by IMDb id only.
 */
let fixtures = 0;
function fixture(base: number) {
  // Catalog ids fit the database's INTEGER columns: a number per fixture of this file, not `base`.
  const k = ++fixtures;
  const giantbombOf = (index: number) => 100_000_000 + k * 1_000 + index;
  const imdbOf = (index: number) => `tt${400_000_000 + k * 1_000 + index}`;
  const games = Array.from({ length: 300 }, (_, index) => ({
    id: base + index,
    name: index >= 298 ? 'Remade Classic' : index === 9 ? `Line one\nline two ${base}` : `Old Game ${base}-${index}`,
    giantbomb: giantbombOf(index),
    release: `${1990 + (index % 30)}-03-1${index % 10}`,
    played: `2019-0${1 + (index % 9)}-1${index % 10}`,
  }));
  const grouveeRow = (game: (typeof games)[number]) => {
    const values: Record<string, string> = {
      id: String(game.id), name: game.name,
      shelves: JSON.stringify({ Played: { date_added: '2019-03-04T05:06:07Z', url: 'https://www.grouvee.com/user/fixture/shelves/1-played/' } }),
      platforms: '{}', rating: '4', review: '', statuses: '[]', genres: '{}', franchises: '{}', developers: '{}', publishers: '{}',
      dates: JSON.stringify([{ date_started: 'None', date_finished: game.played, seconds_played: 'None', level_of_completion: 'None' }]),
      release_date: game.release, url: `https://www.grouvee.com/games/${game.id}-x/`, giantbomb_id: String(game.giantbomb),
    };
    return grouveeColumns.map((column) => cell(values[column]!)).join(',');
  };
  const grouvee = bytes(`\uFEFF${[grouveeColumns.join(','), ...games.map(grouveeRow)].join('\r\n')}\r\n`);

  const showTvdb = (show: number) => 300_000_000 + k * 100 + show;
  const episodeTvdb = (show: number, episode: number) => 200_000_000 + k * 10_000 + show * 50 + episode;
  const seenAt = (show: number, episode: number) => new Date(Date.UTC(2017, 4, 2, 21, 24, 51) + show * day + episode * 3_600_000);
  const seen = Array.from({ length: 30 * 50 }, (_, index) => {
    const [show, episode] = [Math.floor(index / 50), index % 50];
    const at = goTime(seenAt(show, episode));
    return { tweet_id: '', user_id: 4242, episode_id: episodeTvdb(show, episode), created_at: at, updated_at: at, fb_action_id: '' };
  });
  const seenZip = zip({ 'tvtime-export/seen_episode.csv': csvFile(headers.seenOld, seen, { crlf: true }) });

  const movieWatchedAt = (index: number) => new Date(Date.UTC(2022, 0, 2, 20) + index * day);
  const movies = Array.from({ length: 200 }, (_, index) => ({
    uuid: `0bb1${String(index).padStart(4, '0')}-0000-4000-8000-${String(base).padStart(12, '0').slice(-12)}`, tvdb_id: '', imdb_id: imdbOf(index),
    title: `Imdb Film ${base}-${index}`, year: 1990 + (index % 30), created_at: isoTime(new Date(Date.UTC(2022, 0, 1) + index * day)),
    watched_at: isoTime(movieWatchedAt(index)), is_watched: 'true', rewatch_count: 0,
  }));
  const moviesFile = csvFile(headers.movies, movies, { bom: true, extra: ['information'] });

  /** The catalog file once it knows everything but the last game and the last movie. */
  const grownCatalog = (): CatalogFile => ({
    shows: [
      { ids: { tmdb: 9_100_001 }, title: 'Already Known', episodes: [] },
      ...Array.from({ length: 30 }, (_, show) => ({
        ids: { tvdb: showTvdb(show) }, title: `Seen Show ${base}-${show}`,
        episodes: Array.from({ length: 50 }, (_, episode) => ({ season: 1, number: episode + 1, title: `E${episode + 1}`, air_date: '2016-01-01', ids: { tvdb: episodeTvdb(show, episode) } })),
      })),
    ],
    movies: movies.slice(0, -1).map((movie) => ({ ids: { imdb: movie.imdb_id, tmdb: Number(movie.imdb_id.slice(2)) }, title: movie.title, release_date: `${movie.year}-06-01` })),
    games: games.slice(0, -1).map((game) => ({ ids: { giantbomb: game.giantbomb, igdb: game.giantbomb }, title: game.name, release_date: game.release })),
  });
  return { giantbombOf, imdbOf, games, grouvee, seenZip, seenAt, episodeTvdb, movies, moviesFile, movieWatchedAt, grownCatalog };
}

const pendingQuery = `query Pending($first: Int, $offset: Int) { viewer { pendingImportCount pendingImports(first: $first, offset: $offset) {
  kind title year sourceId source file createdAt lastTriedAt ids { tmdb tvdb igdb imdb giantbomb } } } }`;

/** Every pending import of the account, through GraphQL, a page of 500 at a time. */
async function listPending(token: string) {
  const items: any[] = [];
  let count = 0;
  for (let offset = 0; ; offset += 500) {
    const response = await graphql(app, token, pendingQuery, { first: 500, offset });
    expect(response.json.errors, JSON.stringify(response.json.errors)).toBeUndefined();
    count = response.json.data.viewer.pendingImportCount;
    items.push(...response.json.data.viewer.pendingImports);
    if (response.json.data.viewer.pendingImports.length < 500) break;
  }
  expect(items).toHaveLength(count);
  return items;
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('unmatched import items', () => {
  it('are kept and listed, once per item however often imported; the next sync adds them with their original dates', async () => {
    const account = await makeAccount();
    const base = unique();
    const files = fixture(base);

    const grouvee = await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(grouvee.status).toBe(200);
    expect(grouvee.json.unmatched).toHaveLength(300);
    const seen = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-gdpr.zip': files.seenZip });
    expect(seen.status, JSON.stringify(seen.json).slice(0, 300)).toBe(200);
    expect(seen.json.unmatched).toHaveLength(1_500);
    const movies = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-movies-2024-05-01.csv': files.moviesFile });
    expect(movies.status, JSON.stringify(movies.json).slice(0, 300)).toBe(200);
    expect(movies.json.unmatched).toHaveLength(200);

    let pending = await listPending(account.token);
    expect(pending).toHaveLength(2_000);
    expect(pending.filter((item) => item.kind === 'game')).toHaveLength(300);
    expect(pending.find((item) => item.sourceId === String(base + 5))).toMatchObject({
      kind: 'game', title: `Old Game ${base}-5`, year: 1995, source: 'grouvee', file: 'grouvee-old.csv', lastTriedAt: null,
      ids: { giantbomb: files.giantbombOf(5), tmdb: null, tvdb: null, igdb: null, imdb: null },
    });
    // Same title, two games: two rows, told apart by their Grouvee and Giant Bomb ids.
    expect(pending.filter((item) => item.title === 'Remade Classic').map((item) => item.ids.giantbomb).sort()).toEqual([files.giantbombOf(298), files.giantbombOf(299)]);
    expect(pending.find((item) => item.kind === 'episode' && item.ids.tvdb === files.episodeTvdb(3, 7))).toMatchObject({ source: 'tvtime', file: 'tvtime-gdpr.zip/tvtime-export/seen_episode.csv', title: expect.stringContaining(`tvdb ${files.episodeTvdb(3, 7)}`) });
    expect(pending.find((item) => item.kind === 'movie' && item.ids.imdb === files.imdbOf(4))).toMatchObject({ title: `Imdb Film ${base}-4`, year: 1994, source: 'tvtime' });

    // The same files again: the same rows, still one per item, first imported when they were.
    const createdAt = pending.find((item) => item.kind === 'game')!.createdAt;
    expect((await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee })).json.unmatched).toHaveLength(300);
    const seenAgain = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-gdpr.zip': files.seenZip });
    expect(seenAgain.status, JSON.stringify(seenAgain.json).slice(0, 300)).toBe(200);
    pending = await listPending(account.token);
    expect(pending).toHaveLength(2_000);
    expect(pending.find((item) => item.kind === 'game')!.createdAt).toBe(createdAt);

    // The offline file grows: everything but one game and one movie is known now.
    writeCatalog(files.grownCatalog());
    await app.jobs.start();
    expect((await call(app, 'POST', '/api/machine/sync', { token: account.token })).json).toEqual({ ok: true });
    await waitFor('the sync to retry the pending imports', async () => (await db().pendingImport.count({ where: { accountId: account.id } })) === 2);

    pending = await listPending(account.token);
    expect(pending.map((item) => [item.kind, item.kind === 'game' ? item.sourceId : item.ids.imdb]).sort()).toEqual([['game', String(base + 299)], ['movie', files.imdbOf(199)]]);
    expect(pending.every((item) => item.lastTriedAt !== null)).toBe(true);

    // In the library, with the history's original dates.
    const library = await db().libraryItem.findMany({ where: { accountId: account.id } });
    expect(library.filter((row) => row.kind === 'game')).toHaveLength(299);
    expect(library.filter((row) => row.kind === 'movie')).toHaveLength(199);
    expect(library.filter((row) => row.kind === 'show' && row.followed)).toHaveLength(30);
    const game = await db().game.findUniqueOrThrow({ where: { giantbombId: files.giantbombOf(5) } });
    expect(await db().watchEvent.findMany({ where: { accountId: account.id, gameId: game.id }, select: { watched: true, at: true, source: true } })).toEqual([
      { watched: true, at: new Date('2019-06-15T00:00:00.000Z'), source: 'import:grouvee' },
    ]);
    const episode = await db().episode.findFirstOrThrow({ where: { tvdbId: files.episodeTvdb(3, 7) } });
    expect(await db().watchEvent.findMany({ where: { accountId: account.id, episodeId: episode.id }, select: { watched: true, at: true, source: true } })).toEqual([
      { watched: true, at: files.seenAt(3, 7), source: 'import:tvtime' },
    ]);
    expect(await db().watchState.count({ where: { accountId: account.id, episodeId: { not: null }, watched: true } })).toBe(1_500);
    const movie = await db().movie.findUniqueOrThrow({ where: { imdbId: files.imdbOf(4) } });
    expect(await db().watchEvent.findMany({ where: { accountId: account.id, movieId: movie.id }, select: { at: true } })).toEqual([{ at: files.movieWatchedAt(4) }]);
    // The two games called "Remade Classic": one in the library, one still pending.
    expect(await db().libraryItem.count({ where: { accountId: account.id, game: { title: 'Remade Classic', giantbombId: files.giantbombOf(298) } } })).toBe(1);

    // Importing a file whose items are known now adds nothing twice and keeps nothing pending for them.
    const again = await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(again.json.unmatched).toHaveLength(1);
    expect(again.json.imported.history).toBe(0);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(2);
  });

  it('pages are bounded like every list: first from 0 to 500, offset not negative', async () => {
    const account = await makeAccount();
    for (const variables of [{ first: 501 }, { first: -1 }, { offset: -1 }]) {
      const response = await graphql(app, account.token, pendingQuery, variables);
      expect(response.status, JSON.stringify(variables)).toBe(400);
      expect(response.json.errors[0].message).toMatch(/^Argument "(first|offset)" must/);
    }
    expect((await graphql(app, account.token, pendingQuery, { first: 0 })).json.data.viewer).toEqual({ pendingImportCount: 0, pendingImports: [] });
  });

  it('a dry run keeps none; deleting the account deletes them', async () => {
    const account = await makeAccount();
    const files = fixture(unique());
    const dry = await upload(app, '/api/import/grouvee?dryRun=true', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(dry.json).toMatchObject({ dryRun: true });
    expect(dry.json.unmatched).toHaveLength(300);
    expect(await listPending(account.token)).toEqual([]);

    await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(300);
    await db().account.delete({ where: { id: account.id } });
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(0);
  });

  it(`keeps at most ${pendingImports.perAccount} per account: past it an item is only reported, the same item again still replaces its row`, async () => {
    const account = await makeAccount();
    const files = fixture(unique());
    // 19 900 rows from an earlier import of some other file.
    const earlier = Array.from({ length: pendingImports.perAccount - 100 }, (_, index) => ({
      accountId: account.id, itemKey: `earlier-${index}`, source: 'trakt', file: 'earlier.json', kind: 'movie', title: `Earlier ${index}`, ids: '{}', item: JSON.stringify({ kind: 'movie', ids: {}, title: `Earlier ${index}`, history: [] }),
    }));
    await db().pendingImport.createMany({ data: earlier });
    const response = await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(response.json.unmatched).toHaveLength(300);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(pendingImports.perAccount);
    const kept = await db().pendingImport.findMany({ where: { accountId: account.id, source: 'grouvee' }, select: { sourceId: true } });
    expect(kept.map((row) => Number(row.sourceId) - files.games[0]!.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index));
    // Imported again: the 100 kept are replaced, none added.
    await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(pendingImports.perAccount);
  });

  it('the periodic catalog refresh job retries every account that has some', async () => {
    const [first, second] = [await makeAccount(), await makeAccount()];
    const files = fixture(unique());
    for (const account of [first, second]) expect((await upload(app, '/api/import/tvtime', account.token, { 'tvtime-movies-2024-05-01.csv': files.moviesFile })).status).toBe(200);
    expect(await db().pendingImport.count({ where: { accountId: { in: [first.id, second.id] } } })).toBe(400);
    writeCatalog(files.grownCatalog());
    await app.jobs.start();
    await app.jobs.agenda.now(jobNames.catalogRefresh);
    await waitFor('the refresh job to retry both accounts', async () => (await db().pendingImport.count({ where: { accountId: { in: [first.id, second.id] } } })) === 2);
    for (const account of [first, second]) {
      expect(await db().libraryItem.count({ where: { accountId: account.id, kind: 'movie' } })).toBe(199);
    }
  });

  it('an import that matches items an earlier import kept pending takes them off the list', async () => {
    const account = await makeAccount();
    const files = fixture(unique());
    expect((await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee })).json.unmatched).toHaveLength(300);
    writeCatalog(files.grownCatalog());
    // The same file again before any retry: the import's own pre-pass finds them now.
    const again = await upload(app, '/api/import/grouvee', account.token, { 'grouvee-old.csv': files.grouvee });
    expect(again.json.imported.games).toBe(299);
    expect((await listPending(account.token)).map((item) => item.sourceId)).toEqual([String(files.games[299]!.id)]);
  });

  it('a failed retry is logged and leaves the account’s rows as they were; the other accounts are still retried', async () => {
    const [broken, fine] = [await makeAccount(), await makeAccount()];
    const files = fixture(unique());
    for (const account of [broken, fine]) expect((await upload(app, '/api/import/tvtime', account.token, { 'tvtime-movies-2024-05-01.csv': files.moviesFile })).status).toBe(200);
    // One row of the first account no longer reads as an item (a hand-edited database, say).
    const row = await db().pendingImport.findFirstOrThrow({ where: { accountId: broken.id } });
    await db().pendingImport.update({ where: { id: row.id }, data: { item: '{"kind": "movie", "ids": ' } });
    writeCatalog(files.grownCatalog());
    const warnings: string[] = [];
    const logger = { warn: (message: string) => void warnings.push(message) };
    const summary = await retryPendingImports({ catalog: createCatalogService([createOfflineProvider(catalogFile)], logger), logger });
    expect(summary.failures).toBe(1);
    expect(warnings.filter((message) => message.startsWith('pending imports:'))).toEqual([expect.stringMatching(new RegExp(`^pending imports: retry of account ${broken.id} failed: `))]);
    expect(await db().pendingImport.count({ where: { accountId: broken.id, lastTriedAt: null } })).toBe(200);
    expect(await db().libraryItem.count({ where: { accountId: broken.id } })).toBe(0);
    expect(await db().pendingImport.count({ where: { accountId: fine.id } })).toBe(1);
    expect(await db().libraryItem.count({ where: { accountId: fine.id, kind: 'movie' } })).toBe(199);
  });
});
