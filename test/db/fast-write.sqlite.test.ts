import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { setWatched } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { openTransaction, turns } from '../support/open-transaction.ts';

/**
 * The SQLite writer (fast-write-sqlite.ts) beside the other holders of the write lock. A Prisma
 * transaction of this process that stays open while the event loop turns (an import) holds the
 * lock: a synchronous wait for it would stall the loop that transaction needs to end, so the
 * writer must wait its turn instead, and neither fail nor lose the change. Another process's lock
 * is waited for between event-loop turns, never by blocking them.
 */
initSecretKey(await useTestDatabase());
const file = (await db().$queryRawUnsafe<{ file: string }[]>('PRAGMA database_list'))[0]!.file;

describe('the SQLite writer and the write lock', () => {
  it('waits for an open Prisma transaction of this process, which then writes and commits, and writes after it', async () => {
    const [holder, writer] = [await makeAccount(), await makeAccount()];
    const [episode] = (await makeShow({ episodes: [{ number: 1, airDate: null }] })).episodes;
    // Open, it has only read; a change committed meanwhile would make its own write fail (SQLITE_BUSY_SNAPSHOT).
    const transaction = openTransaction(holder.id, { writeAtEnd: true });
    await transaction.isOpen;
    let outcome: unknown;
    const write = setWatched({ accountId: writer.id, kind: 'episode', id: episode!.id, watched: true }).then(
      (result) => (outcome = result),
      (error: unknown) => (outcome = error),
    );
    await turns(20);
    expect(outcome).toBeUndefined();
    transaction.end();
    expect(await transaction.settled).toBe('committed');
    await write;
    expect(outcome).toEqual({ changed: true });
    expect(await db().watchEvent.count({ where: { accountId: writer.id } })).toBe(1);
    expect((await db().account.findUniqueOrThrow({ where: { id: holder.id } })).timezone).toBe('Europe/Paris');
  });

  it("waits for another connection's lock without blocking the event loop, then writes", async () => {
    const account = await makeAccount();
    const [episode] = (await makeShow({ episodes: [{ number: 1, airDate: null }] })).episodes;
    const other = new Database(file, { timeout: 0 });
    onTestFinished(() => void (other.inTransaction ? other.exec('ROLLBACK') : undefined, other.close()));
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);
    onTestFinished(() => clearInterval(ticker));
    const started = performance.now();
    const write = setWatched({ accountId: account.id, kind: 'episode', id: episode!.id, watched: true });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // While the lock was held the timers kept firing: the writer waited between turns.
    expect(ticks).toBeGreaterThanOrEqual(10);
    other.exec('COMMIT');
    expect(await write).toEqual({ changed: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(1);
  });
});
