import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import type pg from 'pg';
import type { Config } from '../config.ts';
import { transactionTimes } from '../limits.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { DatabaseError } from './errors.ts';
import { openPostgresReader, openSqliteReader, type FastReader } from './fast-read.ts';
import type { FastWriter } from './fast-write.ts';
import { openPostgresWriter } from './fast-write-postgres.ts';
import { openSqliteWriter } from './fast-write-sqlite.ts';
import { migratePostgres, migrateSqlite } from './migrate.ts';
import { connectPostgres, describeUrl, explainConnectError, postgresConnection } from './postgres.ts';
import { createTurns, gateSqliteAdapter } from './sqlite-gate.ts';

export type { PrismaClient };
export { DatabaseError };

let current: PrismaClient | undefined;
let currentReader: FastReader | undefined;
let currentWriter: FastWriter | undefined;
let currentKind: Config['database']['kind'] = 'sqlite';
let currentCountersPool: pg.Pool | undefined;
let currentJobsPool: pg.Pool | undefined;
let queryCount = 0;
let generation = 0;

/**
 * Counts the databases this process has opened. Caches that are updated in place rather than
 * keyed by versions alone (the feed snapshots) include it, so a database opened later (another
 * data folder in a test, with the same account ids and versions) never sees their entries.
 */
export function databaseGeneration(): number {
  return generation;
}

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

/** The process's driver-level reader for hot read paths (see fast-read.ts). */
export function fastReader(): FastReader {
  if (!currentReader) throw new DatabaseError('the database is not open (call openDatabase first)');
  return currentReader;
}

/** The process's driver-level writer for the hot library writes (see fast-write.ts). */
export function fastWriter(): FastWriter {
  if (!currentWriter) throw new DatabaseError('the database is not open (call openDatabase first)');
  return currentWriter;
}

/**
 * PostgreSQL connections for writes that need no durability (the shared rate limit's counts), on
 * PostgreSQL; undefined on SQLite. They commit asynchronously (`synchronous_commit=off`): a
 * commit does not wait for its WAL flush (~1.7 ms of a ~2 ms upsert on our test machine), and a
 * database crash can only lose the last moments' counts.
 */
export function postgresCountersPool(): pg.Pool | undefined {
  db();
  return currentCountersPool;
}

/** Connections of the counters pool at most; each count is one short statement. */
const countersPoolSize = 4;

/**
 * PostgreSQL connections for Agenda's job store (@agendajs/postgres-backend, src/jobs/
 * postgres-job-backend.ts), on PostgreSQL; undefined on SQLite. A pool of its own: each started
 * Agenda instance keeps one of its connections for LISTEN, and a burst of job bookkeeping (100
 * deliveries finishing at once) queues here rather than in front of the requests' queries.
 */
export function postgresJobsPool(): pg.Pool | undefined {
  db();
  return currentJobsPool;
}

/** Connections of the jobs pool at most: one held by the process's Agenda for LISTEN, four for job queries. */
export const jobsPoolSize = 5;

/** Which database the open client talks to, for the few queries that must differ (e.g. case-insensitive search). */
export function databaseKind(): Config['database']['kind'] {
  db();
  return currentKind;
}

/** SQLite settings we depend on: write-ahead log, waits instead of failing on a lock, durable commits, foreign keys. */
const sqlitePragmas = [
  ['journal_mode', 'WAL', 'wal'],
  ['busy_timeout', '10000', '10000'],
  ['synchronous', 'FULL', '2'],
  ['foreign_keys', 'ON', '1'],
] as const;

/**
 * Opens the configured database, applying pending migrations first when `migrate` is set, checks
 * that it is usable (SQLite pragmas; PostgreSQL reachable, DatabaseError with one line if not),
 * and makes the client available through `db()`.
 */
export async function openDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<PrismaClient> {
  if (current) return current;
  const { client, reader, writer, countersPool, jobsPool } =
    config.database.kind === 'postgres' ? await openPostgres(config.database.url, options) : await openSqlite(config.database.file, options);
  generation += 1;
  current = client;
  currentReader = reader;
  currentWriter = writer;
  currentCountersPool = countersPool;
  currentJobsPool = jobsPool;
  currentKind = config.database.kind;
  return client;
}

/** Query events feed `queryCounter` (tests count queries per feed to catch N+1 regressions). */
const logQueries: [{ emit: 'event'; level: 'query' }] = [{ emit: 'event', level: 'query' }];

function countQuery(): void {
  queryCount += 1;
}

interface OpenedDatabase {
  client: PrismaClient;
  reader: FastReader;
  writer: FastWriter;
  countersPool?: pg.Pool;
  jobsPool?: pg.Pool;
}

