import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { parseTvTimeFiles } from '../../src/imports/sources/parse-tvtime.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { zip } from './fixtures.ts';
import { csvFile, headers, isoTime, showName, uuidOf } from './tvtime-fixtures.ts';

/**
 * Issue 26, item 3: TV Time's current data export names the items of `tvtime-lists-….csv` by TV
 * Time's uuid; `tvtime-movies-….csv` and `tvtime-series-….csv` give each uuid its TheTVDB and IMDb
 * ids. A real file's 206 movie items all had their uuid there, yet 194 (those without a tvdb_id in
 * the list row) ended in `unmatched`. They are joined by uuid now.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-tvtime-lists-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// Kept small: TheTVDB ids base + 20 000 + i stay within 32 bits.
const base = (unique() % 100_000) * 1_000;
const imdbOf = (index: number) => `tt${90_000_000 + base + index}`;

/**
 * A data export of 260 movies (every 4th without a TheTVDB id; two films called "Heat", 1986 and
 * 1995) and 40 shows, whose lists name 206 of the movies and all the shows: the first 12 movie rows
 * carry the movie's tvdb_id (when it has one), the other 194 and every show row only the uuid.
 */
function listedExport() {
  const movies = Array.from({ length: 260 }, (_, index) => ({
    uuid: uuidOf(base + index), tvdb_id: index % 4 === 0 ? '' : base + 10_000 + index, imdb_id: imdbOf(index), title: index < 2 ? `Heat ${base}` : `Listed Film ${base}-${index}`,
    year: index === 0 ? 1986 : index === 1 ? 1995 : 1960 + (index % 60), created_at: isoTime(new Date(Date.UTC(2023, 0, 1) + index * 86_400_000)), watched_at: '', is_watched: 'false', rewatch_count: 0,
  }));
  const shows = Array.from({ length: 40 }, (_, index) => ({
    uuid: uuidOf(base + 5_000 + index), tvdb_id: base + 20_000 + index, imdb_id: `tt${91_000_000 + base + index}`, title: showName(index), status: 'watch_later', created_at: isoTime(new Date(Date.UTC(2023, 0, 1))),
  }));
  const movieItems = movies.slice(0, 206).map((movie, index) => ({
    list_id: 2, list_name: 'Films, to see', item_type: 'movie', tvdb_id: index < 12 ? movie.tvdb_id : '', uuid: movie.uuid, name: movie.title, custom_order: index,
  }));
  const showItems = shows.map((show, index) => ({ list_id: 1, list_name: 'Series', item_type: 'series', tvdb_id: '', uuid: show.uuid, name: show.title, custom_order: index }));
  return {
    movies,
    shows,
    files: {
      'tvtime-movies-2026-01-02.csv': csvFile(headers.movies, movies, { bom: true, crlf: true }),
      'tvtime-series-2026-01-02.csv': csvFile(headers.series, shows, { shuffle: 3, crlf: true }),
      'tvtime-lists-2026-01-02.csv': csvFile(headers.lists, [...movieItems, ...showItems], { shuffle: 5, bom: true, crlf: true }),
    } as Record<string, Uint8Array>,
  };
}

const fixture = listedExport();
// The catalog knows every film by its TMDB and IMDb ids (the offline file; TMDB's /find answers the same way).
const catalogFile = path.join(folder, 'catalog.json');
writeFileSync(catalogFile, JSON.stringify({
  shows: [],
  movies: fixture.movies.map((movie, index) => ({
    ids: { tmdb: base + 30_000 + index, imdb: movie.imdb_id, ...(movie.tvdb_id === '' ? {} : { tvdb: movie.tvdb_id }) },
    title: movie.title,
    release_date: `${movie.year}-03-01`,
  })),
  games: [],
}));
const { app } = await useTestApp({ AIRDATE_CATALOG_FILE: catalogFile });

describe('TV Time data export lists joined by uuid', () => {
  it('gives every list item the ids and year the movies and series files give its uuid (parser)', () => {
    const documents = parseTvTimeFiles(Object.entries(fixture.files).map(([name, bytes]) => ({ name: `export.zip/${name}`, bytes })));
    const lists = documents.find((document) => document.fileName.endsWith('tvtime-lists-2026-01-02.csv'))!;
    expect(lists.titles).toHaveLength(206);
    expect(lists.titles.filter((movie) => movie.ids.imdb === undefined)).toEqual([]);
    expect(lists.titles.slice(0, 2).map((movie) => [movie.title, movie.year, movie.ids, movie.sourceId])).toEqual([
      [`Heat ${base}`, 1986, { imdb: imdbOf(0) }, uuidOf(base)],
      [`Heat ${base}`, 1995, { tvdb: base + 10_001, imdb: imdbOf(1) }, uuidOf(base + 1)],
    ]);
    expect(lists.shows.map((show) => show.ids)).toEqual(fixture.shows.map((show) => ({ tvdb: show.tvdb_id, imdb: show.imdb_id })));
    expect(lists.skipped).toEqual([]);
  });

  it('imports the 206 listed movies as the films the movies file names, none unmatched; the two "Heat"s stay two', async () => {
    const account = await makeAccount();
    const answer = await upload(app, '/api/import/tvtime', account.token, { 'tvtime-data-export.zip': zip(fixture.files) });
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(200);
    expect(answer.json.unmatched).toEqual([]);
    expect(answer.json.imported).toMatchObject({ shows: 40, movies: 260 });
    const followed = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'movie', followed: true }, select: { movie: { select: { imdbId: true, title: true } } } });
    expect(followed.map((item) => item.movie!.imdbId).sort()).toEqual(fixture.movies.map((movie) => movie.imdb_id).sort());
    expect(followed.filter((item) => item.movie!.title === `Heat ${base}`)).toHaveLength(2);
    // One show per series, whether the list or the series file named it.
    expect(await db().show.count({ where: { tvdbId: { gte: base + 20_000, lt: base + 20_040 } } })).toBe(40);
  });
});
