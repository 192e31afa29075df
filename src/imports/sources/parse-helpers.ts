import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import { TooLargeError } from '../../errors.ts';
import { importRows, inputLengths, maxIntColumn } from '../../limits.ts';
import { exceedsLength } from '../../value-bounds.ts';
import { ImportFileError } from './import-document.ts';

/**
 * Reading the raw pieces every import parser shares: text (BOM, UTF-8), JSON, CSV (by header
 * name, CRLF, quoted cells), external ids (numbers or numeric strings), timestamps.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The file as text; a leading BOM is dropped (TV Time and Excel write one). */
export function decodeText(bytes: Uint8Array, fileName: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ImportFileError(fileName, 'is not UTF-8 text');
  }
}

/** The file parsed as JSON. */
export function parseJsonFile(bytes: Uint8Array, fileName: string): unknown {
  const text = decodeText(bytes, fileName);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ImportFileError(fileName, `is not valid JSON (${(error as Error).message})`);
  }
}

/** One CSV row by lower-cased header name, with its line number for messages. */
export interface CsvRow {
  line: number;
  get(column: string): string;
}

/**
 * The rows of a CSV file with a header line; `required` columns must be in the header. A row whose
 * cells hold more than inputLengths.importCsvRecord characters refuses the file (400), and a file of
 * more data rows than one import takes (importRows.perRequest) is refused (413) once that many
 * have been read, before any is made into an item.
 */
export function parseCsvFile(bytes: Uint8Array, fileName: string, required: string[] = []): CsvRow[] {
  const text = decodeText(bytes, fileName);
  const maxRecord = inputLengths.importCsvRecord;
  const tooLong = (line: number) => new ImportFileError(fileName, `line ${line}: the row has more than ${maxRecord} characters, the most one CSV row may have`);
  let records: string[][];
  try {
    // csv-parse's own bound stops a runaway row (a quote never closed) while it is read, so no cell
    // of any size is held. It counts the cell being read in bytes and the earlier ones in UTF-16
    // units, up to 4 per character: at 4× it never refuses a row within the limit, which is checked
    // exactly below.
    records = parseCsv(text, { bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 4 * maxRecord, to: importRows.perRequest + 2 });
  } catch (error) {
    if (error instanceof CsvError && error.code === 'CSV_MAX_RECORD_SIZE') throw tooLong(Number(error.lines));
    throw new ImportFileError(fileName, `is not valid CSV (${(error as Error).message})`);
  }
  // The header and perRequest rows are within; `to` stopped the parser at the one row past them.
  if (records.length > importRows.perRequest + 1) {
    throw new TooLargeError(`${fileName}: the CSV has more than ${importRows.perRequest.toLocaleString('en')} rows, the most one import takes (importRows); split it into several imports`);
  }
  records.forEach((cells, index) => {
    let units = 0;
    for (const cell of cells) units += cell.length;
    // UTF-16 units are at least the characters: only a row with more units needs counting.
    if (units > maxRecord && exceedsLength(cells.join(''), maxRecord)) throw tooLong(index + 1);
  });
  const [header, ...rows] = records;
  if (!header) throw new ImportFileError(fileName, 'is empty');
  const columns = new Map(header.map((name, index) => [name.trim().toLowerCase(), index]));
  const missing = required.find((name) => !columns.has(name));
  if (missing) throw new ImportFileError(fileName, `has no "${missing}" column`);
  return rows.map((cells, index) => ({
    line: index + 2,
    get: (column) => {
      const at = columns.get(column);
      return at === undefined ? '' : (cells[at] ?? '').trim();
    },
  }));
}

/** An external id from a number or a numeric string; undefined for null, '', 0 or anything else. */
export function externalId(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isInteger(number) && number > 0 && number <= maxIntColumn ? number : undefined;
}

/** A whole number ≥ 0 (season and episode numbers), or undefined. */
export function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isInteger(number) && number >= 0 && number <= maxIntColumn ? number : undefined;
}

/** An ISO 8601 timestamp with a zone (Trakt, Simkl); undefined when not one. */
export function isoTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * A naive `YYYY-MM-DD HH:MM:SS` (TV Time) or a bare `YYYY-MM-DD` (Grouvee), read as UTC: the
 * files give no zone, and these are server database columns, which servers keep in UTC.
 */
export function naiveUtcTimestamp(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/.exec(value.trim());
  if (!match) return isoTimestamp(value.trim());
  const [, year, month, day, hour = '0', minute = '0', second = '0'] = match;
  const date = new Date(Date.UTC(+year!, +month! - 1, +day!, +hour, +minute, +second));
  return date.getUTCDate() === +day! && date.getUTCMonth() === +month! - 1 ? date : undefined;
}

/**
 * 12:00 UTC of a local date without a time (`YYYY-MM-DD`: Letterboxd's and IMDb's dates), or
 * undefined when `date` is no real calendar date. Noon UTC is that same calendar date in every zone
 * from UTC−11 to UTC+11, so the calendar and feeds show the watch on its day nearly everywhere.
 */
export function noonOfLocalDate(date: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const day = naiveUtcTimestamp(date);
  return day && new Date(day.getTime() + 12 * 3600_000);
}

/** `YYYY-MM-DD` when `value` is a real calendar date, else null. */
export function calendarDate(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  return naiveUtcTimestamp(value) ? value : null;
}

/** A non-empty title, or the fallback. */
export function titleOf(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

/** `value` when it is a plain object, else undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
