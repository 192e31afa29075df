import path from 'node:path';
import type { UploadedFile } from './expand-uploads.ts';
import { ImportFileError, type ImportDocument, type ImportSkip, type ImportTitle } from './import-document.ts';
import { noonOfLocalDate as noonOf, parseCsvFile, titleOf, type CsvRow } from './parse-helpers.ts';
import { csvHeaderColumns, notThisSource } from './recognise-file.ts';

/**
 * Letterboxd: the account export zip (Settings → Data → Export your data; reference/
 * import-formats.md §4a), or its CSVs uploaded loose. Read: `watched.csv`, `diary.csv`,
 * `ratings.csv`, `watchlist.csv`; every other file of the export (reviews, likes, lists, profile,
 * comments, `deleted/`, `orphaned/`) is named in `skipped` unread.
 * - Films carry no catalog id: each becomes a movie with its title and year (matched by title and
 *   year) and its Letterboxd URI as sourceId. The URIs of watched.csv, ratings.csv and
 *   watchlist.csv are the film's; a diary row's URI is the diary entry's, so diary rows join the
 *   film of the same name and year, and a film known only from the diary keeps its first diary URI.
 * - Letterboxd's dates are local dates without a time: a watch is recorded at 12:00 UTC of its date,
 *   which is that same calendar date in every time zone from UTC−11 to UTC+11.
 * - diary.csv: one history entry per row at its `Watched Date` (its `Date` when that is empty), so
 *   rewatches are more entries; a second watch of one film on one day is a second later than the
 *   first. watched.csv: the film is followed and watched. Its `Date` is when the film was marked as
 *   seen, not a viewing: a film with any diary entry takes its viewings from the diary alone, and
 *   only a film without one is recorded watched on that date, marked estimated (the viewing was
 *   then or before). The document's notes say how many films were read each way.
 * - watchlist.csv: followed, not watched. ratings.csv: followed; ratings are not stored.
 * watched.csv and watchlist.csv have the same columns, so those two are told apart by name; every
 * other file by its columns. A CSV of another service is refused naming what it is. The report names
 * every file by its path inside the upload (`deleted/diary.csv` and `orphaned/diary.csv` are two).
 */

/** Whether a zip entry is read: CSVs (the ones not imported are named in `skipped`). */
export const letterboxdWantsEntry = (baseName: string): boolean => /\.csv$/i.test(baseName);

const expected = 'a Letterboxd export (watched.csv, diary.csv, ratings.csv or watchlist.csv with a "Letterboxd URI" column)';

type FileKind = 'watched' | 'watchlist' | 'ratings' | 'diary';

/** Export files that hold nothing imported, by path inside the export. */
function notImported(name: string, columns: Set<string>): string | undefined {
  const parts = name.toLowerCase().split('/');
  const base = parts.at(-1)!.replace(/\.csv$/, '');
  if (parts.includes('deleted') || parts.includes('orphaned')) return 'not imported: entries deleted from the account (or left without their film)';
  if (parts.includes('likes')) return 'not imported: likes are not stored';
  if (parts.includes('lists')) return 'not imported: Letterboxd lists are not stored';
  if (columns.has('letterboxd uri') && columns.has('review')) return 'not imported: reviews are not stored (diary.csv has the same viewings)';
  // Account files, by name and by their own columns (never a film's "Letterboxd URI").
  if (!columns.has('letterboxd uri') && ((base === 'profile' && columns.has('username')) || (base === 'comments' && columns.has('comment')))) {
    return 'not imported: account data, no films';
  }
  return undefined;
}

function kindOf(name: string, columns: Set<string>): FileKind | undefined {
  if (!columns.has('letterboxd uri') || !columns.has('name')) return undefined;
  if (columns.has('watched date')) return 'diary';
  if (columns.has('rating')) return 'ratings';
  const base = path.posix.basename(name).toLowerCase();
  if (base.startsWith('watchlist')) return 'watchlist';
  if (base.startsWith('watched')) return 'watched';
  return undefined;
}

