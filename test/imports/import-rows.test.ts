import { describe, expect, it } from 'vitest';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { db } from '../../src/db/client.ts';
import { TooLargeError } from '../../src/errors.ts';
import { resolveUnknownIds, type PrepassQuery } from '../../src/imports/import-prepass.ts';
import { documentRows } from '../../src/imports/import-rows.ts';
import { applyImportDocuments } from '../../src/imports/import-service.ts';
import { importUploads } from '../../src/imports/import-upload.ts';
import { importParsers } from '../../src/imports/sources/import-sources.ts';
import type { ImportDocument } from '../../src/imports/sources/import-document.ts';
import { importCatalogLookups, importRows } from '../../src/limits.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, json, traktMoviePlay } from './fixtures.ts';

/**
 * Issue 31, item 5: one import request lists at most importRows.perRequest entries (413 naming the
 * bound, nothing written), and nothing on the way from the files to the database spreads a list
 * that grows with the files into a call's arguments (a 300 000-row CSV answered 500: "Maximum call
 * stack size exceeded" in the pre-pass).
 */
const { app } = await useTestApp();

/** Letterboxd's watched.csv of `rows` films, each its own (the shape of the CSV). */
function watchedCsv(rows: number, first = 0): Uint8Array {
  const lines = ['Date,Name,Year,Letterboxd URI'];
  for (let index = first; index < first + rows; index += 1) lines.push(`2024-01-1${index % 10},Film ${index},${1990 + (index % 30)},https://boxd.it/${index.toString(36)}`);
  return bytes(`${lines.join('\n')}\n`);
}

/** A Trakt history of `count` plays of films with TMDB ids of their own (so an import would create their rows). */
function traktFilms(count: number): { file: Uint8Array; tmdbIds: number[] } {
  const tmdbIds = Array.from({ length: count }, () => unique());
  const plays = tmdbIds.map((tmdb, index) => traktMoviePlay(index, new Date(Date.UTC(2024, 0, 1 + index)).toISOString(), `Film ${tmdb}`, tmdb));
  return { file: json(plays), tmdbIds };
}

const stored = async (accountId: number, tmdbIds: number[]) => ({
  library: await db().libraryItem.count({ where: { accountId } }),
  history: await db().watchEvent.count({ where: { accountId } }),
  pending: await db().pendingImport.count({ where: { accountId } }),
  films: await db().movie.count({ where: { tmdbId: { in: tmdbIds } } }),
});

