import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { runCommand } from '../../src/cli/run-command.ts';
import { loadConfig } from '../../src/config.ts';
import { migrateSqlite, readMigrations, sqliteMigrationsDir } from '../../src/db/migrate.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { runCli, startServer, type RunOptions, type ServerProcess } from '../support/processes.ts';

/**
 * `airdate backup` and `restore` as an operator runs them: separate processes next to a real
 * `serve` process that keeps writing. SQLite only (PostgreSQL has pg_dump; the commands say so).
 */
const config = await useTestDatabase();
initSecretKey(config);
const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-backup-'));
// The processes run the one-file build `npm start` runs (built here, as test/e2e/serve.test.ts
// does): plain node starts them in a fraction of tsx's time, which keeps this file's wall time low.
const root = fileURLToPath(new URL('../..', import.meta.url));
const buildDir = mkdtempSync(path.join(root, '.vitest-build-'));
const built: RunOptions = { built: path.join(buildDir, 'main.js') };
execFileSync(process.execPath, ['scripts/build.mjs', built.built!], { cwd: root, stdio: 'inherit' });
const servers: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => (server.child.exitCode === null ? server.stop() : null)));
  rmSync(scratch, { recursive: true, force: true });
  rmSync(buildDir, { recursive: true, force: true });
});

/** `airdate serve` on a data folder, stopped after the file's tests if a test leaves it running. */
async function serve(dataDir: string): Promise<ServerProcess> {
  const server = await startServer(env(dataDir), built);
  servers.push(server);
  return server;
}

/** `airdate <args>` as its own process on a data folder. */
const cli = (args: string[], dataDir: string) => runCli(args, env(dataDir), built);

const aired = '2020-01-01';
const episodesCount = 10_000;
const env = (dataDir: string) => ({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });

async function post(baseUrl: string, route: string, token: string, body: unknown): Promise<void> {
  const response = await fetch(`${baseUrl}/api/machine/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect([response.status, await response.json()]).toEqual([200, { ok: true }]);
}

async function summary(baseUrl: string, token: string) {
  const response = await fetch(`${baseUrl}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { counts: { upNext: number; unwatchedEpisodes: number }; upNext: { show: string; episode: string }[] };
}

/** Every file of a data folder with a hash of its bytes: equal before and after means nothing changed. */
function folderState(folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(folder).map((name) => [name, createHash('sha256').update(readFileSync(path.join(folder, name))).digest('hex')]));
}

/** A data folder holding a restored copy of `backup`, with no server on it. */
async function restoredFolder(backup: string): Promise<string> {
  const folder = mkdtempSync(path.join(scratch, 'data-'));
  const restored = await runHere(['restore', backup], folder);
  expect(restored.code, String(restored.stderr)).toBe(0);
  return folder;
}

/** A backup holding an account with a token: the first test's, or one made here when it did not run. */
let shared: { backupFile: string; token: string } | undefined;
async function someBackup(): Promise<{ backupFile: string; token: string }> {
  if (!shared) {
    const account = await makeAccount();
    const backupFile = path.join(scratch, 'some-backup.db');
    const made = await runHere(['backup', backupFile], config.dataDir);
    expect(made.code, made.stderr.join()).toBe(0);
    shared = { backupFile, token: account.token };
  }
  return shared;
}

