import { ImportFileError, type ImportDocument, type ImportIds, type ImportSkip, type ImportTitle } from './import-document.ts';
import { calendarDate, externalId, naiveUtcTimestamp, objectOf, parseCsvFile, titleOf, type CsvRow } from './parse-helpers.ts';
import { csvHeaderColumns, notThisSource } from './recognise-file.ts';

/**
 * Grouvee: the collection CSV ("Export your collection to a CSV file",
 * reference/import-formats.md §4b), one row per game with JSON-in-CSV cells, read by header name:
 * the current 20-column export and the older 15-column one (no `igdb_id`, games known by
 * `giantbomb_id` only) alike, in any column order.
 * - A row is one game, distinct by its Grouvee `id` (kept as the item's sourceId): a library holds
 *   the same title more than once (a remake, another platform), and those stay two items here, in
 *   `unmatched` and in the report, never merged by title. A second row with the same `id` is a
 *   duplicate: its dates join the first row's and `skipped` says so.
 * - Ids: `igdb_id` and `giantbomb_id`; the year of `release_date` goes with the title for
 *   matching by title and year when no id answers.
 * - Every game in the file is followed. A game on the `Played` shelf is watched ("played"):
 *   each `dates` entry with a `date_finished` is a history entry at that date (00:00 UTC), and
 *   without one the shelf's `date_added` is used; failing both it is marked played at import time.
 * - `release_date` fills in the release date of a game no catalog knows yet.
 * A file without Grouvee's `name` and `shelves` columns is refused naming what it is.
 */

/** Whether a zip entry is read. */
export const grouveeWantsEntry = (baseName: string): boolean => /\.csv$/i.test(baseName);

const expected = 'a Grouvee collection CSV (columns id, name, shelves, …, giantbomb_id[, igdb_id])';

/** Parses a Grouvee export CSV. Throws ImportFileError naming the first malformed row. */
export function parseGrouveeFile(bytes: Uint8Array, fileName: string): ImportDocument {
  const columns = csvHeaderColumns(bytes);
  if (!columns || !columns.has('name') || !columns.has('shelves')) throw notThisSource(bytes, fileName, expected);
  const rows = parseCsvFile(bytes, fileName, ['name', 'shelves']);
  if (rows.length === 0) throw new ImportFileError(fileName, 'holds no games: the Grouvee CSV has a header and no rows');
  const games: ImportTitle[] = [];
  const skipped: ImportSkip[] = [];
  /** The game and first line of each Grouvee id. */
  const byGrouveeId = new Map<string, { game: ImportTitle; line: number }>();
  for (const row of rows) {
    const game = readRow(row, fileName);
    const first = game.sourceId === undefined ? undefined : byGrouveeId.get(game.sourceId);
    if (first) {
      for (const entry of game.history) first.game.history.push(entry);
      if (game.watched) first.game.watched = true;
      skipped.push({ item: `${game.title} (Grouvee id ${game.sourceId}, line ${row.line})`, reason: `merged as a duplicate: line ${first.line} has the same Grouvee id` });
      continue;
    }
    if (game.sourceId !== undefined) byGrouveeId.set(game.sourceId, { game, line: row.line });
    games.push(game);
  }
  for (const game of games) tidyHistory(game);
  return { source: 'grouvee', fileName, shows: [], titles: games, skipped };
}

function readRow(row: CsvRow, fileName: string): ImportTitle {
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
  const ids: ImportIds = {};
  const igdb = externalId(row.get('igdb_id'));
  const giantbomb = externalId(row.get('giantbomb_id'));
  if (igdb !== undefined) ids.igdb = igdb;
  if (giantbomb !== undefined) ids.giantbomb = giantbomb;
  const game: ImportTitle = { kind: 'game', ids, title: titleOf(row.get('name'), 'Untitled game'), history: [] };
  const grouveeId = row.get('id');
  if (grouveeId !== '' && grouveeId !== 'None') game.sourceId = grouveeId;
  const releaseDate = calendarDate(row.get('release_date'));
  if (releaseDate) {
    game.releaseDate = releaseDate;
    game.year = Number(releaseDate.slice(0, 4));
  } else if (/^\d{4}$/.test(row.get('release_date'))) {
    game.year = Number(row.get('release_date'));
  }

  const shelfCell = jsonCell('shelves');
  const shelves = shelfCell === undefined ? {} : (objectOf(shelfCell) ?? fail('shelves is not a JSON object'));
  if (!('Played' in shelves)) return game;
  const dates = jsonCell('dates') ?? [];
  if (!Array.isArray(dates)) fail('dates is not a JSON list');
  for (const value of dates as unknown[]) {
    const text = objectOf(value)?.date_finished;
    if (typeof text !== 'string' || text === 'None' || text === '') continue;
    game.history.push({ watched: true, at: naiveUtcTimestamp(text) ?? fail(`date_finished "${text}" is not a date`) });
  }
  if (game.history.length > 0) return game;
  const added = objectOf(shelves.Played)?.date_added;
  const at = typeof added === 'string' ? naiveUtcTimestamp(added) : undefined;
  if (at) game.history.push({ watched: true, at });
  else game.watched = true;
  return game;
}

/** History oldest first, identical entries once (two `dates` entries finishing the same day). */
function tidyHistory(game: ImportTitle): void {
  game.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  game.history = game.history.filter((entry, index, all) => index === 0 || all[index - 1]!.at.getTime() !== entry.at.getTime());
}
