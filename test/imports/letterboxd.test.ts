import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import type { UploadedFile } from '../../src/imports/sources/expand-uploads.ts';
import type { ImportDocument } from '../../src/imports/sources/import-document.ts';
import { parseLetterboxdFiles } from '../../src/imports/sources/parse-letterboxd.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, grouveeHeader, grouveeRow, json, zip } from './fixtures.ts';

const { app } = await useTestApp();

const cell = (value: string | number) => (/[",\r\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
/** A CSV as Letterboxd writes it, here with a BOM and CRLF line ends. */
const csv = (header: string, rows: (string | number)[][]) => bytes(`\uFEFF${[header, ...rows.map((row) => row.map(cell).join(','))].join('\r\n')}\r\n`);
const day = (offset: number) => new Date(Date.UTC(2015, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * An export of `films` films: every one in watched.csv (film URIs), three diary rows for every
 * tenth (a rewatch each, the first on the watched date), one for the rest, 100 in the watchlist
 * only, 300 rated. Two films share a name and year but not their URI.
 */
function letterboxdExport(films: number, base: number) {
  const name = (index: number) => (index === 3 ? 'Filipiñana' : index === 4 ? 'Amélie, "Le Fabuleux Destin"' : index === 6 ? 'Twin Title' : index === 7 ? 'Twin Title' : `Film ${base}-${index}`);
  const year = (index: number) => (index === 7 ? 1999 + 6 % 30 : 1990 + (index % 30));
  const uri = (index: number) => `https://boxd.it/f${base}x${index}`;
  const watched: (string | number)[][] = [];
  const diary: (string | number)[][] = [];
  let diaryEntry = 0;
  for (let index = 0; index < films; index += 1) {
    watched.push([day(index), name(index), year(index), uri(index)]);
    const viewings = index % 10 === 0 ? [day(index), day(index + 400), day(index + 400)] : [day(index)];
    viewings.forEach((date, viewing) => {
      diaryEntry += 1;
      diary.push([day(index + viewing), name(index), year(index), `https://boxd.it/d${base}e${diaryEntry}`, '3.5', viewing > 0 ? 'Yes' : '', viewing === 1 ? 'cinema, 35mm' : '', date]);
    });
  }
  const watchlist = Array.from({ length: 100 }, (_, index) => [day(index), `Wanted ${base}-${index}`, 2024, `https://boxd.it/w${base}x${index}`]);
  const ratings = Array.from({ length: 300 }, (_, index) => [day(index), name(index), year(index), uri(index), 4]);
  return {
    diaryRows: diary.length,
    files: {
      'letterboxd-fixture-2025-01-01-00-00-utc/watched.csv': csv('Date,Name,Year,Letterboxd URI', watched),
      'letterboxd-fixture-2025-01-01-00-00-utc/diary.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date', diary),
      'letterboxd-fixture-2025-01-01-00-00-utc/ratings.csv': csv('Date,Name,Year,Letterboxd URI,Rating', ratings),
      'letterboxd-fixture-2025-01-01-00-00-utc/watchlist.csv': csv('Date,Name,Year,Letterboxd URI', watchlist),
      'letterboxd-fixture-2025-01-01-00-00-utc/reviews.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date', [[day(1), name(1), year(1), 'https://boxd.it/r1', 4, '', 'Line one,\nline "two"', '', day(1)]]),
      'letterboxd-fixture-2025-01-01-00-00-utc/profile.csv': csv('Date Joined,Username,Given Name,Family Name,Email Address,Location,Website,Bio,Pronoun,Favorite Films', [['2015-01-01', 'fixture', '', '', 'f@example.org', '', '', '', '', '']]),
      'letterboxd-fixture-2025-01-01-00-00-utc/comments.csv': csv('Date,Content,Comment', [['2015-01-01', 'x', 'nice']]),
      'letterboxd-fixture-2025-01-01-00-00-utc/likes/films.csv': csv('Date,Name,Year,Letterboxd URI', [[day(1), name(1), year(1), uri(1)]]),
      'letterboxd-fixture-2025-01-01-00-00-utc/lists/favourites.csv': bytes('Letterboxd list export v7\r\nDate,Name,Tags,URL,Description\r\n2015-01-01,Faves,,https://boxd.it/l1,\r\n\r\nPosition,Name,Year,URL,Description\r\n1,Film,2019,https://boxd.it/f1,\r\n'),
      'letterboxd-fixture-2025-01-01-00-00-utc/deleted/diary.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date', [[day(1), 'Gone', 2001, 'https://boxd.it/g1', '', '', '', day(1)]]),
    } as Record<string, Uint8Array>,
  };
}

const parse = (files: Record<string, Uint8Array>): ImportDocument => {
  const uploaded: UploadedFile[] = Object.entries(files).map(([name, content]) => ({ name: `export.zip/${name}`, bytes: content }));
  const [document, ...more] = parseLetterboxdFiles(uploaded);
  expect(more).toEqual([]);
  return document!;
};

describe('Letterboxd parser', () => {
  it('turns 1 800 films and their 2 160 diary rows into movies with title, year and film URI; rewatches are history entries', () => {
    const base = unique();
    const { files, diaryRows } = letterboxdExport(1800, base);
    expect(diaryRows).toBe(2160);
    const document = parse(files);
    expect(document.source).toBe('letterboxd');
    expect(document.fileName).toBe('export.zip');
    expect(document.titles).toHaveLength(1900);
    const byUri = new Map(document.titles.map((movie) => [movie.sourceId, movie]));
    const ten = byUri.get(`https://boxd.it/f${base}x10`)!;
    expect(ten).toMatchObject({ kind: 'movie', ids: {}, title: `Film ${base}-10`, year: 2000 });
    // The diary's first viewing is the watched.csv date (one entry); the two rewatches on one day stay two.
    expect(ten.history.map((entry) => entry.at.toISOString())).toEqual([`${day(10)}T12:00:00.000Z`, `${day(410)}T12:00:00.000Z`, `${day(410)}T12:00:01.000Z`]);
    expect(byUri.get(`https://boxd.it/f${base}x11`)!.history).toEqual([{ watched: true, at: new Date(`${day(11)}T12:00:00Z`) }]);
    expect(byUri.get(`https://boxd.it/f${base}x3`)!.title).toBe('Filipiñana');
    expect(byUri.get(`https://boxd.it/f${base}x4`)!.title).toBe('Amélie, "Le Fabuleux Destin"');
    // Same name and year, two film URIs: two movies.
    expect(document.titles.filter((movie) => movie.title === 'Twin Title').map((movie) => movie.sourceId)).toEqual([`https://boxd.it/f${base}x6`, `https://boxd.it/f${base}x7`]);
    const wanted = byUri.get(`https://boxd.it/w${base}x0`)!;
    expect([wanted.history, wanted.watched, wanted.year]).toEqual([[], undefined, 2024]);
    const history = document.titles.reduce((sum, movie) => sum + movie.history.length, 0);
    // 2 160 diary rows; the diary of a film "Twin Title" goes to the first of the two.
    expect(history).toBe(2160);
    // Named by their path inside the upload (the zip's `file` is export.zip).
    const folder = 'letterboxd-fixture-2025-01-01-00-00-utc';
    expect(document.skipped).toEqual([
      { item: `${folder}/reviews.csv`, reason: 'not imported: reviews are not stored (diary.csv has the same viewings)' },
      { item: `${folder}/profile.csv`, reason: 'not imported: account data, no films' },
      { item: `${folder}/comments.csv`, reason: 'not imported: account data, no films' },
      { item: `${folder}/likes/films.csv`, reason: 'not imported: likes are not stored' },
      { item: `${folder}/lists/favourites.csv`, reason: 'not imported: Letterboxd lists are not stored' },
      { item: `${folder}/deleted/diary.csv`, reason: 'not imported: entries deleted from the account (or left without their film)' },
      { item: `${folder}/ratings.csv`, reason: 'ratings are not stored; its 300 films are followed' },
    ]);
  });

  it('a film only in the diary keeps its diary URI; a diary row without Watched Date is dated by its Date; bad dates are refused', () => {
    const diaryOnly = csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date', [['2024-05-06', 'Diary Film', 2010, 'https://boxd.it/dE1', '', '', '', '']]);
    const document = parse({ 'diary.csv': diaryOnly });
    expect(document.titles).toEqual([{ kind: 'movie', ids: {}, title: 'Diary Film', year: 2010, sourceId: 'https://boxd.it/dE1', history: [{ watched: true, at: new Date('2024-05-06T12:00:00Z') }] }]);
    const bad = csv('Date,Name,Year,Letterboxd URI', [['06/05/2024', 'Film', 2010, 'https://boxd.it/x']]);
    expect(() => parse({ 'watched.csv': bad })).toThrow('export.zip/watched.csv: line 2: date "06/05/2024" is not a date (YYYY-MM-DD)');
  });

  it('a film listed twice in watched.csv is one movie, the second row reported as merged', () => {
    const watched = csv('Date,Name,Year,Letterboxd URI', [['2024-01-01', 'Once', 2001, 'https://boxd.it/o1'], ['2024-02-02', 'Once', 2001, 'https://boxd.it/o1']]);
    const document = parse({ 'watched.csv': watched });
    expect(document.titles.map((movie) => movie.history.length)).toEqual([2]);
    expect(document.skipped).toEqual([{ item: 'Once (watched.csv line 3)', reason: 'merged as a duplicate: line 2 lists the same film' }]);
  });

  it('refuses other services\' files and an export without films', () => {
    expect(() => parse({ 'grouvee.csv': bytes([grouveeHeader, grouveeRow('Portal', 71, 'Played')].join('\n')) })).toThrow(/^export\.zip\/grouvee\.csv: is a Grouvee collection CSV, not a Letterboxd export/);
    expect(() => parse({ 'watched.json': json([{ watched_at: '2024-01-01T00:00:00Z', type: 'movie' }]) })).toThrow(/^export\.zip\/watched\.json: is a Trakt JSON file, not a Letterboxd export/);
    expect(() => parse({ 'profile.csv': csv('Date Joined,Username', [['2015-01-01', 'x']]) })).toThrow(/^export\.zip: holds no films/);
  });
});

describe('POST /api/import/letterboxd', () => {
  it('imports the export zip: every film a movie or an unmatched entry, nothing followed twice; importing again adds nothing', async () => {
    const account = await makeAccount();
    const { files } = letterboxdExport(1800, unique());
    const file = zip(files);
    const first = await upload(app, '/api/import/letterboxd', account.token, { 'letterboxd-fixture.zip': file });
    expect(first.status).toBe(200);
    expect(first.json.imported.movies + first.json.unmatched.length).toBe(1900);
    expect(first.json.skipped).toHaveLength(7);
    const again = await upload(app, '/api/import/letterboxd', account.token, { 'again.zip': file });
    expect(again.status).toBe(200);
    expect(again.json.imported.history).toBe(0);
  });

  it('400 for another service\'s file, in GraphQL\'s enum as well', async () => {
    const account = await makeAccount();
    const response = await upload(app, '/api/import/letterboxd', account.token, { 'SimklBackup.json': json({ shows: [{ show: { title: 'x', ids: { simkl: 1 } }, watched_episodes_count: 1 }] }) });
    expect(response).toEqual({ status: 400, json: { error: 'SimklBackup.json: is a Simkl JSON backup, not a Letterboxd export (watched.csv, diary.csv, ratings.csv or watchlist.csv with a "Letterboxd URI" column)' } });
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    const schema = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` }, body: JSON.stringify({ query: '{ __type(name: "ImportSource") { enumValues { name } } }' }) }));
    expect(JSON.stringify(await schema.json())).toContain('"LETTERBOXD"');
  });
});
