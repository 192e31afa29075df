import path from 'node:path';
import type { UploadedFile } from './expand-uploads.ts';
import { utcReading, type ImportDocument, type ImportReadOptions } from './import-document.ts';
import { externalId, parseCsvFile, type CsvRow } from './parse-helpers.ts';
import { TvTimeClock } from './tvtime-timestamps.ts';
import { TvTimeCollector } from './tvtime-collector.ts';
import { readListItem, readMovie, readSeries, readSeriesEpisode } from './tvtime-data-export.ts';
import { readListV1 } from './tvtime-lists.ts';
import { classifyTvTimeFile, noTvTimeFile, type ClassifiedFile, type TvTimeFileKind } from './tvtime-files.ts';
import { imdbId, readRewatched, readSeen, readShowRow, readTrackingV1, readTrackingV2, yearOf, type RowContext, type ShowNames } from './tvtime-rows.ts';
import { asUtf8 } from './tvtime-text.ts';

export { tvTimeWantsEntry } from './tvtime-files.ts';

/**
 * TV Time, every generation of its exports (reference/import-formats.md §3 and §3a): the GDPR
 * export zip of older accounts (`seen_episode.csv`, `rewatched_episode.csv`,
 * `user_tv_show_data.csv`, `followed_tv_show.csv`, `tracking-prod-records(-v2).csv`, …) and the
 * current data export (`tvtime-series-`, `-series-episodes-`, `-movies-`, `-lists-DATE.csv`), as
 * the zip or its CSV files.
 * - Each file is told by its header (tvtime-files.ts); another service's file, or an upload with no
 *   TV Time file, is refused (400) naming what it is and what this route reads. The export's token,
 *   login and IP address files are never inflated.
 * - Columns are read by name, in any order, extra columns ignored; BOM, CRLF and quoted newlines
 *   are the CSV reader's; UTF-16 and Windows-1252 re-saves are read too (tvtime-text.ts). Times: see
 *   tvtime-timestamps.ts (Unix times as what they are, times without a zone in `options.timeZone`;
 *   each file's document notes how many of each it read and in which zone).
 * - The data export's list file names its items by TV Time's uuid: they take the TheTVDB and IMDb
 *   ids (and a movie's year) the series and movies files give that uuid.
 * - Every row is accounted for in its file's document: in an item, as a watch another row gave
 *   already (merged, counted), as an episode not watched (counted), as an episode reference (a
 *   TheTVDB episode id the catalog resolves), or skipped with why.
 * - Follow states: `followed_tv_show.csv` `active=0`, `user_tv_show_data.csv` `is_followed=0` and
 *   the data export's `stopped` shows are imported not followed, their watches kept;
 *   `archived=1` / `is_archived` archive.
 */
export function parseTvTimeFiles(files: UploadedFile[], options: ImportReadOptions = utcReading): ImportDocument[] {
  const classified = files.map((file) => classifyTvTimeFile(asUtf8(file)));
  const read = classified.filter((entry) => entry.kind !== undefined);
  if (read.length === 0) throw noTvTimeFile(classified);
  const rowsOf = new Map<ClassifiedFile, CsvRow[]>(read.map((entry) => [entry, parseCsvFile(entry.file.bytes, entry.file.name)]));
  const names = showNames(rowsOf);
  // Watches already recorded by an earlier row of the upload (v1 and v2 tracking files repeat each other).
  const seenWatches = new Set<string>();
  return classified.map((entry) => {
    const collector = new TvTimeCollector(entry.file.name, seenWatches);
    const clock = new TvTimeClock(options.timeZone, options.timeZoneChosen);
    if (entry.kind === undefined) {
      collector.skip(path.posix.basename(entry.file.name), entry.leftOut ?? 'not a TV Time file this importer reads');
    } else if (entry.kind === 'seen-echo') {
      const rows = rowsOf.get(entry)!.length;
      collector.skip(path.posix.basename(entry.file.name), `${rows} ${rows === 1 ? 'row' : 'rows'} saying where the watches of seen_episode.csv were made (the watches are read from there)`);
    } else {
      const read = readerOf[entry.kind];
      for (const row of rowsOf.get(entry)!) read({ collector, row, fileName: entry.file.name, names, clock });
    }
    const document = collector.build();
    const notes = clock.notes();
    if (notes.length > 0) document.notes = notes;
    return document;
  });
}