describe('the row bound of an import request', () => {
  it('counts every item, episode, viewing and skipped line of a document', () => {
    const parsed = importParsers.trakt!.parseFile!(traktFilms(10).file, 'watched-history-1.json');
    // Ten films, one viewing each.
    expect(documentRows(parsed)).toBe(20);
    const csv = importParsers.letterboxd!.parse([{ name: 'watched.csv', bytes: watchedCsv(7) }], { timeZone: 'UTC', timeZoneChosen: false });
    expect(csv.map(documentRows)).toEqual([14]);
  });

  it('an upload one entry past the bound: 413 naming it, and nothing is stored; at the bound: imported', async () => {
    const account = await makeAccount();
    const { file, tmdbIds } = traktFilms(10);
    const props = { accountId: account.id, source: 'trakt' as const, files: [{ name: 'watched-history-1.json', bytes: file }], accountTimeZone: 'UTC' };
    const refused = importUploads({ ...props, maxRows: 19 });
    await expect(refused).rejects.toThrow(TooLargeError);
    await expect(refused).rejects.toThrow('watched-history-1.json: the upload lists more than 19 entries (shows, films, games, episodes, viewings and skipped lines), the most one import takes (importRows); split the library into several imports');
    expect(await stored(account.id, tmdbIds)).toEqual({ library: 0, history: 0, pending: 0, films: 0 });

    const summary = await importUploads({ ...props, maxRows: 20 });
    expect(summary.imported).toMatchObject({ movies: 10, history: 10 });
    expect(await stored(account.id, tmdbIds)).toEqual({ library: 10, history: 10, pending: 0, films: 10 });
  });

  it('the bound counts across the files of a request', async () => {
    const account = await makeAccount();
    const [first, second] = [traktFilms(6), traktFilms(6)];
    const files = [{ name: 'watched-history-1.json', bytes: first.file }, { name: 'watched-history-2.json', bytes: second.file }];
    await expect(importUploads({ accountId: account.id, source: 'trakt', files, accountTimeZone: 'UTC', maxRows: 23 })).rejects.toThrow('watched-history-2.json: the upload lists more than 23 entries');
    expect(await stored(account.id, [...first.tmdbIds, ...second.tmdbIds])).toEqual({ library: 0, history: 0, pending: 0, films: 0 });
  });

  it(`POST /api/import: a CSV of importRows.perRequest + 1 rows answers 413 naming the bound, and stores nothing`, async () => {
    const account = await makeAccount();
    const response = await upload(app, '/api/import/letterboxd', account.token, { 'watched.csv': watchedCsv(importRows.perRequest + 1) });
    expect(response.status).toBe(413);
    expect(response.json.error).toBe(`watched.csv: the CSV has more than ${importRows.perRequest.toLocaleString('en')} rows, the most one import takes (importRows); split it into several imports`);
    expect(await stored(account.id, [])).toEqual({ library: 0, history: 0, pending: 0, films: 0 });
  }, 120_000);
});

describe('lists that grow with the files are never spread into arguments', () => {
  it('a document of 300 000 skipped lines is applied (result.skipped was filled by push(...list))', async () => {
    const account = await makeAccount();
    const skipped = Array.from({ length: 300_000 }, (_, index) => ({ item: `line ${index + 2}`, reason: 'no usable id' }));
    const document: ImportDocument = { source: 'letterboxd', fileName: 'watched.csv', shows: [], titles: [], skipped };
    const result = await applyImportDocuments({ accountId: account.id, documents: () => [document] });
    expect(result.skipped).toHaveLength(300_000);
    expect(result.skipped[299_999]).toEqual({ file: 'watched.csv', item: 'line 300001', reason: 'no usable id' });
  });

  it('the pre-pass takes 200 000 unknown titles (its title list was filled by push(...list))', async () => {
    const queries = new Map<string, PrepassQuery>();
    const base = unique();
    for (let index = 0; index < 200_000; index += 1) queries.set(`movie:${index}`, { kind: 'movie', title: `Unknown Film ${base}-${index}`, year: 2001 });
    const catalog = createCatalogService([], { warn: () => {} });
    const summary = await resolveUnknownIds(catalog, queries, (await makeAccount()).id);
    expect(summary).toEqual({ unknown: 200_000, asked: importCatalogLookups.perRequest, found: 0 });
    // Looking the titles up among stored rows takes 800 queries: 68 s on PostgreSQL at a load of 25.
  }, 240_000);

  it('a film named 60 000 times in one file gets its 60 000 viewings, in order', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const start = Date.UTC(2020, 0, 1);
    // Newest first, as exports write them: each repeat used to be joined to the others and sorted again.
    const titles = Array.from({ length: 60_000 }, (_, index) => ({
      kind: 'movie' as const, ids: { tmdb }, title: `Film ${tmdb}`, history: [{ watched: true, at: new Date(start + (60_000 - index) * 60_000) }],
    }));
    const result = await applyImportDocuments({ accountId: account.id, documents: () => [{ source: 'trakt', fileName: 'h.json', shows: [], titles, skipped: [] }] });
    expect(result.imported).toMatchObject({ movies: 1, history: 60_000 });
    const state = await db().watchState.findFirst({ where: { accountId: account.id } });
    expect(state?.changedAt).toEqual(new Date(start + 60_000 * 60_000));
  }, 120_000);
});

