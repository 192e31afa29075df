import path from 'node:path';
import { isImdbId } from '../../catalog/catalog-file-schema.ts';
import { ImportFileError, type ImportDocument, type ImportEpisodeRef, type ImportShow, type ImportSkip, type ImportTitle } from './import-document.ts';
import { imdbDay, imdbRating, imdbTitleKind, type ImdbTitleKind } from './imdb-values.ts';
import { parseCsvFile, titleOf } from './parse-helpers.ts';
import { csvHeaderColumns, notThisSource } from './recognise-file.ts';
import { asUtf8 } from './tvtime-text.ts';

/**
 * IMDb's own exports, one CSV each, columns read by name in any order:
 * - `ratings.csv`: `Const,Your Rating,Date Rated,Title,Original Title,URL,Title Type,IMDb Rating,
 *   Runtime (mins),Year,Genres,Num Votes,Release Date,Directors` (2024 on), the 13 columns without
 *   `Original Title` of 2017–2023 (Title Types in camel case: `movie`, `tvSeries`, `tvEpisode`…),
 *   and shorter copies of it (10 columns, up to `Genres`);
 * - `watchlist.csv` and list exports: `Position,Const,Created,Modified,Description,Title,…,
 *   Title Type,…` (the current ones end with `Your Rating,Date Rated`), and the older list form
 *   `position,const,created,modified,description,Title,Title type,Directors,You rated,…,URL`.
 * Titles are matched by their IMDb id (`tt…`; a bare number is given its `tt`) through the catalogs
 * (the offline file's ids, TMDB's find by external id), as the `Title Type` says: movies (films,
 * TV films, specials, shorts, videos), shows (series, mini-series) and episodes, which are rated by
 * their own id and handed on as episode references. Video games, music videos and podcasts are
 * reported, not imported.
 * - A rated title (a `Your Rating`) is watched on its `Date Rated` (in the older list form, the day
 *   it was added to the ratings list), the only date the file has: recorded at 12:00 UTC of that day
 *   and marked estimated (the viewing was then or before). A rated show is followed: the file does
 *   not say which of its episodes were watched.
 * - A title of the watchlist or a list without a rating is followed, not watched.
 * - Ratings are not stored (the library keeps none): each rated row is listed in `skipped` with its
 *   rating. A title listed twice in a file is one item, the later row reported as merged.
 * The document's notes say all this with the file's counts. Another service's CSV is refused naming
 * what it is; a file of IMDb's shape without a row is refused too.
 */

/** Whether a zip entry is read: CSVs (IMDb exports are CSV files; a zip of several is read whole). */
export const imdbWantsEntry = (baseName: string): boolean => /\.csv$/i.test(baseName);

const expected = 'an IMDb export (ratings.csv, watchlist.csv or a list export with a "Const" column)';

type FileKind = 'ratings' | 'watchlist' | 'list';

/** What one title of the file became, for merging a title listed twice. */
type Item = { kind: 'movie'; item: ImportTitle } | { kind: 'show'; item: ImportShow } | { kind: 'episode'; item: ImportEpisodeRef };

