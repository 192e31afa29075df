import { databaseKind } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';

/**
 * Bulk INSERTs and `IN` reads through Prisma's raw API, inside the caller's transaction. An import
 * writes up to 100 000 history entries. Prisma's createMany costs ~0.2 ms a row, and even a raw
 * multi-row statement pays per bound value: the whole request (every parameter) is serialized to
 * JSON for Prisma's query compiler, logged as JSON for the query event and mapped again by the
 * driver adapter, and SQLite prepares a statement thousands of placeholders long. Measured on a
 * 100 000-play import, that was ~1.2 GB of short-lived allocations, most of the import's peak RSS.
 *
 * So the rows of a statement travel as ONE bound parameter: a JSON array the database unpacks
 * itself (SQLite's json_each, PostgreSQL's json_populate_recordset, which takes each column's type
 * from the table). Values are still never spliced into SQL text. Dates are written in the form
 * Prisma's own writes store them (the feed loader compares the stored text of SQLite timestamps),
 * so rows written here are indistinguishable from createMany's. Table and column names are
 * identifiers from this codebase, never input; both databases accept them double-quoted.
 */

type Tx = Prisma.TransactionClient;

/**
 * Rows per INSERT and values per `IN` list: each statement's JSON parameter stays in the hundreds
 * of KB, and a few dozen statements cover the largest import.
 */
const rowsPerStatement = 5_000;
const maxListValues = 10_000;

/** A surrogate code unit outside a pair (in `u` mode a pair is one code point, never matched). */
const loneSurrogate = /\p{Cs}/u;
const loneSurrogates = /\p{Cs}/gu;

/** A value of one column as JSON text, in the form the database's driver adapter would bind it. */
function jsonValue(value: unknown, sqlite: boolean): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) {
    // SQLite: the adapter's default "iso8601" timestamp format. PostgreSQL: `timestamp(3)` input
    // reads the UTC wall time and ignores the zone, as Prisma's own writes store UTC.
    return `"${sqlite ? value.toISOString().replace('Z', '+00:00') : value.toISOString()}"`;
  }
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`bulk-sql: cannot store ${value}`);
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      // A lone surrogate (possible through a JSON "\ud800" escape in an uploaded file) would be
      // rejected by PostgreSQL's JSON reader; a bound string became U+FFFD, so this does too.
      return JSON.stringify(loneSurrogate.test(value) ? value.replace(loneSurrogates, '\ufffd') : value);
    default:
      throw new TypeError(`bulk-sql: cannot store a value of type ${typeof value}`);
  }
}

const quoted = (name: string) => `"${name}"`;

/**
 * The rows as one JSON text: arrays in column order for SQLite (read back by position), objects
 * keyed by column name for PostgreSQL (json_populate_recordset matches keys to columns).
 */
function rowsJson(columns: readonly string[], rows: readonly (readonly unknown[])[], sqlite: boolean): string {
  const keys = columns.map((column) => `${JSON.stringify(column)}:`);
  const parts: string[] = new Array(rows.length);
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index]!;
    let text = sqlite ? '[' : '{';
    for (let column = 0; column < columns.length; column += 1) {
      if (column > 0) text += ',';
      if (!sqlite) text += keys[column];
      text += jsonValue(row[column], sqlite);
    }
    parts[index] = text + (sqlite ? ']' : '}');
  }
  return `[${parts.join(',')}]`;
}

/** The INSERT of one statement's rows: `INSERT INTO "table" (columns) SELECT … FROM <the JSON rows>`. */
function insertStatement(table: string, columns: readonly string[], json: string, sqlite: boolean, returning: readonly string[]): Prisma.Sql {
  const target = `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) `;
  const source = sqlite
    ? `SELECT ${columns.map((_, index) => `value ->> ${index}`).join(', ')} FROM json_each(`
    : `SELECT ${columns.map(quoted).join(', ')} FROM json_populate_recordset(NULL::${quoted(table)}, `;
  // `RETURNING` rows come back in no promised order, so callers return the columns that identify them.
  const tail = `${sqlite ? ')' : '::json)'}${returning.length > 0 ? ` RETURNING ${returning.map(quoted).join(', ')}` : ''}`;
  return Prisma.sql`${Prisma.raw(target + source)}${json}${Prisma.raw(tail)}`;
}

/** Inserts `rows` (values in `columns` order) into `table`; returns the number of rows written. */
export async function insertRows(tx: Tx, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<number> {
  const sqlite = databaseKind() === 'sqlite';
  let written = 0;
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    written += await tx.$executeRaw(insertStatement(table, columns, rowsJson(columns, rows.slice(start, start + rowsPerStatement), sqlite), sqlite, []));
  }
  return written;
}

/**
 * Inserts `rows` like insertRows and returns the `returning` columns of the rows written (in no
 * particular order), so new rows' ids are known without reading them back.
 */
export async function insertRowsReturning<T>(
  tx: Tx,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  returning: readonly string[],
): Promise<T[]> {
  const sqlite = databaseKind() === 'sqlite';
  const written: T[] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const json = rowsJson(columns, rows.slice(start, start + rowsPerStatement), sqlite);
    for (const row of await tx.$queryRaw<Record<string, unknown>[]>(insertStatement(table, columns, json, sqlite, returning))) written.push(numbers(row) as T);
  }
  return written;
}

/** A row with its BIGINT values (PostgreSQL counts, SQLite through some paths) as numbers. */
function numbers(row: Record<string, unknown>): Record<string, unknown> {
  for (const name in row) if (typeof row[name] === 'bigint') row[name] = Number(row[name]);
  return row;
}

/**
 * Rows of `table` whose `column` is one of `values` (in batches of 10 000, each one JSON
 * parameter), with `columns` selected and an optional further condition. Prisma's raw API reads
 * rows 5–10× faster than findMany, which matters when an import compares against tens of thousands
 * of stored rows. Integers come back as numbers, booleans as booleans and timestamps as Dates on
 * both databases.
 */
export async function selectIn<T>(
  tx: Tx,
  table: string,
  columns: readonly string[],
  column: string,
  values: readonly unknown[],
  condition: Prisma.Sql = Prisma.sql`1 = 1`,
): Promise<T[]> {
  const sqlite = databaseKind() === 'sqlite';
  const rows: T[] = [];
  const selected = Prisma.raw(`SELECT ${columns.map(quoted).join(', ')} FROM ${quoted(table)} WHERE ${quoted(column)} IN (`);
  // PostgreSQL: the list is read with the column's own type, taken from the table's row type.
  const list = Prisma.raw(sqlite ? 'SELECT value ->> 0 FROM json_each(' : `SELECT ${quoted(column)} FROM json_populate_recordset(NULL::${quoted(table)}, `);
  const cast = Prisma.raw(sqlite ? '))' : '::json))');
  for (let start = 0; start < values.length; start += maxListValues) {
    const part = values.slice(start, start + maxListValues).map((value) => [value]);
    const json = rowsJson([column], part, sqlite);
    const found = await tx.$queryRaw<Record<string, unknown>[]>`${selected}${list}${json}${cast} AND ${condition}`;
    for (const row of found) rows.push(numbers(row) as T);
  }
  return rows;
}
