import path from 'node:path';
import { DocumentBuilder } from './document-builder.ts';
import type { UploadedFile } from './expand-uploads.ts';
import { ImportFileError, type ImportDocument, type ImportIds } from './import-document.ts';
import { externalId, naiveUtcTimestamp, parseCsvFile, titleOf, wholeNumber, type CsvRow } from './parse-helpers.ts';

/**
 * TV Time: the GDPR data-export zip, or its CSV files (reference/import-formats.md §3).
 * - Files are known by a normalised name (lower case, letters and digits only), since exports
 *   spell them with hyphens, underscores or prefixes; a CSV uploaded under another name is known
 *   by its header. Only the files below are ever inflated: the export's token, login and IP
 *   address files are listed in `skipped` unread.
 * - Shows are TheTVDB series ids (`s_id`, `series_id`, `tv_show_id`); episodes are TheTVDB
 *   season and number. `seen_episode.csv` has no series id: shows are found by name through the
 *   other files of the same upload, and stay unmatched when none names them.
 * - Timestamps are naive (`2022-05-01 20:11:05`) and read as UTC (see naiveUtcTimestamp).
 * - Rewatch rows are extra history entries; v1 and v2 tracking files may both be there, and their
 *   identical entries merge. Movies carry only a title, so they are reported as unmatched.
 * - `followed_tv_show.csv`: `active=0` unfollows, `archived=1` archives (the account's own
 *   explicit choices still win).
 */

type FileKind = 'tracking-v2' | 'tracking-v1' | 'seen' | 'followed' | 'show-data' | 'rating';

const kindByName: Record<string, FileKind> = {
  trackingprodrecordsv2: 'tracking-v2',
  trackingprodrecords: 'tracking-v1',
  seenepisode: 'seen',
  followedtvshow: 'followed',
  usertvshowdata: 'show-data',
  tvshowrate: 'rating',
};

/** Header columns that tell a renamed file's kind, tried in order. */
const kindByColumns: [FileKind, string[]][] = [
  ['tracking-v2', ['s_id']],
  ['tracking-v1', ['entity_type']],
  ['seen', ['episode_season_number', 'tv_show_name']],
  ['followed', ['tv_show_id', 'active']],
  ['rating', ['tv_show_id', 'rating']],
  ['show-data', ['tv_show_id']],
];

const normalise = (baseName: string) => baseName.toLowerCase().replace(/\.csv$/, '').replace(/[^a-z0-9]/g, '');

/** Whether a zip entry is read: only the CSV files above. */
export const tvTimeWantsEntry = (baseName: string): boolean => /\.csv$/i.test(baseName) && normalise(baseName) in kindByName;

const yes = (value: string) => value === '1' || value.toLowerCase() === 'true';

/** Parses the CSV files of one upload, one document per file. Throws ImportFileError on the first problem. */
export function parseTvTimeFiles(files: UploadedFile[]): ImportDocument[] {
  const parsed = files.map((file) => {
    const byName = kindByName[normalise(path.posix.basename(file.name))];
    const rows = /\.csv$/i.test(file.name) || byName ? parseCsvFile(file.bytes, file.name) : undefined;
    const header = new Set(rows === undefined ? [] : Object.keys(headerOf(file)));
    const kind = byName ?? kindByColumns.find(([, columns]) => columns.every((column) => header.has(column)))?.[0];
    return { file, kind, rows: rows ?? [] };
  });
  // Series names → TheTVDB ids, from every file that has both, for seen_episode.csv.
  const seriesByName = new Map<string, number>();
  for (const { kind, rows } of parsed) {
    for (const row of rows) {
      const id = externalId(row.get('s_id') || row.get('series_id') || row.get('tv_show_id'));
      const name = (row.get('series_name') || row.get('tv_show_name')).toLowerCase();
      if (kind && id !== undefined && name && !seriesByName.has(name)) seriesByName.set(name, id);
    }
  }
  return parsed.map(({ file, kind, rows }) => {
    const builder = new DocumentBuilder('tvtime', file.name);
    if (!kind) builder.skip(path.posix.basename(file.name), 'not a TV Time file this importer reads');
    else for (const row of rows) readRow(builder, kind, row, file.name, seriesByName);
    return builder.build();
  });
}

function headerOf(file: UploadedFile): Record<string, true> {
  const text = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, Math.min(file.bytes.byteLength, 8192)).toString('utf8');
  const line = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return Object.fromEntries(line.split(',').map((cell) => [cell.trim().replace(/^"|"$/g, '').toLowerCase(), true]));
}

function readRow(builder: DocumentBuilder, kind: FileKind, row: CsvRow, fileName: string, seriesByName: Map<string, number>): void {
  const timeOf = (...columns: string[]): Date | undefined => {
    const column = columns.find((name) => row.get(name) !== '');
    if (column === undefined) return undefined;
    const at = naiveUtcTimestamp(row.get(column));
    if (!at) throw new ImportFileError(fileName, `line ${row.line}: ${column} "${row.get(column)}" is not a date and time`);
    return at;
  };
  const showOf = (idColumn: string, nameColumn: string) => {
    const name = titleOf(row.get(nameColumn), 'Untitled show');
    const id = externalId(row.get(idColumn)) ?? seriesByName.get(name.toLowerCase());
    const ids: ImportIds = id === undefined ? {} : { tvdb: id };
    return builder.show(ids, name);
  };
  const watchEpisode = (show: ReturnType<typeof showOf>, seasonText: string, numberText: string, at: Date | undefined) => {
    const season = wholeNumber(seasonText);
    const number = wholeNumber(numberText);
    if (number === undefined) return false;
    if (season === undefined) throw new ImportFileError(fileName, `line ${row.line}: the season number "${seasonText}" is not a whole number`);
    builder.watched(builder.episode(show, season, number), at);
    return true;
  };

  if (kind === 'tracking-v2') {
    const show = showOf('s_id', 'series_name');
    if (yes(row.get('is_archived'))) show.archived = true;
    const season = row.get('season_number') || row.get('s_no') || (yes(row.get('is_special')) ? '0' : '');
    watchEpisode(show, season, row.get('episode_number') || row.get('ep_no'), timeOf('created_at', 'updated_at'));
  } else if (kind === 'tracking-v1') {
    const watching = row.get('type') === 'watch';
    if (row.get('entity_type') === 'movie') {
      const movie = builder.title('movie', {}, titleOf(row.get('movie_name'), 'Untitled movie'));
      if (watching) builder.watched(movie, timeOf('watch_date', 'created_at'));
      return;
    }
    const show = showOf('series_id', 'series_name');
    if (watching) watchEpisode(show, row.get('season_number'), row.get('episode_number'), timeOf('watch_date', 'created_at'));
  } else if (kind === 'seen') {
    const show = showOf('tv_show_id', 'tv_show_name');
    watchEpisode(show, row.get('episode_season_number'), row.get('episode_number'), timeOf('created_at', 'updated_at'));
  } else {
    const show = showOf('tv_show_id', 'tv_show_name');
    if (kind === 'followed' && row.get('active') === '0') show.followed = false;
    if (kind === 'followed' && yes(row.get('archived'))) show.archived = true;
  }
}
