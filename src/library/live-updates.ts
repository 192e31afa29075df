import { fastReader } from '../db/client.ts';
import { AppError, ServiceBusyError } from '../errors.ts';
import type { Logger } from '../log.ts';

/**
 * Live updates: the `libraryChanged` subscription's streams (one per open tab of the web app) and
 * what wakes them. Every write that changes what an account sees bumps its `feedVersion` (and a
 * catalog change the server's `catalogVersion`: src/db/stale-versions.ts), whichever process made
 * it (a REST call, Home Assistant, another tab, an import, another server process, the command
 * line). So while streams are open, the process reads those counters of the accounts it has
 * streams for — one small query every `pollMs`, none when no stream is open — and tells an
 * account's streams when one moved. The same on SQLite and PostgreSQL, with one process or many.
 */

/** What a stream is told: the versions the account's data is now at. */
export interface LibraryChange {
  feedVersion: number;
  calendarVersion: number;
  catalogVersion: number;
}

export interface LiveUpdatesOptions {
  logger: Logger;
  /** How often the counters are read while a stream is open. */
  pollMs: number;
  /** Streams one account may hold open in this process at once. */
  maxStreamsPerAccount: number;
}

export interface LiveUpdates {
  /**
   * A stream of the account's changes: one value each time its data changed, the latest only when
   * several came between two reads. Ends with `close()` or the iterator's `return()` (the client
   * went away).
   * @throws TooManyStreamsError when the account already holds `maxStreamsPerAccount`;
   *   ServiceBusyError once `close()` was called.
   */
  open(accountId: number): AsyncIterableIterator<LibraryChange>;
  /** Open streams (all accounts). */
  size(): number;
  /** Ends every stream (the server is stopping) and stops reading. */
  close(): void;
}

/** Over the per-account bound of open streams (HTTP 429, no Retry-After: a tab must close first). */
export class TooManyStreamsError extends AppError {
  override name = 'TooManyStreamsError';
  readonly code = 'RATE_LIMITED' as const;
  constructor(max: number) {
    super(max === 0 ? 'live updates are turned off on this server' : `this account already has ${max} live update streams open (one per browser tab); close a tab, or reload it later`);
  }
}

interface Stream {
  accountId: number;
  /** The value not yet taken by the reader, if any. */
  pending: LibraryChange | undefined;
  /** The reader waiting for a value, if any. */
  waiting: ((result: IteratorResult<LibraryChange>) => void) | undefined;
  done: boolean;
}

export function createLiveUpdates(options: LiveUpdatesOptions): LiveUpdates {
  const streams = new Map<number, Set<Stream>>();
  /** The versions last read per account with streams; an account's first read only sets them. */
  const seen = new Map<number, LibraryChange>();
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  /** A read was asked for while one ran (a stream opened): run another right after it. */
  let again = false;
  let closed = false;

  const count = () => [...streams.values()].reduce((total, set) => total + set.size, 0);

  const finish = (stream: Stream) => {
    if (stream.done) return;
    stream.done = true;
    const set = streams.get(stream.accountId);
    set?.delete(stream);
    if (set && set.size === 0) {
      streams.delete(stream.accountId);
      seen.delete(stream.accountId);
    }
    stream.waiting?.({ done: true, value: undefined });
    stream.waiting = undefined;
    if (streams.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const deliver = (stream: Stream, change: LibraryChange) => {
    if (stream.waiting) {
      const waiting = stream.waiting;
      stream.waiting = undefined;
      waiting({ done: false, value: change });
    } else stream.pending = change;
  };

  async function read(): Promise<void> {
    if (streams.size === 0) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    again = false;
    try {
      const ids = [...streams.keys()];
      const reader = fastReader();
      const [[catalog] = []] = await reader.rows(`SELECT "catalogVersion" FROM "ServerState" WHERE "id" = 1`);
      const catalogVersion = Number(catalog ?? 0);
      // The accounts with streams, a bounded number of ids at a time.
      for (let start = 0; start < ids.length; start += 500) {
        const part = ids.slice(start, start + 500);
        const rows = await reader.rows(`SELECT "id", "feedVersion", "calendarVersion" FROM "Account" WHERE "id" IN (${part.map(() => '?').join(', ')})`, part);
        const found = new Set<number>();
        for (const [id, feed, calendar] of rows) {
          const accountId = Number(id);
          found.add(accountId);
          const now = { feedVersion: Number(feed), calendarVersion: Number(calendar), catalogVersion };
          const before = seen.get(accountId);
          seen.set(accountId, now);
          if (before && (before.feedVersion !== now.feedVersion || before.calendarVersion !== now.calendarVersion || before.catalogVersion !== now.catalogVersion)) {
            for (const stream of streams.get(accountId) ?? []) deliver(stream, now);
          }
        }
        // A removed account's streams end.
        for (const accountId of part) if (!found.has(accountId)) for (const stream of [...(streams.get(accountId) ?? [])]) finish(stream);
      }
    } catch (error) {
      options.logger.warn({ err: error }, 'live updates: reading the accounts’ versions failed; trying again');
    } finally {
      reading = false;
      if (again) void read();
    }
  }

  return {
    open(accountId) {
      // A stopping server: 503, try again (another process, or this one restarted).
      if (closed) throw new ServiceBusyError(5);
      const set = streams.get(accountId) ?? new Set<Stream>();
      if (set.size >= options.maxStreamsPerAccount) throw new TooManyStreamsError(options.maxStreamsPerAccount);
      const stream: Stream = { accountId, pending: undefined, waiting: undefined, done: false };
      set.add(stream);
      streams.set(accountId, set);
      // Read at once: the account's versions now are what later changes are compared with.
      void read();
      timer ??= setInterval(() => void read(), options.pollMs);
      timer.unref();
      const iterator: AsyncIterableIterator<LibraryChange> = {
        next() {
          if (stream.done) return Promise.resolve({ done: true, value: undefined });
          if (stream.pending) {
            const value = stream.pending;
            stream.pending = undefined;
            return Promise.resolve({ done: false, value });
          }
          return new Promise((resolve) => (stream.waiting = resolve));
        },
        return() {
          finish(stream);
          return Promise.resolve({ done: true, value: undefined });
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
    size: count,
    close() {
      closed = true;
      for (const set of [...streams.values()]) for (const stream of [...set]) finish(stream);
    },
  };
}
