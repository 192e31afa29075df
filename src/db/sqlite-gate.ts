import type { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { yieldToEventLoop } from '../event-loop.ts';

type SqliteAdapter = Awaited<ReturnType<PrismaBetterSQLite3['connect']>>;
type SqliteTransaction = Awaited<ReturnType<SqliteAdapter['startTransaction']>>;
/** What PrismaClient's `adapter` option needs of a driver adapter factory. */
export type SqliteAdapterFactory = Pick<PrismaBetterSQLite3, 'provider' | 'adapterName' | 'connect'>;

/**
 * The SQLite driver adapter with its connection gated: a query outside a transaction waits while
 * a transaction is open, instead of running inside it.
 *
 * Prisma's better-sqlite3 adapter runs everything on ONE connection. It makes transactions take
 * turns (a mutex), but a query that belongs to no transaction goes straight to the connection, so
 * while a transaction is open such a query runs INSIDE it: it reads that transaction's uncommitted
 * rows, and a write it makes is undone when that transaction rolls back, although its caller was
 * told it succeeded. That is harmless while no transaction lets the event loop turn (SQLite queries
 * resolve synchronously, so a transaction that never waits on anything else runs start to end in
 * one go), and no longer once one does: an import request is one transaction over all its files
 * and yields between them so other requests are not stalled (services/import-upload.ts). Another
 * account's write during an import that then failed was lost that way (test/db/sqlite-gate.sqlite.test.ts).
 *
 * With the gate, queries and transactions take one turn each, in arrival order: SQLite writes one
 * at a time anyway, and the hot read paths (token check, feeds, calendar, export) do not wait,
 * because they read through the separate read-only connection (fast-read.ts), which sees the last
 * committed data.
 *
 * Every statement also lets the event loop turn before it runs, in a transaction too. better-sqlite3
 * runs statements synchronously, so without this Prisma's promises settle one after another
 * without a turn of the event loop: queries queued at the gate (sixteen searches of one GraphQL
 * operation, a page of shows' episodes) or a transaction's thousands of statements ran as one
 * piece of several hundred milliseconds, and every other request waited for all of it.
 */
export function gateSqliteAdapter(factory: PrismaBetterSQLite3, nextTurn: Turns = createTurns()): SqliteAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => gated(await factory.connect(), nextTurn),
  };
}

function gated(adapter: SqliteAdapter, nextTurn: Turns): SqliteAdapter {
  async function inTurn<T>(work: () => Promise<T>): Promise<T> {
    const done = await nextTurn();
    try {
      await yieldToEventLoop();
      return await work();
    } finally {
      done();
    }
  }
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => inTurn(() => adapter.queryRaw(query)),
    executeRaw: (query) => inTurn(() => adapter.executeRaw(query)),
    executeScript: (script) => inTurn(() => adapter.executeScript(script)),
    ...(adapter.getConnectionInfo ? { getConnectionInfo: () => adapter.getConnectionInfo!() } : {}),
    dispose: () => adapter.dispose(),
    async startTransaction(isolationLevel) {
      const done = await nextTurn();
      try {
        return endingTurn(await adapter.startTransaction(isolationLevel), done);
      } catch (error) {
        done();
        throw error;
      }
    },
  };
}

/** `transaction`, ending the turn when Prisma closes it (commit or rollback, a timeout's included). */
function endingTurn(transaction: SqliteTransaction, done: () => void): SqliteTransaction {
  let open = true;
  const close = async (end: () => Promise<void>) => {
    try {
      await end();
    } finally {
      if (open) done();
      open = false;
    }
  };
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: async (query) => {
      await yieldToEventLoop();
      return transaction.queryRaw(query);
    },
    executeRaw: async (query) => {
      await yieldToEventLoop();
      return transaction.executeRaw(query);
    },
    commit: () => close(() => transaction.commit()),
    rollback: () => close(() => transaction.rollback()),
  };
}

/** A first-come, first-served lock: `await nextTurn()` resolves to the function that ends the turn. */
export type Turns = () => Promise<() => void>;

/**
 * A new lock for `gateSqliteAdapter`. The process's SQLite writer (fast-write.ts) takes its turns
 * in the same lock, so its transactions never run while one of Prisma's is open: Prisma's
 * connection would then hold the write lock (or a read snapshot it must later upgrade), and a
 * synchronous wait for it would stall the event loop that Prisma's transaction needs to finish.
 */
export function createTurns(): Turns {
  let last: Promise<void> = Promise.resolve();
  return async () => {
    let done!: () => void;
    const turn = new Promise<void>((resolve) => (done = resolve));
    const previous = last;
    last = turn;
    await previous;
    return done;
  };
}