async function openSqlite(file: string, options: { migrate?: boolean }): Promise<OpenedDatabase> {
  mkdirSync(path.dirname(file), { recursive: true });
  if (options.migrate) migrateSqlite(file);
  // Prisma's transactions and the fast writer's take turns (sqlite-gate.ts, fast-write-sqlite.ts).
  const turns = createTurns();
  const client = new PrismaClient({
    // One connection: a query outside a transaction waits for an open one to end (sqlite-gate.ts).
    adapter: gateSqliteAdapter(new PrismaBetterSQLite3({ url: file }), turns),
    log: logQueries,
    // Transactions take turns, and an import's lasts as long as the import.
    transactionOptions: { maxWait: transactionTimes.sqliteWaitMs },
  });
  client.$on('query', countQuery);
  for (const [name, value, expected] of sqlitePragmas) {
    await client.$queryRawUnsafe(`PRAGMA ${name} = ${value}`);
    const rows = await client.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`);
    const actual = String(Object.values(rows[0] ?? {})[0]).toLowerCase();
    if (actual !== expected) {
      await client.$disconnect();
      throw new DatabaseError(`SQLite refused PRAGMA ${name} = ${value} (it reports ${actual}) on ${file}`);
    }
  }
  return { client, reader: openSqliteReader(file, countQuery), writer: openSqliteWriter(file, turns, countQuery) };
}


async function openPostgres(url: string, options: { migrate?: boolean }): Promise<OpenedDatabase> {
  // Either step connects first, so a server that is down, a wrong password or a missing database
  // is reported in one line before Prisma is involved.
  if (options.migrate) await migratePostgres(url);
  else await (await connectPostgres(url)).end();
  // Loaded only here: a SQLite server never pays for the PostgreSQL client and driver.
  const [{ PrismaClient: PostgresClient }, { PrismaPg }, { default: pg }] = await Promise.all([
    import('../generated/prisma-pg/client.ts'),
    import('@prisma/adapter-pg'),
    import('pg'),
  ]);
  // One pool for Prisma and the fast reader.
  const pool = new pg.Pool(postgresConnection(url));
  pool.on('error', () => undefined);
  const adapter = new PrismaPg(pool, {
    // A pooled connection that breaks (server restart) is replaced; the next query reports the error.
    onPoolError: () => undefined,
  });
  // The PostgreSQL client is generated from the derived schema (same models), so its API is the
  // SQLite client's; the generated types differ only in provider-specific extras (e.g. `mode`).
  // This is the one place the two meet.
  const postgresClient = new PostgresClient({ adapter, log: logQueries });
  postgresClient.$on('query', countQuery);
  const client = postgresClient as unknown as PrismaClient;
  try {
    await client.$queryRaw`SELECT 1`;
  } catch (error) {
    await client.$disconnect().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw new DatabaseError(`cannot use PostgreSQL at ${describeUrl(url)}: ${explainConnectError(error)}`);
  }
  const reader = openPostgresReader(pool, countQuery, pg.types);
  const connection = postgresConnection(url);
  const countersPool = new pg.Pool({ ...connection, options: `${connection.options} -c synchronous_commit=off`, max: countersPoolSize });
  countersPool.on('error', () => undefined);
  const jobsPool = new pg.Pool({ ...connection, max: jobsPoolSize });
  jobsPool.on('error', () => undefined);
  const close = async () => {
    await Promise.all([pool.end(), countersPool.end(), jobsPool.end()]);
  };
  return { client, reader: { rows: reader.rows, changeCounter: reader.changeCounter, close }, writer: openPostgresWriter(pool, countQuery), countersPool, jobsPool };
}

/** Closes the process's database connection; `db()` fails afterwards until it is opened again. */
export async function closeDatabase(): Promise<void> {
  // First what holds a pooled connection for itself (the job store's LISTEN): a pool ends only once
  // every connection it lent is back.
  const hooks = [...closeHooks];
  closeHooks.clear();
  await Promise.all(hooks.map((hook) => hook().catch(() => undefined)));
  const client = current;
  const reader = currentReader;
  const writer = currentWriter;
  current = undefined;
  currentReader = undefined;
  currentWriter = undefined;
  currentCountersPool = undefined;
  currentJobsPool = undefined;
  await settleUnawaitedWrites();
  await writer?.close();
  await client?.$disconnect();
  await reader?.close();
}

const closeHooks = new Set<() => Promise<void>>();

/**
 * Runs `hook` when the database closes, before its pools end: for whoever keeps a pooled
 * connection (the job store's LISTEN connection), which would otherwise hold `closeDatabase` up
 * forever. Returns the function that removes the hook (call it once the connection is given back).
 */
export function beforeDatabaseClose(hook: () => Promise<void>): () => void {
  closeHooks.add(hook);
  return () => closeHooks.delete(hook);
}

/** Writes nobody waits for (see `unawaitedWrite`). */
const unawaited = new Set<Promise<void>>();

/** Waits for the writes registered with `unawaitedWrite` that are still in flight (tests, shutdown). */
export async function settleUnawaitedWrites(): Promise<void> {
  await Promise.all(unawaited);
}

/**
 * Registers a write the caller does not wait for (bookkeeping such as a token's lastUsedAt), so
 * `closeDatabase` lets it finish first: on PostgreSQL, disconnecting in the middle of one leaves
 * its pooled connection inside a transaction, and the disconnect then never ends.
 */
export function unawaitedWrite(write: Promise<unknown>): void {
  const settled = write.then(
    () => undefined,
    () => undefined,
  );
  unawaited.add(settled);
  void settled.then(() => unawaited.delete(settled));
}
