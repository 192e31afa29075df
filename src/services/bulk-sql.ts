import { Prisma } from '../generated/prisma/client.ts';

/**
 * Multi-row INSERTs through Prisma's raw API, inside the caller's transaction. An import writes
 * up to 100 000 history entries: Prisma's createMany costs ~0.2 ms a row (each value goes through
 * the query compiler), a raw multi-row statement ~0.03 ms. Values are still bound parameters, and
 * Prisma binds Dates exactly as its own writes store them (the feed loader compares the stored
 * text of SQLite timestamps), so rows written here are indistinguishable from createMany's.
 * Table and column names are identifiers from this codebase, never input; both databases accept
 * them double-quoted.
 */

type Tx = Prisma.TransactionClient;

/**
 * Bound parameters per statement: under SQLite's 32 766 and PostgreSQL's 65 535 (Prisma's 999 cap
 * applies to its model queries, not to raw ones). Few big statements: measured, 6 000 history
 * rows take ~480 ms as 40 statements and ~80 ms as 2, the cost being mostly per statement.
 */
const maxParameters = 30_000;
/** Values per `IN (…)` list of selectIn. */
const maxListValues = 10_000;

/** Inserts `rows` (values in `columns` order) into `table`; returns the number of rows written. */
export async function insertRows(tx: Tx, table: string, columns: readonly string[], rows: unknown[][]): Promise<number> {
  const perStatement = Math.max(1, Math.floor(maxParameters / columns.length));
  const target = Prisma.raw(`"${table}" (${columns.map((column) => `"${column}"`).join(', ')})`);
  let written = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const values = rows.slice(start, start + perStatement).map((row) => Prisma.sql`(${Prisma.join(row)})`);
    written += await tx.$executeRaw`INSERT INTO ${target} VALUES ${Prisma.join(values)}`;
  }
  return written;
}

/**
 * Rows of `table` whose `column` is one of `values` (in batches of 10 000), with `columns` selected
 * and an optional further condition. Prisma's raw API reads rows 5–10× faster than findMany,
 * which matters when an import compares against tens of thousands of stored rows. Integers come
 * back as numbers, booleans as booleans and timestamps as Dates on both databases.
 */
export async function selectIn<T>(
  tx: Tx,
  table: string,
  columns: readonly string[],
  column: string,
  values: readonly unknown[],
  condition: Prisma.Sql = Prisma.sql`1 = 1`,
): Promise<T[]> {
  const rows: T[] = [];
  const selected = Prisma.raw(columns.map((name) => `"${name}"`).join(', '));
  for (let start = 0; start < values.length; start += maxListValues) {
    const part = values.slice(start, start + maxListValues);
    const found = await tx.$queryRaw<Record<string, unknown>[]>`SELECT ${selected} FROM ${Prisma.raw(`"${table}"`)} WHERE ${Prisma.raw(`"${column}"`)} IN (${Prisma.join(part)}) AND ${condition}`;
    for (const row of found) {
      for (const [name, value] of Object.entries(row)) if (typeof value === 'bigint') row[name] = Number(value);
      rows.push(row as T);
    }
  }
  return rows;
}
