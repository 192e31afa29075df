import { ImportFileError, type ImportShow } from './import-document.ts';
import { externalId, wholeNumber, type CsvRow } from './parse-helpers.ts';
import type { TvTimeCollector, TvTimeKey } from './tvtime-collector.ts';
import type { TvTimeClock } from './tvtime-timestamps.ts';

/**
 * Reading one row of TV Time's older GDPR files (tracking-prod-records, seen_episode,
 * rewatched_episode, followed_tv_show, user_tv_show_data, tv_show_rate), and what every row reader
 * shares. Shows are TheTVDB series ids; an episode is its season and number (TheTVDB ordering),
 * or, when the row gives neither the show nor its numbers, its TheTVDB episode id alone: then it
 * becomes an episode reference for the catalog to resolve, never a show made up from nothing.
 */

/** Show names and ids gathered from every file of the upload (seen_episode.csv names shows only). */
export interface ShowNames {
  /** Lower-cased show name → TheTVDB series id. */
  idByName: Map<string, number>;
  /** TheTVDB series id → name. */
  nameById: Map<number, string>;
  /** TV Time series uuid → name. */
  nameByUuid: Map<string, string>;
  /**
   * TV Time movie uuid → title, year and the ids the data export's movies file gives it (the v1
   * tracking file's movie rows have title and year only).
   */
  movieByUuid: Map<string, { title: string; year?: number; tvdb?: number; imdb?: string }>;
  /** TV Time series uuid → the TheTVDB and IMDb ids the data export's series file gives it. */
  seriesByUuid: Map<string, { tvdb?: number; imdb?: string }>;
}

/** One row being read, with what its reader needs. */
export interface RowContext {
  collector: TvTimeCollector;
  row: CsvRow;
  fileName: string;
  names: ShowNames;
  /** Reads the file's timestamps in the import's zone and counts their forms (tvtime-timestamps.ts). */
  clock: TvTimeClock;
}

export const yes = (value: string) => /^(1|true|t|yes)$/i.test(value);

/** An IMDb id (`tt` and digits), or undefined. */
export const imdbId = (value: string) => (/^tt\d{1,12}$/.test(value) ? value : undefined);

/** The first non-empty timestamp of `columns`; a value that is no timestamp refuses the file. */
export function timeOf({ row, fileName, clock }: RowContext, ...columns: string[]): Date | undefined {
  const column = columns.find((name) => row.get(name) !== '');
  if (column === undefined) return undefined;
  const at = clock.read(row.get(column));
  if (!at) throw new ImportFileError(fileName, `line ${row.line}: ${column} "${row.get(column)}" is not a date and time`);
  return at;
}

/** A season or episode number; a value that is not one refuses the file. */
export function numberOf({ row, fileName }: RowContext, column: string, what: string): number | undefined {
  const text = row.get(column);
  if (text === '') return undefined;
  const number = wholeNumber(text);
  if (number === undefined) throw new ImportFileError(fileName, `line ${row.line}: the ${what} "${text}" is not a whole number`);
  return number;
}

/** The show's title: the row's, else another file's for the same id, else one naming its id. */
export function showTitle(names: ShowNames, key: TvTimeKey, given: string): string {
  if (given) return given;
  const known = (key.tvdb !== undefined ? names.nameById.get(key.tvdb) : undefined) ?? (key.uuid !== undefined ? names.nameByUuid.get(key.uuid) : undefined);
  if (known) return known;
  if (key.tvdb !== undefined) return `TheTVDB series ${key.tvdb}`;
  if (key.imdb !== undefined) return `IMDb ${key.imdb}`;
  return `TV Time series ${key.uuid}`;
}

/** How a row names its item in the report: its title and ids, and the line. */
export const rowLabel = (row: CsvRow, what: string) => `line ${row.line}: ${what}`;

/**
 * An episode watch: by show, season and number when the row has them, else by the TheTVDB episode
 * id (a reference), else skipped with why. `times` are the watches to record (one per viewing).
 */
export function watchEpisode(
  context: RowContext,
  show: ImportShow | undefined,
  numbers: { season?: number; number?: number; episodeId?: number; label: string },
  times: { at: Date | undefined; estimated?: boolean }[],
): void {
  const { collector, row } = context;
  const ids = numbers.episodeId === undefined ? undefined : { tvdb: numbers.episodeId };
  if (show && numbers.season !== undefined && numbers.number !== undefined) {
    const episode = collector.episode(show, numbers.season, numbers.number, ids);
    for (const time of times) collector.watched(episode, time.at, time.estimated);
  } else if (numbers.episodeId !== undefined) {
    const ref = collector.ref(numbers.episodeId, numbers.label || undefined);
    for (const time of times) collector.watched(ref, time.at, time.estimated);
  } else {
    collector.skip(rowLabel(row, numbers.label || 'a watch'), 'names neither the show with season and episode numbers nor a TheTVDB episode id');
  }
}

const episodeCode = (season?: number, number?: number) => (season !== undefined && number !== undefined ? ` S${season}E${number}` : '');

/** `tracking-prod-records-v2.csv`: one row per watch (rewatches are rows of their own). */
export function readTrackingV2(context: RowContext): void {
  const { row, collector, names } = context;
  const tvdb = externalId(row.get('s_id'));
  const name = row.get('series_name');
  const show = tvdb === undefined ? undefined : collector.show({ tvdb }, showTitle(names, { tvdb }, name));
  if (show && yes(row.get('is_archived'))) show.archived = true;
  const season = numberOf(context, row.get('season_number') ? 'season_number' : 's_no', 'season number') ?? (yes(row.get('is_special')) ? 0 : undefined);
  const number = numberOf(context, row.get('episode_number') ? 'episode_number' : 'ep_no', 'episode number');
  const episodeId = externalId(row.get('episode_id')) ?? externalId(row.get('ep_id'));
  // A row of a show without an episode is the show's own record (followed, archived).
  if (number === undefined && episodeId === undefined) {
    if (!show) collector.skip(rowLabel(row, name || row.get('key') || 'a row'), 'names no TheTVDB series and no episode');
    return;
  }
  watchEpisode(context, show, { season, number, episodeId, label: `${name}${episodeCode(season, number)}`.trim() }, [{ at: timeOf(context, 'created_at', 'updated_at') }]);
}

