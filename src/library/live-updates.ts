import { standingSessionIds } from '../accounts/sessions.ts';
import { currentTokenDigests } from '../accounts/tokens.ts';
import { fastReader } from '../db/client.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { AppError, ServiceBusyError } from '../errors.ts';
import type { Credential } from '../graphql/context.ts';
import type { Logger } from '../log.ts';

/**
 * Live updates: the `libraryChanged` subscription's streams (one per open tab of the web app) and
 * what wakes them. Every write that changes what an account sees bumps its `feedVersion` (and a
 * catalog change the server's `catalogVersion`: src/db/stale-versions.ts), whichever process made
 * it (a REST call, Home Assistant, another tab, an import, another server process, the command
 * line). So while streams are open, the process reads those counters of the accounts it has
 * streams for — one small query every `pollMs`, none when no stream is open — and tells an
 * account's streams when one moved. The same on SQLite and PostgreSQL, with one process or many.
 *
 * Each stream belongs to the credential that opened it (a session, or the API token by its
 * digest). The same read checks that each still stands — signed out, signed out everywhere, the
 * password changed or reset, the session expired, the token regenerated, the account removed: in
 * this process or any other, all of it is in the database — and ends the streams of one that does
 * not, before telling anyone of a change. The counters are read before the credentials, so a
 * change made after a credential ended is never told to its streams: the read that sees the change
 * sees the credential gone too.
 */

/** What a stream is told: the versions the account's data is now at. */
export interface LibraryChange {
  feedVersion: number;
  calendarVersion: number;
  catalogVersion: number;
}

export interface LiveUpdatesOptions {
  logger: Logger;
  /** How often the counters and credentials are read while a stream is open. */
  pollMs: number;
  /** Streams one credential (a session: one browser; the API token) may hold open in this process at once. */
  maxStreamsPerCredential: number;
  /** Streams one account may hold open in this process at once, all its credentials together; 0 turns live updates off. */
  maxStreamsPerAccount: number;
}

export interface LiveUpdates {
  /**
   * A stream of the account's changes for the credential the request came with: one value each
   * time its data changed, the latest only when several came between two reads. Ends with
   * `close()`, the iterator's `return()` (the client went away), or the end of the credential
   * (within a read: `pollMs`). At a bound, the credentials are read once more before refusing,
   * so the streams of a credential that has just ended never keep a new one out.
   * @throws TooManyStreamsError past the credential's or the account's bound;
   *   ServiceBusyError once `close()` was called.
   */
  open(accountId: number, credential: Credential): Promise<AsyncIterableIterator<LibraryChange>>;
  /** Open streams (all accounts). */
  size(): number;
  /** Ends every stream (the server is stopping) and stops reading. */
  close(): void;
}

/** Over a bound of open streams (HTTP 429, no Retry-After: a tab must close first). */
export class TooManyStreamsError extends AppError {
  override name = 'TooManyStreamsError';
  readonly code = 'RATE_LIMITED' as const;
  constructor(bound: 'off' | 'session' | 'token' | 'account', max: number) {
    super(
      bound === 'off'
        ? 'live updates are turned off on this server'
        : bound === 'session'
          ? `this browser already has ${max} live update streams open (one per tab); close a tab, or reload it later`
          : bound === 'token'
            ? `this API token already has ${max} live update streams open; close one first`
            : `this account already has ${max} live update streams open (its browsers' tabs and its API token's); close a tab, or sign out where it is no longer used`,
    );
  }
}

interface Stream {
  accountId: number;
  credential: Credential;
  /** The credential as one string, to count a credential's streams by. */
  credentialKey: string;
  /** The value not yet taken by the reader, if any. */
  pending: LibraryChange | undefined;
  /** The reader waiting for a value, if any. */
  waiting: ((result: IteratorResult<LibraryChange>) => void) | undefined;
  done: boolean;
}

const keyOf = (credential: Credential) => (credential.kind === 'session' ? `session:${credential.sessionId}` : `token:${credential.digest}`);

