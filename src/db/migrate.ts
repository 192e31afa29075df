import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.ts';
import { projectRoot } from '../paths.ts';
import { connectPostgres } from './postgres.ts';

/** Folder of the SQLite migrations, written with `prisma migrate diff … --script` (npm run db:migration). */
export const sqliteMigrationsDir = path.join(projectRoot, 'prisma', 'migrations');
/** Folder of the PostgreSQL migrations, derived from the SQLite ones (scripts/derive-postgres-schema.ts). */
export const postgresMigrationsDir = path.join(projectRoot, 'prisma', 'postgres', 'migrations');

export interface Migration {
  name: string;
  sql: string;
  /** SHA-256 of the file, as Prisma records it, so `prisma migrate status` agrees with us. */
  checksum: string;
}

/** Reads a Prisma migrations folder in name order. */
export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const sqliteHistoryTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** Raised when the database holds a migration this build does not know, or one that was edited. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/**
 * Applies pending migrations to a SQLite file, each in its own IMMEDIATE transaction together
 * with its row in Prisma's `_prisma_migrations` table, so a crash never leaves half a migration
 * and two processes starting at once apply each migration exactly once.
 * Returns the names of the migrations it applied.
 */
export function migrateSqlite(file: string, migrations: Migration[] = readMigrations(sqliteMigrationsDir)): string[] {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 10000');
    // Nothing to apply, the common case at every start: one read, no write lock to wait for
    // (other processes may be writing).
    if (upToDate(migrations, () => db.prepare(`SELECT migration_name AS name, checksum, finished_at AS finished FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`).all() as HistoryRow[])) return [];
    db.pragma('journal_mode = WAL');
    // Prisma alters a SQLite table by copying it and dropping the original, between
    // `PRAGMA foreign_keys=OFF` and `=ON`; inside our transaction those are no-ops, so with foreign
    // keys on, the DROP would cascade and delete every row referring to the table. They stay off
    // here, and each migration is checked for broken references before it commits instead.
    db.pragma('foreign_keys = OFF');
    db.exec(sqliteHistoryTable);
    const applied: string[] = [];
    for (const migration of migrations) {
      const apply = db.transaction(() => {
        const done = db
          .prepare(`SELECT checksum FROM "_prisma_migrations" WHERE migration_name = ? AND rolled_back_at IS NULL AND finished_at IS NOT NULL`)
          .get(migration.name) as { checksum: string } | undefined;
        if (done) {
          if (done.checksum !== migration.checksum) {
            throw new MigrationError(`migration ${migration.name} was changed after it was applied`);
          }
          return false;
        }
        const startedAt = new Date().toISOString();
        db.exec(migration.sql);
        const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
        if (broken.length > 0) {
          throw new MigrationError(`migration ${migration.name} leaves ${broken.length} row(s) of ${broken[0]!.table} pointing at missing ${broken[0]!.parent} rows`);
        }
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
        ).run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, startedAt);
        return true;
      });
      if (apply.immediate()) applied.push(migration.name);
    }
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = (db.prepare(`SELECT migration_name AS name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`).all() as { name: string }[])
      .map((row) => row.name)
      .filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new MigrationError(`the database has migrations this version does not know (${unknown.join(', ')}); is it from a newer Airdate?`);
    }
    return applied;
  } finally {
    db.close();
  }
}

/** A row of `_prisma_migrations` not rolled back. */
interface HistoryRow {
  name: string;
  checksum: string;
  finished: unknown;
}

/**
 * Whether the history (`read`, undefined or throwing when there is none yet) holds every one of
 * `migrations` finished with its checksum, and nothing else: then there is nothing to do. Any
 * other case (a fresh database, a pending, edited or unknown migration) goes through the full run,
 * which applies or reports it.
 */
function upToDate(migrations: Migration[], read: () => HistoryRow[] | undefined): boolean {
  let rows: HistoryRow[] | undefined;
  try {
    rows = read();
  } catch {
    return false;
  }
  if (!rows || rows.length !== migrations.length) return false;
  const applied = new Map(rows.map((row) => [row.name, row]));
  return migrations.every((migration) => {
    const row = applied.get(migration.name);
    return row !== undefined && row.finished !== null && row.checksum === migration.checksum;
  });
}

/** Prisma's own definition of its history table on PostgreSQL, so `prisma migrate status` reads ours. */
const postgresHistoryTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * The advisory lock key `prisma migrate` takes, so our runner, other `serve` processes starting at
 * the same moment and a `prisma migrate deploy` never apply migrations at the same time.
 */
export const postgresMigrationLock = 72707369;

/**
 * Applies pending migrations to the PostgreSQL database at `url`. Holds the advisory lock for the
 * whole run, so of several processes starting together one migrates and the others wait, then
 * find nothing left to do; each migration runs in its own transaction together with its
 * `_prisma_migrations` row (PostgreSQL DDL is transactional: a failure leaves nothing behind).
 * Throws DatabaseError (one line) when the server cannot be reached. Returns the names applied.
 */
export async function migratePostgres(url: string, migrations: Migration[] = readMigrations(postgresMigrationsDir)): Promise<string[]> {
  const client = await connectPostgres(url);
  try {
    // Nothing to apply, the common case at every start: one query, no lock to wait for.
    const history = await client
      .query<HistoryRow>(`SELECT migration_name AS name, checksum, finished_at AS finished FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`)
      .then((result) => result.rows, () => undefined);
    if (upToDate(migrations, () => history)) return [];
    await client.query('SELECT pg_advisory_lock($1)', [postgresMigrationLock]);
    await client.query(postgresHistoryTable);
    const applied: string[] = [];
    for (const migration of migrations) {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<{ checksum: string }>(
          `SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL AND finished_at IS NOT NULL`,
          [migration.name],
        );
        const done = rows[0];
        if (done && done.checksum !== migration.checksum) throw new MigrationError(`migration ${migration.name} was changed after it was applied`);
        if (!done) {
          const startedAt = new Date();
          try {
            await client.query(migration.sql);
          } catch (error) {
            throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
          }
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
             VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
            [randomUUID(), migration.checksum, migration.name, startedAt],
          );
          applied.push(migration.name);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
    const known = new Set(migrations.map((migration) => migration.name));
    const { rows } = await client.query<{ name: string }>(`SELECT migration_name AS name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`);
    const unknown = rows.map((row) => row.name).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new MigrationError(`the database has migrations this version does not know (${unknown.join(', ')}); is it from a newer Airdate?`);
    }
    return applied;
  } finally {
    // Ending the session releases the advisory lock too.
    await client.end().catch(() => undefined);
  }
}

/** Applies the configured database's pending migrations (`airdate migrate`, and `serve` at start); returns their names. */
export async function migrateDatabase(config: Config): Promise<string[]> {
  if (config.database.kind === 'postgres') return migratePostgres(config.database.url);
  mkdirSync(path.dirname(config.database.file), { recursive: true });
  return migrateSqlite(config.database.file);
}