/** `tracking-prod-records.csv` (v1): watches, follows and to-watch rows of series and movies. */
export function readTrackingV1(context: RowContext): void {
  const { row, collector, names } = context;
  const watching = row.get('type') === 'watch';
  if (row.get('entity_type') === 'movie') {
    const uuid = row.get('uuid') || undefined;
    const title = row.get('movie_name');
    if (!uuid && !title) return collector.skip(rowLabel(row, 'a movie'), 'has neither a TV Time uuid nor a name');
    // TV Time's v1 rows know a movie by its own uuid and name only: kept apart by uuid, matched by title and year.
    const movie = collector.movie(uuid ? { uuid } : {}, title || `TV Time movie ${uuid}`, yearOf(row.get('release_date')));
    if (watching) collector.watched(movie, timeOf(context, 'watch_date', 'created_at'));
    return;
  }
  const tvdb = externalId(row.get('series_id'));
  const uuid = row.get('series_uuid') || undefined;
  const name = row.get('series_name');
  const show = tvdb === undefined ? undefined : collector.show({ tvdb, uuid }, showTitle(names, { tvdb }, name));
  const season = numberOf(context, 'season_number', 'season number');
  const number = numberOf(context, 'episode_number', 'episode number');
  const episodeId = externalId(row.get('episode_id'));
  if (!watching || (number === undefined && episodeId === undefined)) {
    if (!show) collector.skip(rowLabel(row, name || row.get('uuid') || 'a row'), 'names no TheTVDB series');
    return;
  }
  watchEpisode(context, show, { season, number, episodeId, label: `${name}${episodeCode(season, number)}`.trim() }, [{ at: timeOf(context, 'watch_date', 'created_at') }]);
}

/**
 * `seen_episode.csv`: the newer shape names the show (by name only: its id comes from the upload's
 * other files), season and number; the older one only TheTVDB's episode id.
 */
export function readSeen(context: RowContext): void {
  const { row, collector, names } = context;
  const name = row.get('tv_show_name');
  const tvdb = externalId(row.get('tv_show_id')) ?? (name ? names.idByName.get(name.toLowerCase()) : undefined);
  const show = tvdb === undefined ? undefined : collector.show({ tvdb }, showTitle(names, { tvdb }, name));
  const season = numberOf(context, 'episode_season_number', 'season number');
  const number = numberOf(context, 'episode_number', 'episode number');
  const label = name ? `${name}${episodeCode(season, number)}` : '';
  watchEpisode(context, show, { season, number, episodeId: externalId(row.get('episode_id')), label }, [{ at: timeOf(context, 'created_at', 'updated_at') }]);
}

/**
 * `rewatched_episode.csv`: `cpt` rewatches of a TheTVDB episode (its first watch is in
 * seen_episode.csv). The file keeps the first rewatch's time (`created_at`) and the last's
 * (`updated_at`); the ones between have no time, so they are recorded a second apart after the
 * first, marked estimated: the history then counts every viewing.
 */
export function readRewatched(context: RowContext): void {
  const { row, collector } = context;
  const episodeId = externalId(row.get('episode_id'));
  const count = wholeNumber(row.get('cpt') || '1');
  if (episodeId === undefined) return collector.skip(rowLabel(row, 'a rewatch'), 'has no TheTVDB episode id');
  if (count === undefined || count === 0) return collector.skip(rowLabel(row, `TheTVDB episode ${episodeId}`), `cpt "${row.get('cpt')}" is no number of rewatches`);
  const first = timeOf(context, 'created_at', 'updated_at');
  const last = timeOf(context, 'updated_at');
  const times: { at: Date | undefined; estimated?: boolean }[] = [{ at: first }];
  for (let index = 1; index < Math.min(count, 1000); index += 1) {
    const isLast = index === count - 1 && last && first && last.getTime() > first.getTime() + count * 1000;
    times.push(isLast ? { at: last } : { at: first && new Date(first.getTime() + index * 1000), estimated: first !== undefined });
  }
  watchEpisode(context, undefined, { episodeId, label: '' }, times);
}

/** `followed_tv_show.csv`, `user_tv_show_data.csv`, `tv_show_rate.csv`: one show per row and its follow state. */
export function readShowRow(context: RowContext, kind: 'followed' | 'show-data' | 'rating'): void {
  const { row, collector, names } = context;
  const tvdb = externalId(row.get('tv_show_id'));
  const name = row.get('tv_show_name');
  if (tvdb === undefined) return collector.skip(rowLabel(row, name || 'a show'), `tv_show_id "${row.get('tv_show_id')}" is no TheTVDB series id`);
  const show = collector.show({ tvdb }, showTitle(names, { tvdb }, name));
  if (kind === 'followed' && row.get('active') === '0') show.followed = false;
  if (kind === 'followed' && yes(row.get('archived'))) show.archived = true;
  if (kind === 'show-data' && row.get('is_followed') === '0') show.followed = false;
}

/** A year from `2019`, `2019-05-01` or a timestamp; undefined otherwise. */
export function yearOf(value: string): number | undefined {
  const match = /^(\d{4})(?:\D|$)/.exec(value.trim());
  const year = match ? Number(match[1]) : NaN;
  return year >= 1870 && year <= 2200 ? year : undefined;
}
