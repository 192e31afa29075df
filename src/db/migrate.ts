import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

/** Folder of the SQLite migrations, written with `prisma migrate diff … --script`. */
export const sqliteMigrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

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
    db.pragma('journal_mode = WAL');
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