interface Film {
  movie: ImportTitle;
  /** sourceId is a diary entry's URI, to be replaced by the film's when a film list names it. */
  diaryUri: boolean;
  /** watched.csv's "marked seen" dates, a viewing only for a film without diary entries (above). */
  watchedDates?: Set<string>;
  /** Diary entries per watched date, for same-day rewatches (none: the film has no diary entry). */
  perDay?: Map<string, number>;
}

/** Parses the files of a Letterboxd export into one document (films span files). */
export function parseLetterboxdFiles(files: UploadedFile[]): ImportDocument[] {
  const skipped: ImportSkip[] = [];
  const read: { file: UploadedFile; kind: FileKind }[] = [];
  const inUpload = pathInUpload(files);
  for (const file of files) {
    const columns = csvHeaderColumns(file.bytes);
    const reason = notImported(file.name, columns ?? new Set());
    if (reason) {
      skipped.push({ item: inUpload(file), reason });
      continue;
    }
    const kind = columns && kindOf(file.name, columns);
    if (kind) read.push({ file, kind });
    else if (columns?.has('letterboxd uri')) skipped.push({ item: inUpload(file), reason: 'not imported: a Letterboxd film list that is none of watched.csv, watchlist.csv, ratings.csv or diary.csv' });
    else throw notThisSource(file.bytes, file.name, expected);
  }
  // Film lists first, so the diary's rows find their films' URIs.
  const order: FileKind[] = ['watched', 'ratings', 'watchlist', 'diary'];
  read.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const films: Film[] = [];
  const byUri = new Map<string, Film>();
  const byNameYear = new Map<string, Film>();
  const filmOf = (row: CsvRow, kind: FileKind, fileName: string): Film => {
    const name = titleOf(row.get('name'), '');
    if (name === '') throw new ImportFileError(fileName, `line ${row.line}: the film has no name`);
    const yearText = row.get('year');
    const year = /^\d{4}$/.test(yearText) ? Number(yearText) : undefined;
    const uri = row.get('letterboxd uri');
    const key = `${name.toLowerCase()}\u0000${year ?? ''}`;
    let film = (kind !== 'diary' && uri !== '' ? byUri.get(uri) : undefined) ?? byNameYear.get(key);
    if (film && kind !== 'diary' && uri !== '' && film.movie.sourceId !== uri) {
      // Another film of the same name and year (its own URI): a second item, unless the first was known by a diary URI only.
      if (film.diaryUri) {
        film.movie.sourceId = uri;
        film.diaryUri = false;
        byUri.set(uri, film);
      } else {
        film = undefined;
      }
    }
    if (!film) {
      const movie: ImportTitle = { kind: 'movie', ids: {}, title: name, history: [] };
      if (year !== undefined) movie.year = year;
      if (uri !== '') movie.sourceId = uri;
      // The set and map are made when a row needs them: an empty one per film cost ~1 KB of a 300 000-film file.
      film = { movie, diaryUri: kind === 'diary' };
      films.push(film);
      if (uri !== '') byUri.set(uri, film);
      if (!byNameYear.has(key)) byNameYear.set(key, film);
    }
    return film;
  };
  const counts: Record<FileKind, number> = { watched: 0, watchlist: 0, ratings: 0, diary: 0 };
  const ratingFiles: string[] = [];
  for (const { file, kind } of read) {
    if (kind === 'ratings') ratingFiles.push(inUpload(file));
    const rows = parseCsvFile(file.bytes, file.name, ['name', 'letterboxd uri']);
    /** The line each film was first listed on in this file (film lists name a film once). */
    const listedOn = new Map<Film, number>();
    for (const row of rows) {
      const film = filmOf(row, kind, file.name);
      counts[kind] += 1;
      if (kind !== 'diary') {
        const first = listedOn.get(film);
        if (first !== undefined) {
          skipped.push({ item: `${film.movie.title} (${inUpload(file)} line ${row.line})`, reason: `merged as a duplicate: line ${first} lists the same film` });
        } else {
          listedOn.set(film, row.line);
        }
      }
      const dateOf = (column: string): string | undefined => {
        const text = row.get(column);
        if (text === '') return undefined;
        if (!noonOf(text)) throw new ImportFileError(file.name, `line ${row.line}: ${column} "${text}" is not a date (YYYY-MM-DD)`);
        return text;
      };
      if (kind === 'watched') {
        const date = dateOf('date');
        if (date) (film.watchedDates ??= new Set()).add(date);
        else film.movie.watched = true;
      } else if (kind === 'diary') {
        const logged = dateOf('date');
        const date = dateOf('watched date') ?? logged;
        if (!date) throw new ImportFileError(file.name, `line ${row.line}: the diary entry has neither a Watched Date nor a Date`);
        film.perDay ??= new Map();
        const earlier = film.perDay.get(date) ?? 0;
        film.perDay.set(date, earlier + 1);
        // Within the hour: past 3 600 viewings of one film on one day, later ones share a time and merge.
        film.movie.history.push({ watched: true, at: new Date(noonOf(date)!.getTime() + Math.min(earlier, 3599) * 1000) });
      }
    }
  }
  const marked = { diary: 0, alone: 0 };
  for (const film of films) {
    const diaryDays = film.perDay?.size ?? 0;
    if (film.watchedDates) marked[diaryDays > 0 ? 'diary' : 'alone'] += 1;
    // A "marked seen" date is a viewing only for a film the diary says nothing of (see above).
    if (diaryDays === 0) for (const date of film.watchedDates ?? []) film.movie.history.push({ watched: true, at: noonOf(date)!, estimated: true });
    film.movie.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  }
  const fileName = documentName(files);
  if (films.length === 0) {
    throw new ImportFileError(fileName, `holds no films: ${expected} with at least one row was expected`);
  }
  if (counts.ratings > 0) skipped.push({ item: ratingFiles.join(', '), reason: `ratings are not stored; its ${counts.ratings} films are followed` });
  return [{ source: 'letterboxd', fileName, shows: [], titles: films.map((film) => film.movie), skipped, notes: readingNotes(counts, marked) }];
}