describe('airdate backup while the server writes', () => {
  it('copies every write acknowledged before it started, whole, and a server restored from it answers with that data', { timeout: 60_000 }, async () => {
    const account = await makeAccount();
    const { token } = account;
    // More episodes than a fast machine watches before the backup ends, made in one statement.
    const watchedShow = await makeShow({ title: 'Watched in order' });
    await db().$executeRawUnsafe(
      `INSERT INTO "Episode" (showId, season, number, title, airDate, createdAt, updatedAt)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       SELECT s.id, 1, n.i, 'Episode ' || n.i, ?, s.createdAt, s.updatedAt FROM n, "Show" s WHERE s.id = ?`,
      episodesCount,
      aired,
      watchedShow.id,
    );
    const episodes = await db().episode.findMany({ where: { showId: watchedShow.id }, orderBy: { number: 'asc' }, select: { id: true, number: true } });
    const followedShows = await Promise.all(Array.from({ length: 30 }, (_, index) => makeShow({ title: `Followed ${index}`, episodes: [{ number: 1, airDate: aired }] })));
    const server = await serve(config.dataDir);
    // A long read, as an export holds, stops checkpoints from moving the writes below into the
    // database file: they stay in the WAL, where a copy of the file alone would miss them.
    const longRead = new Database(path.join(config.dataDir, 'airdate.db'), { readonly: true });
    longRead.exec('BEGIN');
    longRead.prepare('SELECT count(*) FROM WatchState').get();
    await post(server.baseUrl, 'follow', token, { kind: 'show', id: watchedShow.id, followed: true });

    // Two streams of writes: episodes watched in order (so the backup's up-next episode tells how
    // far it got) and shows followed one after another.
    const watched: number[] = [];
    const followed: number[] = [];
    let stop = false;
    const watching = (async () => {
      for (const episode of episodes) {
        if (stop) return;
        await post(server.baseUrl, 'watched', token, { kind: 'episode', id: episode.id, watched: true });
        watched.push(episode.number);
      }
    })();
    const following = (async () => {
      for (const show of followedShows) {
        if (stop) return;
        await post(server.baseUrl, 'follow', token, { kind: 'show', id: show.id, followed: true });
        followed.push(show.id);
      }
    })();
    while (watched.length < 30 || followed.length < 10) await new Promise((resolve) => setTimeout(resolve, 5));

    const backupFile = path.join(scratch, 'airdate-backup.db');
    const acknowledgedBefore = { watched: watched.length, followed: [...followed] };
    const backup = await cli(['backup', backupFile], config.dataDir);
    const acknowledgedDuring = watched.length - acknowledgedBefore.watched;
    stop = true;
    await Promise.all([watching, following]);
    longRead.exec('COMMIT');
    longRead.close();
    expect(backup.code, backup.stderr).toBe(0);
    // The writes went on while the backup ran (else this says nothing about an online copy).
    expect(acknowledgedDuring).toBeGreaterThan(0);
    expect(watched.length).toBeLessThan(episodesCount);
    const printed = JSON.parse(backup.stdout);
    shared = { backupFile, token };
    expect(printed).toEqual({ file: backupFile, bytes: expect.any(Number), durationMs: expect.any(Number), migration: expect.stringMatching(/^\d{14}_/) });
    expect(readdirSync(scratch).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const copy = new Database(backupFile, { readonly: true });
    let watchedInCopy: number;
    let followsInCopy: number;
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(printed.bytes).toBe(readFileSync(backupFile).length);
      const states = copy.prepare(`SELECT e.number AS number FROM WatchState s JOIN Episode e ON e.id = s.episodeId WHERE s.accountId = ? AND s.watched = 1`).all(account.id) as { number: number }[];
      const numbers = states.map((state) => state.number).sort((a, b) => a - b);
      watchedInCopy = numbers.length;
      // Every acknowledged write before the start, and a snapshot: episodes 1..k, none missing.
      expect(watchedInCopy).toBeGreaterThanOrEqual(acknowledgedBefore.watched);
      expect(numbers).toEqual(Array.from({ length: watchedInCopy }, (_, index) => index + 1));
      const follows = new Set((copy.prepare(`SELECT showId FROM LibraryItem WHERE accountId = ? AND followed = 1`).all(account.id) as { showId: number }[]).map((row) => row.showId));
      expect(acknowledgedBefore.followed.filter((id) => !follows.has(id))).toEqual([]);
      // Each write whole: one history entry per state.
      expect(copy.prepare('SELECT count(*) AS n FROM WatchEvent WHERE accountId = ?').get(account.id)).toEqual({ n: watchedInCopy });
      followsInCopy = follows.size;
    } finally {
      copy.close();
    }
    expect(await server.stop()).toBe(0);

    // A new data folder restored from the backup: a server there answers from the backup's data.
    const folder = await restoredFolder(backupFile);
    const restored = await serve(folder);
    const answer = await summary(restored.baseUrl, token);
    expect(answer.counts.upNext).toBe(followsInCopy);
    expect(answer.upNext.find((item) => item.show === 'Watched in order')?.episode).toBe(`S01E${String(watchedInCopy + 1).padStart(2, '0')}`);
    expect(answer.counts.unwatchedEpisodes).toBe(episodesCount - watchedInCopy + (followsInCopy - 1));
    await restored.stop();
  });

  it('refuses to replace an existing file without --force, a missing folder, the database itself and a non-Airdate database, leaving no file', { timeout: 30_000 }, async () => {
    const { backupFile } = await someBackup();
    const before = readFileSync(backupFile);
    const again = await cli(['backup', backupFile], config.dataDir);
    expect([again.code, again.stdout]).toEqual([2, '']);
    expect(again.stderr).toMatch(/^airdate: .*exists; choose another name or pass --force to replace it\n$/);
    expect(readFileSync(backupFile).equals(before)).toBe(true);
    const nowhere = await runHere(['backup', path.join(scratch, 'missing', 'b.db')], config.dataDir);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toEqual([expect.stringMatching(/^airdate: no folder .*missing to write the backup in$/)]);
    const itself = await runHere(['backup', path.join(config.dataDir, 'airdate.db'), '--force'], config.dataDir);
    expect([itself.code, itself.stderr]).toEqual([2, [expect.stringMatching(/is the database itself/)]]);
    // A data folder whose database is not Airdate's: refused, and no file is left behind.
    const foreignFolder = mkdtempSync(path.join(scratch, 'foreign-'));
    new Database(path.join(foreignFolder, 'airdate.db')).exec('CREATE TABLE notes (body TEXT)').close();
    const foreign = await runHere(['backup', path.join(foreignFolder, 'copy.db')], foreignFolder);
    expect([foreign.code, foreign.stderr]).toEqual([2, [expect.stringMatching(/^airdate: the copy of .*airdate\.db failed its check: is a SQLite database but not an Airdate one/)]]);
    expect(readdirSync(foreignFolder)).toEqual(['airdate.db']);
    const forced = await runHere(['backup', backupFile, '--force'], config.dataDir);
    expect(forced.code, forced.stderr.join()).toBe(0);
    expect(JSON.parse(forced.stdout[0]!).file).toBe(backupFile);
  });
});

