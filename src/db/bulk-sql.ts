import { databaseKind } from './client.ts';
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

/**
 * The rows as one JSON array of arrays, and which columns hold dates. JSON.stringify writes the
 * text in one go (building it value by value made ~600 bytes of garbage a row); Dates become their
 * ISO form ending in `Z`. Values are checked first: numbers must be finite and Dates valid, and a
 * lone surrogate (possible through a JSON "\ud800" escape in an uploaded file), which PostgreSQL's
 * JSON reader rejects, becomes U+FFFD as it would in a string bound by the driver.
 */
function rowsJson(rows: readonly (readonly unknown[])[], width: number): { json: string; dates: boolean[] } {
  const dates = new Array<boolean>(width).fill(false);
  let wellFormed = true;
  for (const row of rows) {
    for (let column = 0; column < width; column += 1) {
      const value = row[column];
      if (value === null || value === undefined || typeof value === 'boolean') continue;
      if (typeof value === 'string') {
        if (wellFormed && loneSurrogate.test(value)) wellFormed = false;
      } else if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new TypeError(`bulk-sql: cannot store ${value}`);
      } else if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new TypeError('bulk-sql: cannot store an invalid Date');
        dates[column] = true;
      } else {
        throw new TypeError(`bulk-sql: cannot store a value of type ${typeof value}`);
      }
    }
  }
  const safe = wellFormed ? rows : rows.map((row) => row.map((value) => (typeof value === 'string' ? value.replace(loneSurrogates, '\ufffd') : value)));
  return { json: JSON.stringify(safe), dates };
}

const quoted = (name: string) => `"${name}"`;

/**
 * SQL reading each JSON row `e` (a json value on PostgreSQL) as a record of `table`: PostgreSQL
 * then converts every value to its column's type (`timestamp(3)` input reads the UTC wall time
 * and ignores the `Z`, as Prisma's own writes store UTC).
 */
const postgresRecord = (table: string, columns: readonly string[], element: (index: number) => string) =>
  `json_populate_record(NULL::${quoted(table)}, json_build_object(${columns.map((column, index) => `'${column}', ${element(index)}`).join(', ')}))`;

/** How insertRows writes. */
export interface InsertOptions {
  /**
   * Columns with the same value in every row, bound once per statement instead of repeated in
   * each row's JSON (the account, the kind, the source of a history import).
   */
  shared?: Readonly<Record<string, unknown>>;
  /**
   * Leave out rows for which the table already has a row with the same values in these columns
   * (compared with `=`, so they must not be null): duplicates are skipped by the database instead
   * of every candidate row being read back first.
   */
  skipExisting?: readonly string[];
  /**
   * A further condition on the `existing` row for skipExisting, with constants only (e.g. the
   * account and the rows' time range), so the database searches an index range instead of
   * hashing the whole table: PostgreSQL expects 100 rows from a JSON list and hashes every row.
   */
  skipExistingWithin?: Prisma.Sql;
  /** Columns of the written rows to return. */
  returning?: readonly string[];
  /**
   * Leave out rows that would break a unique index (`ON CONFLICT DO NOTHING`): a row another
   * transaction wrote meanwhile (PostgreSQL) is skipped instead of failing the statement. Returned
   * rows are those written.
   */
  skipConflicts?: boolean;
}

/**
 * The INSERT of one statement's rows: `INSERT INTO "table" (columns) SELECT … FROM <the JSON
 * rows>`, the shared values as ordinary parameters, and a NOT EXISTS filter for skipExisting.
 */
function insertStatement(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], sqlite: boolean, options: InsertOptions): Prisma.Sql {
  const { json, dates } = rowsJson(rows, columns.length);
  const shared = Object.entries(options.shared ?? {});
  const all = [...shared.map(([column]) => column), ...columns];
  const expression = new Map<string, Prisma.Sql>();
  let from: Prisma.Sql;
  if (sqlite) {
    // SQLite stores timestamps as text in the adapter's default "iso8601" form (`…+00:00`, not `…Z`).
    for (const [column, value] of shared) expression.set(column, Prisma.sql`${value}`);
    columns.forEach((column, index) => expression.set(column, Prisma.raw(dates[index] ? `replace(value ->> ${index}, 'Z', '+00:00')` : `value ->> ${index}`)));
    from = Prisma.sql`json_each(${json})`;
  } else {
    // Shared values go into the record as text and are converted to their columns' types with the rest.
    const elements = [...shared.map(([column, value]) => Prisma.sql`${Prisma.raw(`'${column}', `)}${value}::text`), ...columns.map((column, index) => Prisma.raw(`'${column}', e -> ${index}`))];
    for (const column of all) expression.set(column, Prisma.raw(`r.${quoted(column)}`));
    from = Prisma.sql`json_array_elements(${json}::json) AS e, json_populate_record(NULL::${Prisma.raw(quoted(table))}, json_build_object(${Prisma.join(elements)})) AS r`;
  }
  let statement = Prisma.sql`INSERT INTO ${Prisma.raw(`${quoted(table)} (${all.map(quoted).join(', ')})`)} SELECT ${Prisma.join(all.map((column) => expression.get(column)!))} FROM ${from}`;
  if (options.skipExisting && options.skipExisting.length > 0) {
    const same = options.skipExisting.map((column) => Prisma.sql`${Prisma.raw(`existing.${quoted(column)}`)} = ${expression.get(column)!}`);
    if (options.skipExistingWithin) same.push(options.skipExistingWithin);
    statement = Prisma.sql`${statement} WHERE NOT EXISTS (SELECT 1 FROM ${Prisma.raw(quoted(table))} AS existing WHERE ${Prisma.join(same, ' AND ')})`;
  }
  // SQLite reads `ON` right after `FROM …` as a join's: a WHERE clause first tells it apart.
  if (options.skipConflicts) statement = Prisma.sql`${statement}${Prisma.raw(options.skipExisting && options.skipExisting.length > 0 ? '' : ' WHERE true')} ON CONFLICT DO NOTHING`;
  // `RETURNING` rows come back in no promised order, so callers return the columns that identify them.
  if (options.returning && options.returning.length > 0) statement = Prisma.sql`${statement} RETURNING ${Prisma.raw(options.returning.map(quoted).join(', '))}`;
  return statement;
}

