import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import type { UploadedFile } from './expand-uploads.ts';
import { ImportFileError } from './import-document.ts';
import { describeFile, serviceOf, tvTimeCsv } from './recognise-file.ts';

/**
 * What each file of a TV Time upload is, told by its header (its columns, in any order), never by
 * its name alone: people rename and re-zip exports, and another service's file may sit under any
 * name. See reference/import-formats.md §3 and §3a.
 */
export type TvTimeFileKind =
  /** `tracking-prod-records-v2.csv`: one row per watch, TheTVDB series id, season and number. */
  | 'tracking-v2'
  /** `tracking-prod-records.csv`: watches, follows and to-watch rows of series and movies. */
  | 'tracking-v1'
  /** `seen_episode.csv`, both shapes: with show name, season and number, or the TheTVDB episode id alone. */
  | 'seen'
  /** `rewatched_episode.csv`: a TheTVDB episode id and `cpt`, its number of rewatches. */
  | 'rewatched'
  /** `seen_episode_source.csv`, `watched_on_episode.csv`: where the watches of seen_episode.csv were made. */
  | 'seen-echo'
  | 'followed'
  | 'show-data'
  | 'rating'
  /** The current data export: `tvtime-series-DATE.csv` and its siblings. */
  | 'series'
  | 'series-episodes'
  | 'movies'
  | 'lists'
  /** `lists-prod-lists.csv` of the GDPR export: each list's items as a dump of Go maps. */
  | 'lists-v1';

/** Columns that tell a kind, tried in order (the first kind whose columns are all there wins). */
const kindByColumns: [TvTimeFileKind, string[]][] = [
  ['series-episodes', ['series_tvdb_id', 'is_watched']],
  ['series-episodes', ['series_uuid', 'is_watched']],
  ['lists', ['list_id', 'item_type']],
  ['lists-v1', ['objects']],
  ['movies', ['uuid', 'is_watched', 'title']],
  ['series', ['uuid', 'status', 'title']],
  ['tracking-v2', ['s_id']],
  ['tracking-v1', ['entity_type']],
  ['rewatched', ['episode_id', 'cpt']],
  ['seen-echo', ['episode_id', 'watched_on_source_id']],
  ['seen-echo', ['episode_id', 'source', 'created_at']],
  // Other tables of the export name an episode and a time too (emotions, comments): seen_episode.csv
  // is told by the columns only it has, or by its name.
  ['seen', ['episode_id', 'episode_season_number']],
  ['seen', ['episode_id', 'tweet_id']],
  ['seen', ['episode_id', 'fb_action_id']],
  ['followed', ['tv_show_id', 'active']],
  ['show-data', ['tv_show_id', 'is_followed']],
  ['rating', ['tv_show_id', 'rating']],
];

/** The files this importer reads, for the message that refuses anything else. */
export const expectedTvTimeFiles =
  'expected TV Time export files: tracking-prod-records(-v2).csv, seen_episode.csv, rewatched_episode.csv, followed_tv_show.csv, '
  + 'user_tv_show_data.csv, tv_show_rate.csv, lists-prod-lists.csv, or the data export\'s tvtime-series-, tvtime-series-episodes-, tvtime-movies- and tvtime-lists-….csv';

const normalise = (baseName: string) => baseName.toLowerCase().replace(/\.[a-z0-9]+$/, '').replace(/[^a-z0-9]/g, '');

/**
 * Files never inflated, whatever the zip: the export's access token, login and IP address tables
 * (`access_token.csv`, `auth-prod-login.csv`, `ip_address.csv`) and anything named like them.
 */
const credentialName = /token|login|password|secret|ipaddress|session|cookie|credential|auth/;

/**
 * Whether a zip entry is inflated: every CSV (its header says what it is), and JSON files so that
 * another service's export zipped and sent here is named and refused; never the credential files.
 */
export const tvTimeWantsEntry = (baseName: string): boolean => /\.(csv|json)$/i.test(baseName) && !credentialName.test(normalise(baseName));

