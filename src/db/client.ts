import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import type { Config } from '../config.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { migrateSqlite } from './migrate.ts';

export type { PrismaClient };

/** Raised when the database cannot be opened or is not configured the way we rely on. */
export class DatabaseError extends Error {
  override name = 'DatabaseError';
}

let current: PrismaClient | undefined;
let queryCount = 0;

/** Number of SQL queries this process has sent since start; differences count a request's queries. */
export function queryCounter(): number {
  return queryCount;
}

/**
 * The process's Prisma client. Modules import this instead of receiving the client through the
 * GraphQL context; `openDatabase` sets it up once per process.
 */
export function db(): PrismaClient {
  if (!current) throw new DatabaseError('the database is not open (call openDatabase first)');
  return current;
}

/** SQLite settings we depend on: write-ahead log, waits instead of failing on a lock, durable commits, foreign keys. */
const sqlitePragmas = [
  ['journal_mode', 'WAL', 'wal'],
  ['busy_timeout', '10000', '10000'],
  ['synchronous', 'FULL', '2'],
  ['foreign_keys', 'ON', '1'],
] as const;

/**
 * Opens the configured database, applying pending migrations first when `migrate` is set,
 * sets and checks the SQLite pragmas, and makes the client available through `db()`.
 */
export async function openDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<PrismaClient> {
  if (current) return current;
  if (config.database.kind !== 'sqlite') {
    throw new DatabaseError('PostgreSQL is not supported yet; set DATABASE_URL to a file: URL or leave it unset');
  }
  mkdirSync(path.dirname(config.database.file), { recursive: true });
  if (options.migrate) migrateSqlite(config.database.file);
  const client = new PrismaClient({
    adapter: new PrismaBetterSQLite3({ url: config.database.file }),
    // Query events feed `queryCounter` (tests count queries per feed to catch N+1 regressions).
    log: [{ emit: 'event', level: 'query' }],
  });
  client.$on('query', () => {
    queryCount += 1;
  });
  for (const [name, value, expected] of sqlitePragmas) {
    await client.$queryRawUnsafe(`PRAGMA ${name} = ${value}`);
    const rows = await client.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`);
    const actual = String(Object.values(rows[0] ?? {})[0]).toLowerCase();
    if (actual !== expected) {
      await client.$disconnect();
      throw new DatabaseError(`SQLite refused PRAGMA ${name} = ${value} (it reports ${actual}) on ${config.database.file}`);
    }
  }
  current = client;
  return client;
}

/** Closes the process's database connection; `db()` fails afterwards until it is opened again. */
export async function closeDatabase(): Promise<void> {
  const client = current;
  current = undefined;
  await client?.$disconnect();
}
