import { ImportFileError } from './import-document.ts';
import { isZip } from './read-zip.ts';

/**
 * What an uploaded file is, by its content (never its name alone), for the refusal an importer
 * gives a file that is not its own: "is a Trakt JSON file, not a Grouvee collection CSV". Only the
 * start of the file is read (its first line, or the first keys of its JSON), so refusing a big file
 * of another service costs next to nothing; it runs only once a parser has found the file is not
 * its own.
 */

/** How much of a file is looked at. */
const headLength = 64 * 1024;

/** What describeFile calls a TV Time file (the TV Time importer asks whether a file is another service's). */
export const tvTimeCsv = 'a TV Time CSV';

/** Lower-cased header columns that name a CSV's service, tried in order. */
const csvKinds: [string, (columns: Set<string>) => boolean][] = [
  ['a Letterboxd CSV', (columns) => columns.has('letterboxd uri')],
  ['a Grouvee collection CSV', (columns) => (columns.has('shelves') && (columns.has('giantbomb_id') || columns.has('igdb_id') || columns.has('platforms'))) || (columns.has('giantbomb_id') && columns.has('name'))],
  ['a Simkl CSV backup', (columns) => columns.has('simkl_id')],
  ['an IMDb export CSV', (columns) => columns.has('const') && ['your rating', 'you rated', 'title type', 'position'].some((name) => columns.has(name))],
  ['a Trakt CSV', (columns) => columns.has('trakt_id') || columns.has('trakt')],
  [tvTimeCsv, (columns) => ['tv_show_name', 'tv_show_id', 's_id', 'entity_type', 'episode_season_number', 'series_name', 'is_watched'].some((name) => columns.has(name))],
  ['a Letterboxd list or profile CSV', (columns) => columns.has('letterboxd list') || (columns.has('username') && columns.has('date joined'))],
];

/** What `bytes` are, as a phrase ("a Trakt JSON file", "a TV Time CSV", "an empty file"). */
export function describeFile(bytes: Uint8Array): string {
  if (bytes.byteLength === 0) return 'an empty file';
  if (isZip(bytes)) return 'a zip archive';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, headLength)).toString('utf8').replace(/^\uFEFF/, '');
  const start = head.trimStart();
  if (start === '') return 'a file of blank space';
  if (start.startsWith('{') || start.startsWith('[')) return describeJson(start);
  const firstLine = start.split(/\r?\n/, 1)[0]!;
  if (firstLine.includes(',')) {
    const columns = new Set(firstLine.split(',').map((cell) => cell.trim().replace(/^"|"$/g, '').trim().toLowerCase()));
    return csvKinds.find(([, test]) => test(columns))?.[0] ?? `a CSV file with the columns ${quoteColumns(firstLine)}`;
  }
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000E-\u001F]/.test(head.slice(0, 512)) ? 'a binary file' : 'a text file that is neither CSV nor JSON';
}

/** The JSON kinds, by the keys near the start (a quick look, not a parse: the file may be cut off at headLength). */
function describeJson(start: string): string {
  const keys = new Set(Array.from(start.matchAll(/"([A-Za-z_]+)"\s*:/g), (match) => match[1]!));
  if (/"format"\s*:\s*"airdate-export"/.test(start)) return 'an Airdate export';
  if (start.startsWith('{') && (keys.has('shows') || keys.has('movies') || keys.has('anime')) && (keys.has('simkl') || keys.has('watched_episodes_count') || keys.has('total_episodes_count') || keys.has('added_to_watchlist_at'))) {
    return 'a Simkl JSON backup';
  }
  if (start.startsWith('[') && ['watched_at', 'last_watched_at', 'rated_at', 'listed_at', 'collected_at', 'plays'].some((key) => keys.has(key))) return 'a Trakt JSON file';
  if (keys.has('trakt')) return 'a Trakt JSON file';
  if (start.startsWith('{') && (keys.has('shows') || keys.has('movies') || keys.has('anime'))) return 'a JSON object with "shows", "movies" or "anime"';
  return start.startsWith('[') ? 'a JSON array of something else' : 'a JSON object of something else';
}

function quoteColumns(line: string): string {
  const text = line.length > 120 ? `${line.slice(0, 117)}…` : line;
  return `"${text}"`;
}

/**
 * The service whose export `bytes` are, when its content says so ("a Trakt JSON file", "a Letterboxd
 * CSV", "a TV Time CSV"…); undefined for anything else (an unknown CSV, some other JSON).
 */
export function serviceOf(bytes: Uint8Array): string | undefined {
  const described = describeFile(bytes);
  return services.has(described) ? described : undefined;
}

const services = new Set([...csvKinds.map(([name]) => name), 'an Airdate export', 'a Simkl JSON backup', 'a Trakt JSON file']);

/** The 400 for a file that is not the importer's own: what it is and what was expected. */
export function notThisSource(bytes: Uint8Array, fileName: string, expected: string): ImportFileError {
  return new ImportFileError(fileName, `is ${describeFile(bytes)}, not ${expected}`);
}

/** The lower-cased columns of a CSV's first line (after a BOM), or undefined when it has none. */
export function csvHeaderColumns(bytes: Uint8Array): Set<string> | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, headLength)).toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = head.split(/\r?\n/, 1)[0]!;
  if (!firstLine.includes(',') || /^\s*[[{]/.test(firstLine)) return undefined;
  return new Set(firstLine.split(',').map((cell) => cell.trim().replace(/^"|"$/g, '').trim().toLowerCase()));
}

/** Whether `bytes` start like JSON (after a BOM and blank space): another service's CSV does not. */
export function startsLikeJson(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  return /^(\xEF\xBB\xBF)?\s*[[{]/.test(head);
}
