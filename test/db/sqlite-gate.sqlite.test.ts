import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { openTransaction, turns } from '../support/open-transaction.ts';
import { createAccount } from '../../src/accounts/accounts.ts';

await useTestDatabase();

const makeAccount = () => createAccount({ name: `gate-${randomUUID().slice(0, 8)}`, timezone: 'UTC' });
/** `query` sent now: a Prisma query is lazy, it runs once something waits for it. */
const sent = <T>(query: PromiseLike<T>): Promise<T> => Promise.resolve(query);

describe('the SQLite connection while a transaction is open and the event loop turns', () => {
  it('a write outside the transaction waits for it, and is kept when it rolls back', async () => {
    const [inside, outside] = [await makeAccount(), await makeAccount()];
    const transaction = openTransaction(inside.id);
    await transaction.isOpen;
    let written = false;
    const write = db().account.update({ where: { id: outside.id }, data: { timezone: 'Asia/Tokyo' } }).then(() => (written = true));
    await turns(5);
    expect(written).toBe(false);
    transaction.end(true);
    expect(await transaction.settled).toBe('rolled back on purpose');
    await write;
    const timezones = await db().account.findMany({ where: { id: { in: [inside.id, outside.id] } }, orderBy: { id: 'asc' }, select: { timezone: true } });
    // Without the gate the write ran inside the transaction and was undone with it (UTC).
    expect(timezones.map((row) => row.timezone)).toEqual(['UTC', 'Asia/Tokyo']);
  });

  it('a read outside the transaction never sees its uncommitted rows: it answers after the rollback', async () => {
    const account = await makeAccount();
    const transaction = openTransaction(account.id);
    await transaction.isOpen;
    const read = sent(db().account.findFirstOrThrow({ where: { id: account.id }, select: { timezone: true } }));
    await turns(5);
    transaction.end(true);
    expect(await transaction.settled).toBe('rolled back on purpose');
    expect(await read).toEqual({ timezone: 'UTC' });
  });

  it('turns go in arrival order: a query sent after a waiting transaction reads what it wrote', async () => {
    const account = await makeAccount();
    const transaction = openTransaction(account.id);
    await transaction.isOpen;
    const second = sent(db().$transaction((tx) => tx.account.update({ where: { id: account.id }, data: { timezone: 'Asia/Tokyo' } })));
    await turns(5);
    const third = sent(db().account.findFirstOrThrow({ where: { id: account.id }, select: { timezone: true } }));
    await turns(5);
    transaction.end();
    await Promise.all([transaction.settled, second]);
    expect(await third).toEqual({ timezone: 'Asia/Tokyo' });
  });

  it('a transaction waits for its turn longer than Prisma\'s default 2 s instead of failing', async () => {
    const [held, waiting] = [await makeAccount(), await makeAccount()];
    const transaction = openTransaction(held.id);
    await transaction.isOpen;
    const second = sent(db().$transaction(async (tx) => {
      await tx.account.update({ where: { id: waiting.id }, data: { timezone: 'Asia/Tokyo' } });
    }));
    await sleep(2_500);
    transaction.end();
    expect(await transaction.settled).toBe('committed');
    await expect(second).resolves.toBeUndefined();
    expect((await db().account.findUniqueOrThrow({ where: { id: waiting.id } })).timezone).toBe('Asia/Tokyo');
  });
});

describe('the gate and the event loop', () => {
  /**
   * How many turns the event loop takes while `work` runs, counted by an immediate that schedules
   * itself again (it runs once in every turn's check phase, however short the turn): one or two
   * when the work never lets the loop turn. (A 0 ms timer would count milliseconds, not turns, and
   * 200 fast queries may take only a few.)
   */
  async function loopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
    let fired = 0;
    let running = true;
    const tick = () => {
      fired += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      await work();
    } finally {
      running = false;
    }
    return fired;
  }

  it('lets the event loop turn between queries queued at the gate', async () => {
    const account = await makeAccount();
    // Two hundred queries sent at once all wait at the gate; each of them lets timers run first.
    // (findFirst: Prisma would merge findUnique calls of one tick into a single query.)
    const fired = await loopTurnsDuring(() => Promise.all(Array.from({ length: 200 }, () => sent(db().account.findFirst({ where: { id: account.id } })))));
    expect(fired).toBeGreaterThan(100);
  });

  it('lets the event loop turn between the statements of a transaction', async () => {
    const account = await makeAccount();
    const fired = await loopTurnsDuring(() =>
      db().$transaction(async (tx) => {
        for (let statement = 0; statement < 200; statement += 1) await tx.account.findUnique({ where: { id: account.id } });
      }),
    );
    expect(fired).toBeGreaterThan(100);
  });
});
