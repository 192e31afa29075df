import Database from 'better-sqlite3';
import { DatabaseError } from './errors.ts';
import { itemColumn, itemTable, type FastWriter, type FollowChange, type FollowKind, type WatchChange, type WatchKind, type WriteResult } from './fast-write.ts';
import type { Turns } from './sqlite-gate.ts';
import { accountVersionAssignments, type AccountWrite } from './stale-versions.ts';
import { visibleItemSql } from './catalog-visibility.ts';

/** Changes committed together at most: bounds one commit's synchronous run (~0.05 ms a change). */
const maxBatch = 256;
/** How long a commit waits for another process's write lock before failing (Prisma's busy_timeout). */
const lockWaitMs = 10_000;

/** Settings the writer depends on; `synchronous` is per connection, so Prisma's does not cover it. */
const writerPragmas = [
  ['synchronous', 'FULL', 2],
  ['foreign_keys', 'ON', 1],
  // Never block the event loop waiting for a lock: a busy commit is retried asynchronously.
  ['busy_timeout', '0', 0],
] as const;

interface Pending {
  write: () => WriteResult;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

/** SQLite text of a DateTime as Prisma's adapter writes it (ISO 8601 UTC, `+00:00`). */
const sqliteTime = (date: Date): string => date.toISOString().replace('Z', '+00:00');

/**
 * The SQLite writer: its own read-write connection with the statements prepared once, and group
 * commit. Changes handed in during one turn of the event loop are written in one transaction
 * (`BEGIN IMMEDIATE`, one savepoint each, so one change's unexpected failure leaves the others),
 * and each promise resolves after the COMMIT, which with synchronous=FULL has synced the WAL:
 * an acknowledged change survives a crash. One fsync then serves many changes.
 *
 * Transactions take turns with Prisma's in `nextTurn` (sqlite-gate.ts), so neither waits
 * synchronously for the other; another process's lock is waited for between event-loop turns.
 */
export function openSqliteWriter(file: string, nextTurn: Turns, onQuery: () => void): FastWriter {
  const connection = new Database(file, { fileMustExist: true, timeout: 0 });
  for (const [name, value, expected] of writerPragmas) {
    connection.pragma(`${name} = ${value}`);
    const actual = connection.pragma(name, { simple: true });
    if (actual !== expected) {
      connection.close();
      throw new DatabaseError(`SQLite refused PRAGMA ${name} = ${value} (it reports ${String(actual)}) on ${file}`);
    }
  }
  const write = writeStatements(connection);
  const oneChange = connection.transaction((pending: Pending) => pending.write());
  const batch = connection.transaction((changes: Pending[]) =>
    changes.map((pending) => {
      try {
        return { outcome: oneChange(pending) };
      } catch (error) {
        if (isBusy(error)) throw error;
        return { error };
      }
    }),
  );

  const queue: Pending[] = [];
  let flushing: Promise<void> | undefined;

  /** Commits the queue's first batch in a turn of its own; schedules the next batch if more wait. */
  async function flush(): Promise<void> {
    const done = await nextTurn();
    try {
      const changes = queue.splice(0, maxBatch);
      const results = await commitWithRetry(changes);
      changes.forEach((pending, index) => {
        const result = results instanceof Error ? { error: results } : results[index]!;
        if (result.outcome !== undefined) pending.resolve(result.outcome);
        else pending.reject(result.error);
      });
    } finally {
      done();
      flushing = queue.length > 0 ? nextFlush() : undefined;
    }
  }

  /** After this turn's I/O callbacks, so the changes parsed in it share the commit. */
  const nextFlush = () => new Promise<void>((resolve) => setImmediate(resolve)).then(flush);

  async function commitWithRetry(changes: Pending[]): Promise<ReturnType<typeof batch> | Error> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        onQuery();
        return batch.immediate(changes);
      } catch (error) {
        if (!isBusy(error) || Date.now() - started > lockWaitMs) return error instanceof Error ? error : new Error(String(error));
        await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 50)));
      }
    }
  }

  const enqueue = (change: () => WriteResult) =>
    new Promise<WriteResult>((resolve, reject) => {
      queue.push({ write: change, resolve, reject });
      flushing ??= nextFlush();
    });

  return {
    setWatched: (change) => enqueue(() => write.watched(change)),
    setFollow: (change) => enqueue(() => write.follow(change)),
    async close() {
      while (flushing) await flushing;
      connection.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

/** One prepared statement per kind of item (the column name differs). */
const perWatchKind = <T>(make: (kind: WatchKind) => T): Record<WatchKind, T> => ({ episode: make('episode'), movie: make('movie'), game: make('game') });
const perFollowKind = <T>(make: (kind: FollowKind) => T): Record<FollowKind, T> => ({ show: make('show'), movie: make('movie'), game: make('game') });
const perKind = <T>(make: (kind: WatchKind | FollowKind) => T): Record<WatchKind | FollowKind, T> => ({ ...perWatchKind(make), show: make('show') });

interface LibraryRow {
  id: number;
  followed: number;
  archived: number;
  followExplicit: number;
  archiveExplicit: number;
  followedAt: string | null;
}

/** The two changes as synchronous functions over statements prepared once (run inside a transaction). */
function writeStatements(connection: Database.Database) {
  // Another account's unconfirmed import row is missing to this one (catalog-visibility.ts).
  const exists = perKind((kind) => connection.prepare(`SELECT 1 FROM "${itemTable[kind]}" WHERE id = ? AND ${visibleItemSql(itemTable[kind], '?')}`).pluck());
  const flipState = perWatchKind((kind) =>
    connection.prepare(`UPDATE "WatchState" SET watched = ?, changedAt = ? WHERE accountId = ? AND ${itemColumn[kind]} = ? AND watched = ?`),
  );
  const stateExists = perWatchKind((kind) => connection.prepare(`SELECT 1 FROM "WatchState" WHERE accountId = ? AND ${itemColumn[kind]} = ?`).pluck());
  const insertState = perWatchKind((kind) =>
    connection.prepare(`INSERT INTO "WatchState" (accountId, kind, ${itemColumn[kind]}, watched, changedAt) VALUES (?, ?, ?, 1, ?)`),
  );
  const insertEvent = perWatchKind((kind) =>
    connection.prepare(`INSERT INTO "WatchEvent" (accountId, kind, ${itemColumn[kind]}, watched, at, source) VALUES (?, ?, ?, ?, ?, ?)`),
  );
  const libraryRow = perFollowKind((kind) =>
    connection.prepare<[number, number], LibraryRow>(
      `SELECT id, followed, archived, followExplicit, archiveExplicit, followedAt FROM "LibraryItem" WHERE accountId = ? AND ${itemColumn[kind]} = ?`,
    ),
  );
  const updateLibrary = connection.prepare(
    'UPDATE "LibraryItem" SET followed = ?, archived = ?, followExplicit = ?, archiveExplicit = ?, followedAt = ?, updatedAt = ? WHERE id = ?',
  );
  const insertLibrary = perFollowKind((kind) =>
    connection.prepare(
      `INSERT INTO "LibraryItem" (accountId, kind, ${itemColumn[kind]}, followed, archived, followExplicit, archiveExplicit, followedAt, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  );
  const bumpVersions = (write: AccountWrite) =>
    connection.prepare(`UPDATE "Account" SET ${accountVersionAssignments(write)}, updatedAt = ? WHERE id = ? RETURNING feedVersion`).pluck();
  const bumpFeed = bumpVersions({ watches: true });
  const bumpFeedAndCalendar = bumpVersions({ library: true });
  /**
   * The bump doubles as the account's existence check: a deleted account's change is undone.
   * Returns the result of a change: the feed version it set.
   */
  const bump = (statement: Database.Statement, accountId: number, at: string): WriteResult => {
    const feedVersion = statement.get(at, accountId);
    if (feedVersion === undefined) throw new DatabaseError(`account ${accountId} does not exist`);
    return { outcome: 'changed', feedVersion: Number(feedVersion) };
  };
  const missing: WriteResult = { outcome: 'missing', feedVersion: null };
  const unchanged: WriteResult = { outcome: 'unchanged', feedVersion: null };
  const flag = (value: boolean) => (value ? 1 : 0);

  return {
    watched(change: WatchChange): WriteResult {
      const { accountId, kind, id, watched } = change;
      if (exists[kind].get(id, accountId) === undefined) return missing;
      const at = sqliteTime(change.at);
      // The conditional update decides "did it change" in the transaction.
      if (flipState[kind].run(flag(watched), at, accountId, id, flag(!watched)).changes === 0) {
        if (stateExists[kind].get(accountId, id) !== undefined) return unchanged;
        if (!watched) return unchanged; // never watched: unwatching changes nothing
        insertState[kind].run(accountId, kind, id, at);
      }
      insertEvent[kind].run(accountId, kind, id, flag(watched), at, change.source);
      return bump(bumpFeed, accountId, at);
    },

    follow(change: FollowChange): WriteResult {
      const { accountId, kind, id } = change;
      if (exists[kind].get(id, accountId) === undefined) return missing;
      const now = sqliteTime(change.now);
      const existing = libraryRow[kind].get(accountId, id);
      const wasFollowed = existing?.followed === 1;
      const followed = change.followed ?? wasFollowed;
      const archived = change.archived ?? existing?.archived === 1;
      const followExplicit = existing?.followExplicit === 1 || change.followed !== undefined;
      const archiveExplicit = existing?.archiveExplicit === 1 || change.archived !== undefined;
      // followedAt moves only when the follow flag turns on, so comparing the flags is enough.
      const followedAt = followed && !wasFollowed ? now : (existing?.followedAt ?? null);
      const values = [flag(followed), flag(archived), flag(followExplicit), flag(archiveExplicit), followedAt] as const;
      if (existing) {
        const same = followed === wasFollowed && values[1] === existing.archived && values[2] === existing.followExplicit && values[3] === existing.archiveExplicit;
        if (same) return unchanged;
        updateLibrary.run(...values, now, existing.id);
      } else {
        insertLibrary[kind].run(accountId, kind, id, ...values, now, now);
      }
      // Following and archiving change the calendar too (watching does not).
      return bump(bumpFeedAndCalendar, accountId, now);
    },
  };
}
