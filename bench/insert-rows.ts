import Database from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../src/config.ts';
import { postgresConnection } from '../src/db/postgres.ts';

/**
 * Bulk rows for benchmark and test libraries, straight through the driver in one transaction.
 * Prisma's createMany costs ~100 µs a row here (60 000 episodes: 10 s), which made seeding a
 * 100 000-entry history take most of a minute; these take about a second. Dates are written as
 * Prisma writes them (SQLite: ISO text with +00:00; PostgreSQL: UTC in a zone-less timestamp),
 * so the application reads the rows exactly as if Prisma had stored them.
 */

type Value = string | number | boolean | Date | null;

const rowsPerStatement = 1_000;

function sqliteValue(value: Value): string | number | null {
  if (value instanceof Date) return value.toISOString().replace('Z', '+00:00');
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** Inserts `rows` (values in `columns` order) into `table`; nothing is returned. */
export async function insertRows(database: Config['database'], table: string, columns: string[], rows: Value[][]): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.map((column) => `"${column}"`).join(', ');
  if (database.kind === 'sqlite') {
    const connection = new Database(database.file);
    try {
      connection.pragma('busy_timeout = 10000');
      const statement = connection.prepare(`INSERT INTO "${table}" (${names}) VALUES (${columns.map(() => '?').join(', ')})`);
      connection.transaction(() => {
        for (const row of rows) statement.run(...row.map(sqliteValue));
      })();
    } finally {
      connection.close();
    }
    return;
  }
  const client = new pg.Client(postgresConnection(database.url));
  await client.connect();
  try {
    await client.query('BEGIN');
    for (let start = 0; start < rows.length; start += rowsPerStatement) {
      const part = rows.slice(start, start + rowsPerStatement);
      const tuples = part.map((_, index) => `(${columns.map((__, column) => `$${index * columns.length + column + 1}`).join(', ')})`);
      // Untyped parameters take the column's type; an ISO text's Z is ignored by a zone-less timestamp.
      const values = part.flat().map((value) => (value instanceof Date ? value.toISOString() : value));
      await client.query(`INSERT INTO "${table}" (${names}) VALUES ${tuples.join(', ')}`, values);
    }
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