/** One file of the upload, classified. */
export interface ClassifiedFile {
  file: UploadedFile;
  /** The TV Time file it is; undefined for a file left out (see `leftOut`). */
  kind?: TvTimeFileKind;
  /** Why a file inside a zip is left out (a table of the export this importer does not read). */
  leftOut?: string;
  /** The header's columns, lower-cased. */
  columns: string[];
}

/**
 * Tells what `file` is. Another service's export (Trakt, Simkl, Letterboxd, Grouvee, Airdate), a
 * file that is not text, or an unknown CSV uploaded on its own is an ImportFileError naming the
 * file, what it is and what this route reads. An unknown CSV inside a zip is left out with a
 * reason: TV Time's export zips hold dozens of tables besides the ones read here.
 */
export function classifyTvTimeFile(file: UploadedFile): ClassifiedFile {
  const inZip = /\.zip\//i.test(file.name);
  const text = firstLines(file);
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('{') || start.startsWith('[')) {
    const service = serviceOf(file.bytes);
    if (inZip && !service) return { file, columns: [], leftOut: 'not a TV Time file this importer reads (JSON)' };
    throw new ImportFileError(file.name, `is ${describeFile(file.bytes)}, not a TV Time CSV file; ${expectedTvTimeFiles}`);
  }
  const columns = headerColumns(start, file.name);
  const has = new Set(columns);
  const service = serviceOf(file.bytes);
  if (service && service !== tvTimeCsv) throw new ImportFileError(file.name, `is ${service} (columns ${listColumns(columns)}), not a TV Time file; ${expectedTvTimeFiles}`);
  const named = normalise(path.posix.basename(file.name));
  const kind = kindByColumns.find(([, needed]) => needed.every((column) => has.has(column)))?.[0]
    ?? (named.startsWith('seenepisode') && has.has('episode_id') && has.has('created_at') ? 'seen' : undefined);
  if (kind) return { file, kind, columns };
  const found = columns.length === 0 ? 'has no header line' : `has the columns ${listColumns(columns)}`;
  if (!inZip) throw new ImportFileError(file.name, `is not a TV Time file this importer reads: it ${found}; ${expectedTvTimeFiles}`);
  return { file, columns, leftOut: `not a TV Time file this importer reads (it ${found})` };
}

/** The message for an upload in which no file is a TV Time file. */
export function noTvTimeFile(files: ClassifiedFile[]): ImportFileError {
  if (files.length === 0) return new ImportFileError('upload', `holds no CSV file; ${expectedTvTimeFiles}`);
  const first = files[0]!.file.name;
  const archive = /^(.*?\.zip)\//i.exec(first)?.[1] ?? first;
  const found = files.map((entry) => `${path.posix.basename(entry.file.name)} (${entry.columns.length ? listColumns(entry.columns) : 'JSON'})`);
  return new ImportFileError(archive, `holds no TV Time file: found ${found.slice(0, 5).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}; ${expectedTvTimeFiles}`);
}

const listColumns = (columns: string[]) => (columns.length > 8 ? `${columns.slice(0, 8).join(', ')}, …` : columns.join(', '));

/** The start of the file as text (enough for its header and a JSON file's first keys). */
function firstLines(file: UploadedFile): string {
  const head = file.bytes.subarray(0, 16_384);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  // A NUL or a run of replacement characters early on: a binary file under a .csv name.
  if (/\u0000/.test(text) || (text.match(/\uFFFD/g)?.length ?? 0) > 8) throw new ImportFileError(file.name, `is not a text file; ${expectedTvTimeFiles}`);
  return text;
}

/** The header's column names, lower-cased and trimmed; a header may quote its names. */
function headerColumns(text: string, fileName: string): string[] {
  const firstRecord = /^((?:[^"\r\n]|"[^"]*")*)/.exec(text)?.[1] ?? '';
  try {
    const [header] = parseCsv(firstRecord, { relax_column_count: true, relax_quotes: true }) as string[][];
    return (header ?? []).map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  } catch (error) {
    throw new ImportFileError(fileName, `is not valid CSV (${(error as Error).message})`);
  }
}