describe('airdate restore', () => {
  it('refuses while a server uses the data folder, changing nothing, and goes ahead once it is gone (even killed)', { timeout: 60_000 }, async () => {
    const { backupFile, token } = await someBackup();
    const folder = await restoredFolder(backupFile);
    const server = await serve(folder);
    await summary(server.baseUrl, token);
    // Token bookkeeping is written after the answer; let it land before taking the picture.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The database and its WAL, byte for byte; not the -shm, an index of the WAL that the running
    // server's own reads update.
    const data = () => Object.fromEntries(Object.entries(folderState(folder)).filter(([name]) => !name.endsWith('-shm')));
    const before = data();
    const refused = await cli(['restore', backupFile], folder);
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toMatch(/^airdate: a server \(or another process\) is using .*airdate\.db; stop it, then restore\n$/);
    expect(data()).toEqual(before);
    expect(Object.keys(data())).toEqual(['airdate.db', 'airdate.db-wal', 'secret.key']);
    // Still serving its own database.
    await summary(server.baseUrl, token);

    // A killed server leaves its WAL behind; the kernel dropped its lock, so the restore goes on,
    // and the database it sets aside holds what that WAL had.
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('close', resolve));
    const restored = await runHere(['restore', backupFile], folder);
    expect(restored.code, restored.stderr.join()).toBe(0);
    const printed = JSON.parse(restored.stdout[0]!);
    expect(printed).toEqual({ file: path.join(folder, 'airdate.db'), from: backupFile, previous: expect.stringMatching(/airdate\.db\.before-restore-\d{8}T\d{6}Z$/), migrationsApplied: [], durationMs: expect.any(Number) });
    expect(readdirSync(folder).filter((name) => name.startsWith('airdate.db')).sort()).toEqual(['airdate.db', path.basename(printed.previous)]);
    const previous = new Database(printed.previous, { readonly: true });
    try {
      expect(previous.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(previous.prepare('SELECT count(*) AS n FROM ApiToken WHERE lastUsedAt IS NOT NULL').get()).toEqual({ n: 1 });
    } finally {
      previous.close();
    }
  });

  it('refuses a missing, non-SQLite, damaged, non-Airdate, edited or newer backup and an unusable data folder with one line, exit 2, nothing changed', async () => {
    const { backupFile } = await someBackup();
    const folder = await restoredFolder(backupFile);
    const before = folderState(folder);
    const file = (name: string, bytes: Buffer | string) => {
      const target = path.join(scratch, name);
      writeFileSync(target, bytes);
      return target;
    };
    const damaged = Buffer.from(readFileSync(backupFile));
    damaged.fill(0xa5, 4096 * 3, 4096 * 6);
    const foreign = path.join(scratch, 'notes.db');
    new Database(foreign).exec('CREATE TABLE notes (body TEXT)').close();
    const newer = file('newer.db', readFileSync(backupFile));
    new Database(newer).exec(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('x', 'y', '2999-01-01', '29991231000000_future', '2999-01-01', 1)`).close();
    // A migration this version knows, recorded with other content (an edited migration, a fork's).
    const edited = file('edited.db', readFileSync(backupFile));
    const editedDatabase = new Database(edited);
    const { name: firstMigration } = editedDatabase.prepare(`SELECT migration_name AS name FROM "_prisma_migrations" ORDER BY migration_name LIMIT 1`).get() as { name: string };
    editedDatabase.prepare(`UPDATE "_prisma_migrations" SET checksum = 'x' WHERE migration_name = ?`).run(firstMigration);
    editedDatabase.close();
    const cases: [string, RegExp][] = [
      [path.join(scratch, 'missing.db'), /^airdate: no file .*missing\.db$/],
      [edited, new RegExp(`records migration ${firstMigration} with a different content than this version's$`)],
      [scratch, /is not a file$/],
      [file('text.db', 'not a database\n'.repeat(500)), /not a usable SQLite database: file is not a database$/],
      [file('damaged.db', damaged), /is (damaged \(integrity_check: .+\)|not a usable SQLite database: .+)$/],
      [foreign, /is a SQLite database but not an Airdate one/],
      [newer, /comes from a newer Airdate \(migrations this version does not know: 29991231000000_future\); restore it with that version or a later one$/],
    ];
    for (const [backup, message] of cases) {
      const result = await runHere(['restore', backup], folder);
      expect({ backup, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ backup, code: 2, stdout: [], stderr: [expect.stringMatching(message)] });
      expect(folderState(folder)).toEqual(before);
    }
    const notAFolder = file('plain-file', 'x');
    const unusable = await runHere(['restore', backupFile], path.join(notAFolder, 'data'));
    expect([unusable.code, unusable.stderr]).toEqual([2, [expect.stringMatching(/^airdate: cannot write in .*plain-file\/data: ENOTDIR/)]]);
  });

  it('applies the migrations an older backup lacks, restores into a folder with no database yet, and sets a garbage database aside', async () => {
    const older = path.join(scratch, 'older.db');
    const migrations = readMigrations(sqliteMigrationsDir);
    migrateSqlite(older, migrations.slice(0, -1));
    const folder = mkdtempSync(path.join(scratch, 'empty-'));
    const result = await runHere(['restore', older], folder);
    expect(result.code, result.stderr.join()).toBe(0);
    expect(JSON.parse(result.stdout[0]!)).toMatchObject({ previous: null, migrationsApplied: [migrations.at(-1)!.name] });
    expect(readdirSync(folder)).toEqual(['airdate.db']);

    // A current file that is not a database at all (the reason for many restores) is set aside as it is.
    writeFileSync(path.join(folder, 'airdate.db'), 'garbage');
    const overGarbage = await runHere(['restore', older], folder);
    expect(overGarbage.code, overGarbage.stderr.join()).toBe(0);
    expect(readFileSync(JSON.parse(overGarbage.stdout[0]!).previous, 'utf8')).toBe('garbage');
    const restored = new Database(path.join(folder, 'airdate.db'), { readonly: true });
    try {
      expect(restored.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(restored.prepare('SELECT count(*) AS n FROM "_prisma_migrations"').get()).toEqual({ n: migrations.length });
    } finally {
      restored.close();
    }
  });

  it('points to pg_dump and pg_restore on PostgreSQL, exit 2', async () => {
    const { backupFile } = await someBackup();
    const postgres = { DATABASE_URL: 'postgres://airdate@127.0.0.1:1/airdate' };
    const backup = await runHere(['backup', path.join(scratch, 'pg.dump')], scratch, postgres);
    expect([backup.code, backup.stderr]).toEqual([2, ['airdate: backup copies SQLite databases; on PostgreSQL run: pg_dump --format=custom --no-owner --file=<file> "$DATABASE_URL"']]);
    const restore = await runHere(['restore', backupFile], scratch, postgres);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toEqual([expect.stringContaining('pg_restore --no-owner --dbname="$DATABASE_URL" <file>, then airdate migrate')]);
    expect(existsSync(path.join(scratch, 'pg.dump'))).toBe(false);
  });
});

/** Runs a command in this process (faster than a child process) on a data folder; collects its output. */
async function runHere(argv: string[], dataDir: string, extra: Record<string, string> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io = { stdout: (line: string) => stdout.push(line), stderr: (line: string) => stderr.push(line), config: loadConfig({ ...env(dataDir), ...extra }) };
  return { code: await runCommand(argv, io), stdout, stderr };
}