export function createLiveUpdates(options: LiveUpdatesOptions): LiveUpdates {
  const { logger, maxStreamsPerAccount, maxStreamsPerCredential } = options;
  const streams = new Map<number, Set<Stream>>();
  /** The versions last read per account with streams; an account's first read only sets them. */
  const seen = new Map<number, LibraryChange>();
  let timer: NodeJS.Timeout | undefined;
  /** The read under way, and the one asked for while it runs (shared by every caller meanwhile). */
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let closed = false;

  const count = () => [...streams.values()].reduce((total, set) => total + set.size, 0);

  const finish = (stream: Stream) => {
    if (stream.done) return;
    stream.done = true;
    stream.pending = undefined;
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

  /** A read that begins after this call: one under way is followed by one more. Never rejects. */
  function read(): Promise<void> {
    if (!running) {
      running = readOnce().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running.then(() => {
      queued = undefined;
      return read();
    });
    return queued;
  }

  async function readOnce(): Promise<void> {
    // The streams this read judges: one opened while it runs waits for the next read.
    const judged = [...streams.values()].flatMap((set) => [...set]);
    if (judged.length === 0) return;
    try {
      const reader = fastReader();
      const [[catalog] = []] = await reader.rows(`SELECT "catalogVersion" FROM "ServerState" WHERE "id" = 1`);
      const catalogVersion = Number(catalog ?? 0);
      const versions = new Map<number, LibraryChange>();
      for (const part of chunks([...new Set(judged.map((stream) => stream.accountId))], prismaListValues)) {
        const rows = await reader.rows(`SELECT "id", "feedVersion", "calendarVersion" FROM "Account" WHERE "id" IN (${part.map(() => '?').join(', ')})`, part);
        for (const [id, feed, calendar] of rows) versions.set(Number(id), { feedVersion: Number(feed), calendarVersion: Number(calendar), catalogVersion });
      }
      // After the versions: a credential that ended before a change they show is gone here too.
      const sessionIds = new Set<number>();
      const digests = new Set<string>();
      for (const { credential } of judged) {
        if (credential.kind === 'session') sessionIds.add(credential.sessionId);
        else digests.add(credential.digest);
      }
      const [sessions, tokens] = await Promise.all([standingSessionIds([...sessionIds]), currentTokenDigests([...digests])]);
      const stands = (credential: Credential) => (credential.kind === 'session' ? sessions.has(credential.sessionId) : tokens.has(credential.digest));
      let ended = 0;
      for (const stream of judged) {
        if (stream.done || (versions.has(stream.accountId) && stands(stream.credential))) continue;
        finish(stream);
        ended += 1;
      }
      if (ended > 0) logger.info(`live updates: ended ${ended} stream(s) whose session or token has ended (or whose account was removed)`);
      for (const [accountId, now] of versions) {
        if (!streams.has(accountId)) continue;
        const before = seen.get(accountId);
        seen.set(accountId, now);
        if (!before || (before.feedVersion === now.feedVersion && before.calendarVersion === now.calendarVersion && before.catalogVersion === now.catalogVersion)) continue;
        for (const stream of judged) if (stream.accountId === accountId && !stream.done) deliver(stream, now);
      }
    } catch (error) {
      // Nothing is told on a failed read: the next one compares with the versions last read.
      logger.warn({ err: error }, 'live updates: reading the accounts’ versions and credentials failed; trying again');
    }
  }

  /** The refusal a new stream of `credential` would meet now, if any. */
  function refusal(accountId: number, credential: Credential): TooManyStreamsError | undefined {
    const set = streams.get(accountId);
    if (!set) return undefined;
    const key = keyOf(credential);
    let ofCredential = 0;
    for (const stream of set) if (stream.credentialKey === key) ofCredential += 1;
    if (ofCredential >= maxStreamsPerCredential) return new TooManyStreamsError(credential.kind, maxStreamsPerCredential);
    if (set.size >= maxStreamsPerAccount) return new TooManyStreamsError('account', maxStreamsPerAccount);
    return undefined;
  }

  return {
    async open(accountId, credential) {
      // A stopping server: 503, try again (another process, or this one restarted).
      if (closed) throw new ServiceBusyError(5);
      if (maxStreamsPerAccount === 0) throw new TooManyStreamsError('off', 0);
      if (refusal(accountId, credential)) {
        // Streams of a credential that has just ended may still count: read, then decide.
        await read();
        if (closed) throw new ServiceBusyError(5);
        const refused = refusal(accountId, credential);
        if (refused) throw refused;
      }
      const stream: Stream = { accountId, credential, credentialKey: keyOf(credential), pending: undefined, waiting: undefined, done: false };
      const set = streams.get(accountId) ?? new Set<Stream>();
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
