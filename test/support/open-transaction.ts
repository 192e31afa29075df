import { onTestFinished } from 'vitest';
import { db } from '../../src/db/client.ts';

/** Lets the event loop turn `count` times (a query sent before then has reached the database). */
export async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Opens a Prisma transaction on `accountId` and keeps it open, letting the event loop turn, until
 * `end` is called; it then commits, or rolls back when `end(true)`. It renames the account's time
 * zone to Europe/Paris: at once (so it holds SQLite's write lock while open), or with
 * `writeAtEnd` only after `end` (open, it has only read: a snapshot, not yet the lock).
 */
export function openTransaction(accountId: number, options: { writeAtEnd?: boolean } = {}) {
  let finish!: (rollBack: boolean) => void;
  const ending = new Promise<boolean>((resolve) => (finish = resolve));
  let opened!: () => void;
  const isOpen = new Promise<void>((resolve) => (opened = resolve));
  const rename = { where: { id: accountId }, data: { timezone: 'Europe/Paris' } };
  const settled = db()
    .$transaction(async (tx) => {
      if (options.writeAtEnd) await tx.account.findUniqueOrThrow({ where: { id: accountId } });
      else await tx.account.update(rename);
      opened();
      if (await ending) throw new Error('rolled back on purpose');
      if (options.writeAtEnd) await tx.account.update(rename);
    }, { timeout: 20_000 })
    .then(() => 'committed', (error: Error) => error.message);
  // A failed expectation must not leave it open for the next test.
  onTestFinished(async () => {
    finish(true);
    await settled;
  });
  return { isOpen, settled, end: (rollBack = false) => finish(rollBack) };
}