/** Inserts `rows` (values in `columns` order) into `table`; returns the number of rows written. */
export async function insertRows(tx: Tx, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], options: InsertOptions = {}): Promise<number> {
  const sqlite = databaseKind() === 'sqlite';
  let written = 0;
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    written += await tx.$executeRaw(insertStatement(table, columns, rows.slice(start, start + rowsPerStatement), sqlite, { ...options, returning: [] }));
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
  options: Omit<InsertOptions, 'returning'> = {},
): Promise<T[]> {
  const sqlite = databaseKind() === 'sqlite';
  const written: T[] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const statement = insertStatement(table, columns, rows.slice(start, start + rowsPerStatement), sqlite, { ...options, returning });
    for (const row of await tx.$queryRaw<Record<string, unknown>[]>(statement)) written.push(numbers(row) as T);
  }
  return written;
}

/**
 * Sets `columns` of the rows of `table` whose `key` column matches, each row to its own values:
 * `rows` hold the key first, then the values in `columns` order. One UPDATE per rowsPerStatement
 * rows, the rows one JSON parameter as insertRows sends them (`UPDATE … FROM` the JSON rows), so a
 * change of thousands of rows with different values (an undo putting each item back to its own
 * time) is a few statements, within every driver's bound on parameters. Returns the rows updated.
 */
export async function updateRows(tx: Tx, table: string, key: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<number> {
  const sqlite = databaseKind() === 'sqlite';
  let updated = 0;
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const { json, dates } = rowsJson(rows.slice(start, start + rowsPerStatement), columns.length + 1);
    let statement: Prisma.Sql;
    if (sqlite) {
      const value = (index: number) => (dates[index] ? `replace(v.value ->> ${index}, 'Z', '+00:00')` : `v.value ->> ${index}`);
      const set = columns.map((column, index) => `${quoted(column)} = ${value(index + 1)}`).join(', ');
      statement = Prisma.sql`UPDATE ${Prisma.raw(`${quoted(table)} SET ${set}`)} FROM json_each(${json}) AS v WHERE ${Prisma.raw(`${quoted(table)}.${quoted(key)} = v.value ->> 0`)}`;
    } else {
      const set = columns.map((column) => `${quoted(column)} = r.${quoted(column)}`).join(', ');
      const record = postgresRecord(table, [key, ...columns], (index) => `e -> ${index}`);
      statement = Prisma.sql`UPDATE ${Prisma.raw(`${quoted(table)} AS t SET ${set}`)} FROM json_array_elements(${json}::json) AS e, ${Prisma.raw(`${record} AS r WHERE t.${quoted(key)} = r.${quoted(key)}`)}`;
    }
    updated += await tx.$executeRaw(statement);
  }
  return updated;
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
  // PostgreSQL: the values are read with the column's own type, taken from the table's row type,
  // into an array computed once (`= ANY(ARRAY(…))`), so the column's index is searched for each
  // value. With `IN (SELECT … FROM json_array_elements(…))` the planner guessed 100 values and,
  // from statistics taken before an import filled the table, hashed every row of the account
  // instead: 7–11 ms per statement and growing with the table, against ~1–2 ms.
  const selected = Prisma.raw(`SELECT ${columns.map(quoted).join(', ')} FROM ${quoted(table)} WHERE ${quoted(column)} ${sqlite ? 'IN (' : '= ANY(ARRAY('}`);
  const list = Prisma.raw(sqlite ? 'SELECT value FROM json_each(' : `SELECT (${postgresRecord(table, [column], () => 'e')}).${quoted(column)} FROM json_array_elements(`);
  const close = Prisma.raw(sqlite ? '))' : '::json) AS e))');
  for (let start = 0; start < values.length; start += maxListValues) {
    const part = values.slice(start, start + maxListValues);
    // The values as one row: without the outer brackets, its JSON text is the flat array of values.
    const json = rowsJson([part], part.length).json.slice(1, -1);
    const found = await tx.$queryRaw<Record<string, unknown>[]>`${selected}${list}${json}${close} AND ${condition}`;
    for (const row of found) rows.push(numbers(row) as T);
  }
  return rows;
}
