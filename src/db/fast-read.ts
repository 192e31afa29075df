import Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * Read-only queries on the per-request hot paths (token check, feed loading), straight through
 * the driver. Prisma costs ~0.3 ms a query and ~0.5 µs a value on top of the driver, which made
 * a cold summary of 25 000 episodes spend ~90 ms in Prisma alone. The hot writes have their own
 * path (fast-write.ts); every other write goes through Prisma.
 */
export interface FastReader {
  /** Runs `sql` (`?` placeholders, portable SQL) and returns the rows as arrays in column order. */
  rows(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  /**
   * A number that changes whenever any connection of any process commits to the database
   * (SQLite's `PRAGMA data_version` on this reader, ~3 µs); undefined where no such cheap check
   * exists (PostgreSQL). A value read from the database while it was `n` is still current as long
   * as this says `n`: what hot paths may keep in memory between requests (the token check).
   */
  changeCounter(): number | undefined;
  close(): Promise<void>;
}

/**
 * A second, read-only connection to the SQLite file. In WAL mode readers never block the writer
 * and every statement sees the latest committed data.
 */
export function openSqliteReader(file: string, onQuery: () => void): FastReader {
  const connection = new Database(file, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 10000');
  const statements = new Map<string, Database.Statement>();
  const dataVersion = connection.prepare('PRAGMA data_version').pluck(true);
  return {
    changeCounter: () => Number(dataVersion.get()),
    async rows(sql, params = []) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = connection.prepare(sql).raw(true);
        statements.set(sql, statement);
      }
      onQuery();
      return statement.all(...params) as unknown[][];
    },
    async close() {
      connection.close();
    },
  };
}

/** PostgreSQL's `timestamp` (without time zone): Prisma writes UTC there. */
const timestampOid = 1114;

/**
 * Type parsers for the reader: like pg's, except that zone-less timestamps are read as UTC (pg
 * would read them in the host's zone, shifting every time on a server not running in UTC).
 */
function readerTypes(types: typeof pg.types): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === timestampOid && format !== 'binary'
        ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
        : types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/**
 * Queries on the pool Prisma's adapter uses too, so no extra connections are opened. `types` is
 * the pg module's `types` (passed in so this module loads pg only when PostgreSQL is used).
 */
export function openPostgresReader(pool: pg.Pool, onQuery: () => void, types: typeof pg.types): FastReader {
  const texts = new Map<string, string>();
  const parsers = readerTypes(types);
  return {
    changeCounter: () => undefined,
    async rows(sql, params = []) {
      let text = texts.get(sql);
      if (text === undefined) {
        let index = 0;
        // Our statements hold no `?` inside string literals, so each one is a placeholder.
        text = sql.replace(/\?/g, () => `$${++index}`);
        texts.set(sql, text);
      }
      onQuery();
      const result = await pool.query({ text, values: params as unknown[], rowMode: 'array', types: parsers });
      return result.rows as unknown[][];
    },
    async close() {},
  };
}

/** A boolean column as either driver returns it (SQLite 0/1, PostgreSQL true/false). */
export const asBoolean = (value: unknown): boolean => value === true || value === 1 || value === 1n;

/**
 * A DateTime column as either driver returns it, in epoch milliseconds: a Date, epoch milliseconds
 * (number, bigint or digits), or text (`CAST(… AS TEXT)` or SQLite's stored value). Prisma writes
 * UTC: SQLite holds ISO text with an offset (or `YYYY-MM-DD HH:MM:SS` from a SQL default),
 * PostgreSQL's zone-less timestamp casts to `YYYY-MM-DD HH:MM:SS.mmm`, so text without a zone is
 * UTC, never the server's local time. Unreadable text is an error, not NaN.
 */
export function asEpochMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  const text = String(value);
  if (/^\d+$/.test(text)) return Number(text);
  const zoned = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw new Error(`unreadable timestamp in the database: ${text}`);
  return ms;
}

/**
 * A DateTime column (as asEpochMs reads it) as ISO 8601 UTC with milliseconds. UTC text is
 * rewritten without a Date (an export reads one per history entry); anything else goes through
 * asEpochMs.
 */
export function asIsoTimestamp(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:Z|[+-]00(?::?00)?)?$/.exec(text);
  if (match) return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  return new Date(asEpochMs(value)).toISOString();
}