/** Parses one IMDb export CSV. Throws ImportFileError naming the first malformed row. */
export function parseImdbFile(bytes: Uint8Array, fileName: string): ImportDocument {
  const text = asUtf8({ name: fileName, bytes }).bytes;
  const columns = csvHeaderColumns(text);
  if (!columns?.has('const') || !columns.has('title')) throw notThisSource(bytes, fileName, expected);
  const rows = parseCsvFile(text, fileName, ['const', 'title']);
  if (rows.length === 0) throw new ImportFileError(fileName, 'holds no titles: the IMDb export has a header and no rows');
  const kind: FileKind = !columns.has('position') ? 'ratings' : /^watchlist/i.test(path.posix.basename(fileName)) ? 'watchlist' : 'list';
  // The older list form has no Date Rated: a rating's day is the day it was added to the list.
  const ratedColumn = columns.has('date rated') ? 'date rated' : 'created';
  const base = path.posix.basename(fileName);

  const titles: ImportTitle[] = [];
  const shows: ImportShow[] = [];
  const episodeRefs: ImportEpisodeRef[] = [];
  const skipped: ImportSkip[] = [];
  const seen = new Map<string, { item: Item; line: number }>();
  const counts = { rated: 0, ratedShows: 0, undatedRatings: 0, followed: 0 };
  const ratedItems = new Set<Item>();
  for (const row of rows) {
    const title = titleOf(row.get('title'), titleOf(row.get('original title'), 'Untitled'));
    const yearText = row.get('year');
    const year = /^\d{4}/.test(yearText) ? Number(yearText.slice(0, 4)) : undefined;
    const named = `${title}${year === undefined ? '' : ` (${year})`} (${base} line ${row.line})`;
    const imdb = imdbIdOf(row.get('const'));
    if (imdb === undefined) {
      skipped.push({ item: named, reason: `Const "${row.get('const')}" is not an IMDb title id (tt and digits): nothing to match it by` });
      continue;
    }
    const typeText = row.get('title type');
    const titleKind = imdbTitleKind(typeText);
    if (titleKind === undefined || titleKind === 'other') {
      skipped.push({ item: named, reason: `not imported: Title Type "${typeText}" is no movie, show or episode` });
      continue;
    }
    const rating = imdbRating(row, fileName);
    const ratedOn = rating === undefined ? undefined : imdbDay(row, fileName, ratedColumn);
    const earlier = seen.get(imdb);
    const item = earlier?.item ?? newItem(titleKind, imdb, title, year);
    if (earlier) {
      skipped.push({ item: named, reason: `merged as a duplicate: line ${earlier.line} lists the same title (${imdb})` });
    } else {
      seen.set(imdb, { item, line: row.line });
      if (item.kind === 'movie') titles.push(item.item);
      else if (item.kind === 'show') shows.push(item.item);
      else episodeRefs.push(item.item);
    }
    if (rating === undefined) continue;
    counts.rated += 1;
    ratedItems.add(item);
    skipped.push({ item: named, reason: `rating ${rating}/10 not stored: the library keeps no ratings` });
    if (item.kind === 'show') {
      counts.ratedShows += 1;
    } else if (ratedOn) {
      item.item.history.push({ watched: true, at: ratedOn, estimated: true });
    } else {
      counts.undatedRatings += 1;
      item.item.watched = true;
    }
  }
  for (const target of [...titles, ...episodeRefs]) target.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  counts.followed = seen.size - ratedItems.size;
  const document: ImportDocument = { source: 'imdb', fileName, shows, titles, skipped, notes: readingNotes(kind, counts) };
  if (episodeRefs.length > 0) document.episodeRefs = episodeRefs;
  return document;
}

/** `tt` and digits as IMDb writes them; a bare number (some copies drop the `tt`) is given it. */
function imdbIdOf(text: string): string | undefined {
  const id = /^\d+$/.test(text) ? `tt${text.padStart(7, '0')}` : text;
  return isImdbId(id) ? id : undefined;
}

function newItem(kind: Exclude<ImdbTitleKind, 'other'>, imdb: string, title: string, year: number | undefined): Item {
  if (kind === 'episode') return { kind, item: { ids: { imdb }, label: title, history: [] } };
  const withYear = year === undefined ? {} : { year };
  if (kind === 'show') return { kind, item: { kind: 'show', ids: { imdb }, title, ...withYear, episodes: [] } };
  return { kind, item: { kind: 'movie', ids: { imdb }, title, ...withYear, history: [] } };
}

/** What the report says of how the file was read. */
function readingNotes(kind: FileKind, counts: { rated: number; ratedShows: number; undatedRatings: number; followed: number }): string[] {
  const titles = (count: number) => `${count} ${count === 1 ? 'title' : 'titles'}`;
  const rated = (count: number) => `${count} rated ${count === 1 ? 'title is' : 'titles are'}`;
  const notes: string[] = [];
  if (counts.rated > 0) {
    notes.push(
      `Date Rated is the only date the file has: ${rated(counts.rated - counts.ratedShows - counts.undatedRatings)} recorded watched on the day they were rated `
      + '(at 12:00 UTC, marked estimated: the viewing was then or before); the ratings themselves are not stored',
    );
  }
  const undated = counts.undatedRatings;
  if (undated > 0) notes.push(`${undated} rated ${undated === 1 ? 'title has' : 'titles have'} no Date Rated: marked watched without a date`);
  if (counts.ratedShows > 0) notes.push(`${counts.ratedShows} rated ${counts.ratedShows === 1 ? 'show is' : 'shows are'} followed: the file does not say which episodes were watched`);
  if (counts.followed > 0) notes.push(`${titles(counts.followed)} ${kind === 'watchlist' ? 'of the watchlist' : kind === 'list' ? 'of the list' : 'without a rating'} followed, not watched`);
  return notes;
}
