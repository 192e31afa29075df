import { ImportFileError } from './import-document.ts';
import { noonOfLocalDate, type CsvRow } from './parse-helpers.ts';

/**
 * The cells of IMDb's exports whose spelling changed over the years: `Title Type` (`Movie`,
 * `TV Series` since 2024; `movie`, `tvSeries` 2017–2023; `Feature Film`, `Mini-Series` before),
 * `Your Rating` (`You rated` in the older list form) and the day of a rating (`Date Rated`, or the
 * older list form's `created`, written `YYYY-MM-DD` or as `Sat Jul 23 00:00:00 2016`).
 */

/** What a title is to this library: a movie, a show, an episode, or something it does not track. */
export type ImdbTitleKind = 'movie' | 'show' | 'episode' | 'other';

/** Title Types by their letters and digits, lower-cased: every spelling above reads the same. */
const titleKinds: Record<string, ImdbTitleKind> = {
  movie: 'movie', featurefilm: 'movie', film: 'movie', tvmovie: 'movie', tvspecial: 'movie', short: 'movie', shortfilm: 'movie', tvshort: 'movie', video: 'movie', documentary: 'movie',
  tvseries: 'show', tvminiseries: 'show', miniseries: 'show', series: 'show',
  tvepisode: 'episode', episode: 'episode',
  videogame: 'other', musicvideo: 'other', podcastseries: 'other', podcastepisode: 'other',
};

/**
 * The kind a `Title Type` names; a file without the column (or an empty cell) is read as a movie, as
 * IMDb's own early ratings pages were films only. Undefined for a type IMDb has not used.
 */
export function imdbTitleKind(text: string): ImdbTitleKind | undefined {
  if (text === '') return 'movie';
  return titleKinds[text.toLowerCase().replace(/[^a-z0-9]/g, '')];
}

/** The row's own rating, 1–10 (undefined: not rated); anything else refuses the file naming the line. */
export function imdbRating(row: CsvRow, fileName: string): number | undefined {
  const column = row.get('your rating') !== '' ? 'your rating' : 'you rated';
  const text = row.get(column);
  if (text === '') return undefined;
  const rating = /^\d{1,2}(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(rating >= 1 && rating <= 10)) throw new ImportFileError(fileName, `line ${row.line}: ${column === 'your rating' ? 'Your Rating' : 'You rated'} "${text}" is not a rating from 1 to 10`);
  return rating;
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * 12:00 UTC of the day in `column` (a local date without a time: noonOfLocalDate); undefined for
 * an empty cell; a cell that is no day refuses the file naming the line.
 */
export function imdbDay(row: CsvRow, fileName: string, column: string): Date | undefined {
  const text = row.get(column);
  if (text === '') return undefined;
  const written = /^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) \d{2}:\d{2}:\d{2} (\d{4})$/.exec(text);
  const month = written ? months.indexOf(written[1]!.toLowerCase()) + 1 : 0;
  const day = written ? noonOfLocalDate(`${written[3]}-${String(month).padStart(2, '0')}-${written[2]!.padStart(2, '0')}`) : noonOfLocalDate(text);
  if (!day) throw new ImportFileError(fileName, `line ${row.line}: ${column === 'date rated' ? 'Date Rated' : column} "${text}" is not a date (YYYY-MM-DD)`);
  return day;
}
