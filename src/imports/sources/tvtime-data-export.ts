import { externalId, wholeNumber } from './parse-helpers.ts';
import type { TvTimeKey } from './tvtime-collector.ts';
import { imdbId, numberOf, rowLabel, showTitle, timeOf, watchEpisode, yearOf, yes, type RowContext } from './tvtime-rows.ts';

/**
 * Reading one row of TV Time's current data export (`tvtime-<kind>-YYYY-MM-DD.csv`, ISO 8601 UTC
 * times). Shows and movies carry TheTVDB and IMDb ids and TV Time's uuid (kept as the item's
 * `sourceId`).
 *
 * `rewatch_count` (episodes and movies): the file gives one time, `watched_at`, for all viewings. The
 * watch is recorded at `watched_at` and each rewatch a second after the one before, marked
 * estimated, so the history counts every viewing (identical times would merge into one).
 */

/** At most this many rewatches per row are recorded (a value beyond is a corrupt cell, not a habit). */
const maxRewatches = 1000;

const seriesKey = (context: RowContext, prefix: string): TvTimeKey => ({
  tvdb: externalId(context.row.get(`${prefix}tvdb_id`)),
  imdb: imdbId(context.row.get(`${prefix}imdb_id`)),
  uuid: context.row.get(`${prefix}uuid`) || undefined,
});

const hasKey = (key: TvTimeKey) => key.tvdb !== undefined || key.imdb !== undefined || key.uuid !== undefined;

/** The watch and its rewatches (see above). */
function viewings(context: RowContext, at: Date | undefined): { at: Date | undefined; estimated?: boolean }[] {
  const rewatches = Math.min(wholeNumber(context.row.get('rewatch_count')) ?? 0, maxRewatches);
  const times: { at: Date | undefined; estimated?: boolean }[] = [{ at }];
  // Without a time, rewatches cannot be told apart from the watch: the episode is just watched.
  if (at) for (let index = 1; index <= rewatches; index += 1) times.push({ at: new Date(at.getTime() + index * 1000), estimated: true });
  return times;
}

/** `tvtime-series-….csv`: every show of the account; `stopped` ones are no longer followed. */
export function readSeries(context: RowContext): void {
  const { row, collector, names } = context;
  const key = seriesKey(context, '');
  if (!hasKey(key)) return collector.skip(rowLabel(row, row.get('title') || 'a show'), 'has no TheTVDB id, IMDb id or TV Time uuid');
  const show = collector.show(key, showTitle(names, key, row.get('title')));
  if (row.get('status').toLowerCase() === 'stopped') show.followed = false;
}

/**
 * `tvtime-series-episodes-….csv`: one row per episode of each followed show, watched or not.
 * `title` is the episode's (the series' columns are prefixed `series_`); the show's title comes from
 * the series file.
 */
export function readSeriesEpisode(context: RowContext): void {
  const { row, collector, names } = context;
  if (!yes(row.get('is_watched'))) {
    collector.unwatched += 1;
    return;
  }
  const key = seriesKey(context, 'series_');
  const show = hasKey(key) ? collector.show(key, showTitle(names, key, '')) : undefined;
  const season = numberOf(context, 'season', 'season number') ?? (yes(row.get('special')) ? 0 : undefined);
  const number = numberOf(context, 'episode', 'episode number');
  const episodeId = externalId(row.get('tvdb_id'));
  const code = season !== undefined && number !== undefined ? ` S${season}E${number}` : '';
  const label = `${show?.title ?? ''}${code}${row.get('title') ? ` "${row.get('title')}"` : ''}`.trim();
  if (show && season !== undefined && number !== undefined) collector.episode(show, season, number, undefined, row.get('title') || undefined);
  watchEpisode(context, show, { season, number, episodeId, label }, viewings(context, timeOf(context, 'watched_at')));
}

/** `tvtime-movies-….csv`: watched movies and the ones on the watch list (followed, not watched). */
export function readMovie(context: RowContext): void {
  const { row, collector } = context;
  const key = seriesKey(context, '');
  const title = row.get('title');
  if (!hasKey(key) && !title) return collector.skip(rowLabel(row, 'a movie'), 'has no title and no id');
  const movie = collector.movie(key, title || `TV Time movie ${key.uuid ?? key.imdb ?? key.tvdb}`, yearOf(row.get('year')));
  if (!yes(row.get('is_watched'))) return;
  for (const viewing of viewings(context, timeOf(context, 'watched_at'))) collector.watched(movie, viewing.at, viewing.estimated);
}

/**
 * `tvtime-lists-….csv`: the items of the account's lists, followed. Items are named by TV Time's
 * uuid (a movie's `tvdb_id` is mostly empty): the series and movies files of the same export give
 * that uuid its TheTVDB and IMDb ids (and a movie its year), so the item is the same show or movie
 * they are, matched by those ids rather than left with a uuid no catalog knows.
 */
export function readListItem(context: RowContext): void {
  const { row, collector, names } = context;
  const uuid = row.get('uuid') || undefined;
  const type = row.get('item_type').toLowerCase();
  const name = row.get('name');
  const what = `${name || 'an item'} of list "${row.get('list_name')}"`;
  const isShow = type === 'series' || type === 'show';
  const movie = !isShow && uuid !== undefined ? names.movieByUuid.get(uuid) : undefined;
  const known = movie ?? (isShow && uuid !== undefined ? names.seriesByUuid.get(uuid) : undefined);
  const key: TvTimeKey = { tvdb: externalId(row.get('tvdb_id')) ?? known?.tvdb, imdb: known?.imdb, uuid };
  if (!hasKey(key)) return collector.skip(rowLabel(row, what), 'has no TheTVDB id and no TV Time uuid');
  if (isShow) collector.show(key, showTitle(names, key, name));
  else if (type === 'movie') collector.movie(key, name || movie?.title || `TV Time movie ${key.uuid ?? key.tvdb}`, movie?.year);
  else collector.skip(rowLabel(row, what), `item_type "${row.get('item_type')}" is neither a series nor a movie`);
}