const readerOf: Record<Exclude<TvTimeFileKind, 'seen-echo'>, (context: RowContext) => void> = {
  'tracking-v2': readTrackingV2,
  'tracking-v1': readTrackingV1,
  seen: readSeen,
  rewatched: readRewatched,
  followed: (context) => readShowRow(context, 'followed'),
  'show-data': (context) => readShowRow(context, 'show-data'),
  rating: (context) => readShowRow(context, 'rating'),
  series: readSeries,
  'series-episodes': readSeriesEpisode,
  movies: readMovie,
  lists: readListItem,
  'lists-v1': readListV1,
};

/**
 * Show names and TheTVDB ids from every file that gives both, and what TV Time's uuids stand for
 * (the first one given wins).
 */
function showNames(rowsOf: Map<ClassifiedFile, CsvRow[]>): ShowNames {
  const names: ShowNames = { idByName: new Map(), nameById: new Map(), nameByUuid: new Map(), movieByUuid: new Map(), seriesByUuid: new Map() };
  // The data export's movies and series files give each uuid its ids (the list file names its items
  // by uuid only): read first, so a uuid the v1 tracking file also names keeps them.
  const uuidsFirst = [...rowsOf].sort(([a], [b]) => Number(!givesUuidIds(a)) - Number(!givesUuidIds(b)));
  for (const [entry, rows] of uuidsFirst) {
    if (givesUuidIds(entry)) {
      for (const row of rows) {
        const uuid = row.get('uuid');
        if (!uuid) continue;
        const ids = { tvdb: externalId(row.get('tvdb_id')), imdb: imdbId(row.get('imdb_id')) };
        if (entry.kind === 'series' && !names.seriesByUuid.has(uuid)) names.seriesByUuid.set(uuid, ids);
        if (entry.kind === 'movies' && !names.movieByUuid.has(uuid) && row.get('title')) names.movieByUuid.set(uuid, { title: row.get('title'), year: yearOf(row.get('year')), ...ids });
      }
    }
    if (entry.kind === 'tracking-v1') {
      for (const row of rows) {
        const uuid = row.get('uuid');
        if (row.get('entity_type') === 'movie' && uuid && row.get('movie_name') && !names.movieByUuid.has(uuid)) {
          names.movieByUuid.set(uuid, { title: row.get('movie_name'), year: yearOf(row.get('release_date')) });
        }
      }
    }
    const columns = namingColumns[entry.kind!];
    if (!columns) continue;
    for (const row of rows) {
      const id = externalId(row.get(columns.id));
      const name = row.get(columns.name);
      const uuid = columns.uuid ? row.get(columns.uuid) : '';
      if (!name) continue;
      if (uuid && !names.nameByUuid.has(uuid)) names.nameByUuid.set(uuid, name);
      if (id === undefined) continue;
      if (!names.nameById.has(id)) names.nameById.set(id, name);
      if (!names.idByName.has(name.toLowerCase())) names.idByName.set(name.toLowerCase(), id);
    }
  }
  return names;
}

const givesUuidIds = (entry: ClassifiedFile) => entry.kind === 'movies' || entry.kind === 'series';

/** Where each kind of file names a show with its TheTVDB id. */
const namingColumns: Partial<Record<TvTimeFileKind, { id: string; name: string; uuid?: string }>> = {
  'tracking-v2': { id: 's_id', name: 'series_name' },
  'tracking-v1': { id: 'series_id', name: 'series_name', uuid: 'series_uuid' },
  followed: { id: 'tv_show_id', name: 'tv_show_name' },
  'show-data': { id: 'tv_show_id', name: 'tv_show_name' },
  rating: { id: 'tv_show_id', name: 'tv_show_name' },
  series: { id: 'tvdb_id', name: 'title', uuid: 'uuid' },
};
