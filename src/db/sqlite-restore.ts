import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fsyncFile, syncFolder } from '../keys/durable-files.ts';
import { ConflictError, InputError, messageOf } from '../errors.ts';
import { migrateSqlite } from './migrate.ts';
import { checkAirdateDatabase, temporaryName } from './sqlite-backup.ts';

/** What `airdate restore` prints (one JSON line). */
export interface RestoreResult {
  /** The database file now holding the backup's data. */
  file: string;
  from: string;
  /** Where the database it replaced was kept (`<name>.before-restore-<UTC time>`); null when there was none. */
  previous: string | null;
  /** Migrations applied to the copy because the backup was older than this version. */
  migrationsApplied: string[];
  durationMs: number;
}

/** The files SQLite may keep beside a database; they belong to it and move with it. */
const sidecars = ['-wal', '-shm', '-journal'] as const;

/**
 * Puts the backup `from` in place of the SQLite database `target`. In order, so that any refusal
 * leaves everything as it was: checks the backup (checkAirdateDatabase: SQLite, integrity, an
 * Airdate database, not newer than this version); takes an exclusive lock on the current
 * database, which fails while any process has it open (each `serve` connection keeps a shared
 * lock on the file in WAL mode; the kernel drops it when a process dies, so a crashed server does
 * not block a restore); copies the backup next to the target and applies pending migrations to
 * the copy; then folds the current database's WAL into it (journal mode MEMORY: nothing of it
 * stays in a -wal that could pair with the new file), keeps it as `<name>.before-restore-<time>`
 * with any remaining sidecar files, and renames the copy into place. The lock is held from the
 * check to the rename.
 */
export function restoreSqlite(props: { from: string; target: string }): RestoreResult {
  const started = performance.now();
  const from = path.resolve(props.from);
  const { target } = props;
  if (!existsSync(from)) throw new InputError(`no file ${from}`);
  if (!statSync(from).isFile()) throw new InputError(`${from} is not a file`);
  if (existsSync(target) && realpathSync(from) === realpathSync(target)) throw new InputError(`${from} is the database itself`);
  checkAirdateDatabase(from);
  const folder = path.dirname(target);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw new InputError(`cannot write in ${folder}: ${messageOf(error)}`);
  }
  if (!existsSync(target)) {
    const orphan = sidecars.map((suffix) => `${target}${suffix}`).find((file) => existsSync(file));
    if (orphan) throw new InputError(`${orphan} is left without its database; move it away first`);
  }
  const lock = existsSync(target) ? lockDatabase(target) : undefined;
  const temporary = temporaryName(target);
  try {
    let copy: Database.Database | undefined;
    try {
      copy = new Database(from, { readonly: true, fileMustExist: true });
      copy.prepare('VACUUM INTO ?').run(temporary);
    } catch (error) {
      throw new InputError(`cannot write a copy in ${folder}: ${messageOf(error)}`);
    } finally {
      copy?.close();
    }
    const migrationsApplied = migrateSqlite(temporary);
    // migrateSqlite's connection was the copy's only one: closing it folded its WAL back in.
    for (const suffix of sidecars) rmSync(`${temporary}${suffix}`, { force: true });
    fsyncFile(temporary);
    const previous = lock ? setAside(target, lock) : null;
    renameSync(temporary, target);
    syncFolder(folder);
    return { file: target, from, previous, migrationsApplied, durationMs: Math.round(performance.now() - started) };
  } finally {
    // Releases the lock; its file has the before-restore name by now.
    lock?.connection?.close();
    for (const file of [temporary, ...sidecars.map((suffix) => `${temporary}${suffix}`)]) rmSync(file, { force: true });
  }
}

/**
 * An exclusive lock on the database file, held until the connection closes. Refused at once
 * (ConflictError) while another connection has the database open. A file that is not a database
 * at all (a damaged current file, the reason for many restores) cannot be open in a server either:
 * it is set aside without a lock (undefined connection).
 */
function lockDatabase(file: string): { connection: Database.Database | undefined } {
  let connection: Database.Database | undefined;
  try {
    connection = new Database(file, { fileMustExist: true });
    connection.pragma('busy_timeout = 0');
    connection.pragma('locking_mode = EXCLUSIVE');
    connection.exec('BEGIN EXCLUSIVE');
    connection.exec('COMMIT');
    return { connection };
  } catch (error) {
    connection?.close();
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY') throw new ConflictError(`a server (or another process) is using ${file}; stop it, then restore`);
    if (code === 'SQLITE_NOTADB') return { connection: undefined };
    throw new InputError(`cannot use ${file}: ${messageOf(error)}`);
  }
}

/**
 * Moves the current database to `<name>.before-restore-<UTC time>`: whole (its WAL folded in
 * first) when it could be locked, else together with whatever files SQLite kept beside it.
 */
function setAside(target: string, lock: { connection: Database.Database | undefined }): string {
  // MEMORY, not DELETE: the lock's connection never creates or removes a journal file by name, so
  // closing it after the rename cannot touch the restored database's files.
  if (lock.connection) {
    lock.connection.pragma('journal_mode = MEMORY');
    // The index of a WAL that no longer exists (a killed server's); nothing reads it again.
    rmSync(`${target}-shm`, { force: true });
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let previous = `${target}.before-restore-${stamp}`;
  for (let attempt = 2; existsSync(previous); attempt += 1) previous = `${target}.before-restore-${stamp}-${attempt}`;
  renameSync(target, previous);
  for (const suffix of sidecars) {
    if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${previous}${suffix}`);
  }
  return previous;
}
