import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { parseLetterboxdFiles } from '../../src/imports/sources/parse-letterboxd.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { bytes, zip } from './fixtures.ts';

/**
 * Issue 26, items 4 and 5, on a Letterboxd export as the zip has it (files at its root, `deleted/`
 * and `orphaned/` folders repeating diary.csv and reviews.csv): watched.csv's Date is when a film
 * was marked as seen, not a viewing, so it is a viewing only for a film without any diary entry;
 * and the report names every file by its path inside the upload.
 */
const { app } = await useTestApp();

const cell = (value: string | number) => (/[",\r\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
/** A CSV as Letterboxd writes it, with a BOM and CRLF line ends. */
const csv = (header: string, rows: (string | number)[][]) => bytes(`\uFEFF${[header, ...rows.map((row) => row.map(cell).join(','))].join('\r\n')}\r\n`);
const day = (offset: number) => new Date(Date.UTC(2016, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
const noon = (date: string) => new Date(`${date}T12:00:00Z`).getTime();
const diaryHeader = 'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date';
const reviewHeader = 'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date';

/**
 * An account of 2 400 films, all in watched.csv (its Date: when each was marked seen). Every film
 * but the "marked only" ones has diary entries: film i's first viewing is day i, logged 5 days later.
 * - 192 films were marked seen 2 days after their viewing, as the Aquaman was;
 * - every 25th has two rewatches more, on one day;
 * - 600 films (every 4th) have no diary entry: their marked-seen date is the one date there is;
 * - remakes: "Dune" of 1984 in the diary, of 2021 marked only; "Suspiria" of 1977 and 2018 both in the diary.
 */
function letterboxdAccount(base: number) {
  const films = Array.from({ length: 2_400 }, (_, index) => {
    const [title, year] = index === 0 ? [`Dune ${base}`, 1984] : index === 4 ? [`Dune ${base}`, 2021] : index === 1 ? [`Suspiria ${base}`, 1977] : index === 2 ? [`Suspiria ${base}`, 2018] : [`Film ${base}, "${index}"`, 1950 + (index % 70)];
    const markedOnly = index % 4 === 0 && index !== 0;
    const laterMark = index % 10 === 3 && index < 1_920;
    // Day offsets of the viewings, and of the day the film was marked seen.
    const viewings = markedOnly ? [] : index % 25 === 1 ? [index, index + 300, index + 300] : [index];
    const markedSeen = markedOnly ? index + 1 : laterMark ? index + 2 : index;
    return { title: title as string, year: year as number, uri: `https://boxd.it/${base}f${index}`, markedOnly, laterMark, viewings: viewings.map(day), markedSeen: day(markedSeen), viewingDays: viewings };
  });
  let entry = 0;
  const diary = films.flatMap((film) => film.viewingDays.map((offset, viewing) => [day(offset + 5), film.title, film.year, `https://boxd.it/${base}d${(entry += 1)}`, 3.5, viewing > 0 ? 'Yes' : '', '', day(offset)]));
  const files: Record<string, Uint8Array> = {
    'watched.csv': csv('Date,Name,Year,Letterboxd URI', films.map((film) => [film.markedSeen, film.title, film.year, film.uri])),
    'diary.csv': csv(diaryHeader, diary),
    'ratings.csv': csv('Date,Name,Year,Letterboxd URI,Rating', films.slice(0, 500).map((film) => [film.markedSeen, film.title, film.year, film.uri, 4])),
    'watchlist.csv': csv('Date,Name,Year,Letterboxd URI', Array.from({ length: 50 }, (_, index) => [day(index), `Wanted ${base}-${index}`, 2025, `https://boxd.it/${base}w${index}`])),
    'reviews.csv': csv(reviewHeader, [[day(9), films[9]!.title, films[9]!.year, `https://boxd.it/${base}r1`, 4, '', 'Good, "really"', '', day(9)]]),
    'deleted/diary.csv': csv(diaryHeader, [[day(3), `Gone ${base}`, 2001, `https://boxd.it/${base}g1`, '', '', '', day(3)]]),
    'deleted/reviews.csv': csv(reviewHeader, [[day(3), `Gone ${base}`, 2001, `https://boxd.it/${base}g2`, 2, '', 'meh', '', day(3)]]),
    'orphaned/diary.csv': csv(diaryHeader, [[day(4), `Orphan ${base}`, 2002, `https://boxd.it/${base}o1`, '', '', '', day(4)]]),
    'orphaned/reviews.csv': csv(reviewHeader, [[day(4), `Orphan ${base}`, 2002, `https://boxd.it/${base}o2`, 3, '', 'ok', '', day(4)]]),
    'likes/films.csv': csv('Date,Name,Year,Letterboxd URI', [[day(1), films[1]!.title, films[1]!.year, films[1]!.uri]]),
    'profile.csv': csv('Date Joined,Username,Given Name,Family Name,Email Address,Location,Website,Bio,Pronoun,Favorite Films', [['2016-01-01', 'someone', '', '', 'someone@example.org', '', '', '', '', '']]),
  };
  return { films, diaryRows: diary.length, files };
}

describe('Letterboxd viewings: watched.csv\'s "marked seen" dates', () => {
  it('keeps a film\'s diary viewings alone; a film without any gets its marked-seen date, estimated; the notes say so (parser)', () => {
    const account = letterboxdAccount(1);
    const [document] = parseLetterboxdFiles(Object.entries(account.files).map(([name, content]) => ({ name: `letterboxd-someone-2026-01-02-10-00-utc.zip/${name}`, bytes: content })));
    const byUri = new Map(document!.titles.map((movie) => [movie.sourceId, movie]));
    const marked = account.films.filter((film) => film.markedOnly);
    const later = account.films.filter((film) => film.laterMark);
    expect([marked.length, later.length]).toEqual([599, 192]);
    // The Aquaman case: viewed on day 3, marked seen on day 5: one viewing.
    expect(byUri.get(account.films[3]!.uri)!.history).toEqual([{ watched: true, at: new Date(`${day(3)}T12:00:00Z`) }]);
    for (const film of later) expect(byUri.get(film.uri)!.history.map((entry) => entry.at.getTime())).toEqual(film.viewings.map((date, index) => noon(date) + (index === 2 ? 1_000 : 0)));
    expect(byUri.get(marked[0]!.uri)!.history).toEqual([{ watched: true, at: new Date(`${marked[0]!.markedSeen}T12:00:00Z`), estimated: true }]);
    // Every diary row is a viewing, every film without one has its single estimated date.
    const entries = document!.titles.flatMap((movie) => movie.history);
    expect(entries).toHaveLength(account.diaryRows + marked.length);
    expect(entries.filter((entry) => entry.estimated)).toHaveLength(marked.length);
    expect(document!.titles.filter((movie) => movie.title === `Dune 1`).map((movie) => [movie.year, movie.history.length, movie.history[0]?.estimated ?? false])).toEqual([[1984, 1, false], [2021, 1, true]]);
    expect(document!.notes).toEqual([
      'Letterboxd dates have no time of day: each viewing is recorded at 12:00 UTC of its date, the same date from UTC−11 to UTC+11',
      `diary.csv: each of its ${account.diaryRows} rows is a viewing on its Watched Date (rewatches are more viewings)`,
      `watched.csv's Date is when a film was marked as seen, not a viewing: ${2_400 - 599} films with diary entries take their viewings from the diary alone; 599 films without any are recorded watched on that date, marked estimated`,
    ]);
  });

  it('names every file it leaves out by its path inside the upload (parser)', () => {
    const account = letterboxdAccount(2);
    const [document] = parseLetterboxdFiles(Object.entries(account.files).map(([name, content]) => ({ name: `letterboxd-someone.zip/${name}`, bytes: content })));
    expect(document!.fileName).toBe('letterboxd-someone.zip');
    expect(document!.skipped).toEqual([
      { item: 'reviews.csv', reason: 'not imported: reviews are not stored (diary.csv has the same viewings)' },
      { item: 'deleted/diary.csv', reason: 'not imported: entries deleted from the account (or left without their film)' },
      { item: 'deleted/reviews.csv', reason: 'not imported: entries deleted from the account (or left without their film)' },
      { item: 'orphaned/diary.csv', reason: 'not imported: entries deleted from the account (or left without their film)' },
      { item: 'orphaned/reviews.csv', reason: 'not imported: entries deleted from the account (or left without their film)' },
      { item: 'likes/films.csv', reason: 'not imported: likes are not stored' },
      { item: 'profile.csv', reason: 'not imported: account data, no films' },
      { item: 'ratings.csv', reason: 'ratings are not stored; its 500 films are followed' },
    ]);
    // Two zips uploaded together: each file by its whole name.
    const files = [
      { name: 'first.zip/diary.csv', bytes: account.files['diary.csv']! },
      { name: 'first.zip/deleted/diary.csv', bytes: account.files['deleted/diary.csv']! },
      { name: 'second.zip/deleted/diary.csv', bytes: account.files['deleted/diary.csv']! },
    ];
    expect(parseLetterboxdFiles(files)[0]!.skipped.map((skip) => skip.item)).toEqual(['first.zip/deleted/diary.csv', 'second.zip/deleted/diary.csv']);
  });
});

describe('POST /api/import/letterboxd, a whole account', () => {
  it('records one history entry per diary row and one per film known only from watched.csv; again adds nothing', async () => {
    const base = unique();
    const account = letterboxdAccount(base);
    // The catalog knows every film (the Dunes and Suspirias by their years): matched by title and year.
    await db().movie.createMany({ data: account.films.map((film) => ({ tmdbId: unique(), title: film.title, releaseDate: `${film.year}-05-01` })) });
    const owner = await makeAccount();
    const archive = { 'letterboxd-someone-2026-01-02-10-00-utc.zip': zip(account.files) };
    const answer = await upload(app, '/api/import/letterboxd', owner.token, archive);
    expect(answer.status, JSON.stringify(answer.json).slice(0, 300)).toBe(200);
    const marked = account.films.filter((film) => film.markedOnly);
    expect(answer.json.imported).toEqual({ shows: 0, episodes: 0, movies: 2_400, games: 0, history: account.diaryRows + marked.length });
    expect(answer.json.unmatched.map((entry: { title: string }) => entry.title)).toEqual(Array.from({ length: 50 }, (_, index) => `Wanted ${base}-${index}`));
    expect(answer.json.skipped.filter((skip: { item: string }) => /diary\.csv$/.test(skip.item))).toEqual([
      { file: 'letterboxd-someone-2026-01-02-10-00-utc.zip', item: 'deleted/diary.csv', reason: expect.any(String) },
      { file: 'letterboxd-someone-2026-01-02-10-00-utc.zip', item: 'orphaned/diary.csv', reason: expect.any(String) },
    ]);
    expect(answer.json.notes.map((note: { file: string }) => note.file)).toEqual(Array(3).fill('letterboxd-someone-2026-01-02-10-00-utc.zip'));
    const later = account.films.find((film) => film.laterMark)!;
    const stored = await db().watchEvent.findMany({ where: { accountId: owner.id, movie: { title: later.title } }, select: { at: true, estimated: true } });
    expect(stored).toEqual([{ at: new Date(`${later.viewings[0]}T12:00:00Z`), estimated: false }]);
    expect(await db().watchEvent.count({ where: { accountId: owner.id, estimated: true } })).toBe(marked.length);
    const again = await upload(app, '/api/import/letterboxd', owner.token, archive);
    expect(again.json.imported.history).toBe(0);
  });

  it('writes nothing when one file of the export is malformed (the whole request, 400 naming the file and line)', async () => {
    const account = letterboxdAccount(unique());
    const owner = await makeAccount();
    const broken = { ...account.files, 'diary.csv': csv(diaryHeader, [[day(1), 'Film', 2001, 'https://boxd.it/x', '', '', '', '24/12/2018']]) };
    const answer = await upload(app, '/api/import/letterboxd', owner.token, { 'export.zip': zip(broken) });
    expect([answer.status, answer.json.error]).toEqual([400, 'export.zip/diary.csv: line 2: watched date "24/12/2018" is not a date (YYYY-MM-DD)']);
    expect(await db().libraryItem.count({ where: { accountId: owner.id } })).toBe(0);
  });
});