/** What the report says of how the export was read: its dates, and watched.csv's "marked seen" dates. */
function readingNotes(counts: Record<FileKind, number>, marked: { diary: number; alone: number }): string[] {
  const films = (count: number) => `${count} ${count === 1 ? 'film' : 'films'}`;
  const notes = ['Letterboxd dates have no time of day: each viewing is recorded at 12:00 UTC of its date, the same date from UTC−11 to UTC+11'];
  if (counts.diary > 0) notes.push(`diary.csv: each of its ${counts.diary} rows is a viewing on its Watched Date (rewatches are more viewings)`);
  if (counts.watched > 0) {
    notes.push(
      `watched.csv's Date is when a film was marked as seen, not a viewing: ${films(marked.diary)} with diary entries take their viewings from the diary alone; `
      + `${films(marked.alone)} without any are recorded watched on that date, marked estimated`,
    );
  }
  return notes;
}

/**
 * How the report names a file: its path inside the upload. Inside one uploaded zip that is the path
 * in the zip (`deleted/diary.csv`, the report's `file` being the zip); otherwise the whole name.
 */
function pathInUpload(files: UploadedFile[]): (file: UploadedFile) => string {
  const tops = new Set(files.map((file) => file.name.split('/')[0]!));
  const [top] = tops;
  if (tops.size !== 1 || !files.every((file) => file.name.startsWith(`${top}/`))) return (file) => file.name;
  return (file) => file.name.slice(top!.length + 1);
}

/** The document's name: the zip the files came from, or the files' names. */
function documentName(files: UploadedFile[]): string {
  const tops = new Set(files.map((file) => file.name.split('/')[0]!));
  const names = [...tops];
  if (names.length === 0) return 'upload';
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}
