import { DocumentBuilder } from './document-builder.ts';
import { ImportFileError, type ImportDocument, type ImportIds } from './import-document.ts';
import { calendarDate, externalId, naiveUtcTimestamp, objectOf, parseCsvFile, titleOf, type CsvRow } from './parse-helpers.ts';

/**
 * Grouvee: the collection CSV ("Export your collection to a CSV file",
 * reference/import-formats.md §4b), one row per game with JSON-in-CSV cells.
 * - Games are matched by `igdb_id` (current exports; older 15-column exports lack it, and those
 *   games are unmatched: Giant Bomb ids are not a catalog here).
 * - Every game in the file is followed. A game on the `Played` shelf is watched ("played"):
 *   each `dates` entry with a `date_finished` is a history entry at that date (00:00 UTC), and
 *   without one the shelf's `date_added` is used; failing both it is marked played at import time.
 * - `release_date` fills in the release date of a game no catalog knows yet.
 */

/** Whether a zip entry is read. */
export const grouveeWantsEntry = (baseName: string): boolean => /\.csv$/i.test(baseName);

/** Parses a Grouvee export CSV. Throws ImportFileError naming the first malformed row. */
export function parseGrouveeFile(bytes: Uint8Array, fileName: string): ImportDocument {
  const rows = parseCsvFile(bytes, fileName, ['name', 'shelves']);
  const builder = new DocumentBuilder('grouvee', fileName);
  for (const row of rows) readRow(builder, row, fileName);
  return builder.build();
}

function readRow(builder: DocumentBuilder, row: CsvRow, fileName: string): void {
  const fail = (problem: string): never => {
    throw new ImportFileError(fileName, `line ${row.line}: ${problem}`);
  };
  const jsonCell = (column: string): unknown => {
    const text = row.get(column);
    if (text === '' || text === 'None') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return fail(`${column} is not valid JSON`);
    }
  };
  const igdb = externalId(row.get('igdb_id'));
  const ids: ImportIds = igdb === undefined ? {} : { igdb };
  const game = builder.title('game', ids, titleOf(row.get('name'), 'Untitled game'));
  game.releaseDate ??= calendarDate(row.get('release_date'));

  const shelves = jsonCell('shelves') === undefined ? {} : (objectOf(jsonCell('shelves')) ?? fail('shelves is not a JSON object'));
  if (!('Played' in shelves)) return;
  const dates = jsonCell('dates') ?? [];
  if (!Array.isArray(dates)) fail('dates is not a JSON list');
  let finished = 0;
  for (const value of dates as unknown[]) {
    const text = objectOf(value)?.date_finished;
    if (typeof text !== 'string' || text === 'None' || text === '') continue;
    builder.watched(game, naiveUtcTimestamp(text) ?? fail(`date_finished "${text}" is not a date`));
    finished += 1;
  }
  if (finished > 0) return;
  const added = objectOf(shelves.Played)?.date_added;
  builder.watched(game, typeof added === 'string' ? naiveUtcTimestamp(added) : undefined);
}
