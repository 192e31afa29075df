import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncFile, syncFolder } from '../keys/durable-files.ts';
import { ConflictError, InputError, messageOf } from '../errors.ts';
import { readMigrations, sqliteMigrationsDir } from './migrate.ts';

/** What `airdate backup` prints (one JSON line). */
export interface BackupResult {
  /** Absolute path of the finished copy. */
  file: string;
  bytes: number;
  durationMs: number;
  /** The newest migration the copy holds: the schema a restore brings back. */
  migration: string | null;
}

/**
 * Writes a consistent copy of the SQLite database `source` to `target` while servers may be
 * writing to it. `VACUUM INTO` rather than the online backup API: it reads one snapshot in a single
 * read transaction (WAL lets the writers go on meanwhile), so a stream of writes cannot make it
 * start over as the backup API does after each write by another connection, and the copy is one
 * compact file with no -wal beside it. The copy is written under a temporary name next to the
 * target, fsynced, checked (`integrity_check`, Airdate's migration table) and only then given its
 * name, so a file with the final name is always complete. An existing target is refused unless
 * `force`.
 */
export function backupSqlite(props: { source: string; target: string; force: boolean }): BackupResult {
  const started = performance.now();
  const target = path.resolve(props.target);
  if (!existsSync(props.source)) throw new InputError(`no SQLite database at ${props.source} (nothing to back up)`);
  checkTarget(target, props.source, props.force);
  const temporary = temporaryName(target);
  try {
    let source: Database.Database | undefined;
    try {
      source = new Database(props.source, { fileMustExist: true });
      source.pragma('busy_timeout = 10000');
      source.prepare('VACUUM INTO ?').run(temporary);
    } catch (error) {
      throw new InputError(`cannot copy ${props.source} to ${path.dirname(target)}: ${messageOf(error)}`);
    } finally {
      source?.close();
    }
    fsyncFile(temporary);
    let migration: string | null;
    try {
      migration = checkAirdateDatabase(temporary).at(-1) ?? null;
    } catch (error) {
      // Named after the database, not the temporary file the operator never asked for.
      throw new InputError(`the copy of ${props.source} failed its check: ${messageOf(error).replace(`${temporary} `, '')}`);
    }
    placeFile(temporary, target, props.force);
    return { file: target, bytes: statSync(target).size, durationMs: Math.round(performance.now() - started), migration };
  } finally {
    rmSync(temporary, { force: true });
  }
}

function checkTarget(target: string, source: string, force: boolean): void {
  const folder = path.dirname(target);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new InputError(`no folder ${folder} to write the backup in`);
  if (!existsSync(target)) return;
  if (statSync(target).isDirectory()) throw new InputError(`${target} is a folder; name the backup file`);
  // Replacing the live database (or its -wal) with a copy of itself would destroy it under the server.
  if (sameFile(target, source) || sameFile(target, `${source}-wal`) || sameFile(target, `${source}-shm`)) {
    throw new InputError(`${target} is the database itself; write the backup elsewhere`);
  }
  if (!force) throw new ConflictError(`${target} exists; choose another name or pass --force to replace it`);
}

function sameFile(a: string, b: string): boolean {
  return existsSync(a) && existsSync(b) && realpathSync(a) === realpathSync(b);
}

/** A name next to `file` that no other run uses, so a crashed run's leftover is never taken for a backup. */
export function temporaryName(file: string): string {
  return `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/**
 * Gives the finished `temporary` file the name `target` in one step. Without `replace`, a hard
 * link refuses an existing target atomically (another run could create it after the check).
 */
function placeFile(temporary: string, target: string, replace: boolean): void {
  if (replace) {
    renameSync(temporary, target);
  } else {
    try {
      linkSync(temporary, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictError(`${target} exists; choose another name or pass --force to replace it`);
      throw error;
    }
  }
  syncFolder(path.dirname(target));
}

/**
 * Checks that `file` is a whole Airdate SQLite database this version can use, opening it read-only:
 * a SQLite file, `integrity_check` ok, Airdate's tables and migration history, no migration this
 * version does not know (a newer Airdate's) or that differs from ours. Returns the names of the
 * migrations it holds, oldest first. Throws InputError with one line otherwise.
 */
export function checkAirdateDatabase(file: string): string[] {
  let database: Database.Database;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new InputError(`cannot open ${file}: ${messageOf(error)}`);
  }
  try {
    let verdict: string[];
    try {
      verdict = (database.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    } catch (error) {
      throw new InputError(`${file} is not a usable SQLite database: ${messageOf(error)}`);
    }
    // Its first finding on one line: SQLite writes some over several ("*** in database main ***\nPage 5: …").
    if (verdict.length !== 1 || verdict[0] !== 'ok') throw new InputError(`${file} is damaged (integrity_check: ${verdict[0]!.replace(/\s+/g, ' ').trim().slice(0, 300)})`);
    const tables = new Set((database.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((row) => row.name));
    if (!tables.has('_prisma_migrations') || !tables.has('Account')) throw new InputError(`${file} is a SQLite database but not an Airdate one (no Account or _prisma_migrations table)`);
    const recorded = database
      .prepare(`SELECT migration_name AS name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL ORDER BY migration_name`)
      .all() as { name: string; checksum: string }[];
    const known = new Map(readMigrations(sqliteMigrationsDir).map((migration) => [migration.name, migration.checksum]));
    const unknown = recorded.filter((row) => !known.has(row.name)).map((row) => row.name);
    if (unknown.length > 0) {
      throw new InputError(`${file} comes from a newer Airdate (migrations this version does not know: ${unknown.join(', ')}); restore it with that version or a later one`);
    }
    const changed = recorded.find((row) => known.get(row.name) !== row.checksum);
    if (changed) throw new InputError(`${file} records migration ${changed.name} with a different content than this version's`);
    if (recorded.length === 0) throw new InputError(`${file} is a SQLite database but not an Airdate one (no migration applied)`);
    return recorded.map((row) => row.name);
  } finally {
    database.close();
  }
}
