/**
 * The hot library writes (a watched toggle, a follow or archive change) straight through the
 * driver, like fast-read.ts reads. Through Prisma one toggle was an interactive transaction of six
 * to eight statements, each compiled and prepared again: 3.7–6.8 ms of CPU per write, and the event
 * loop stalled while writes chained (issue 14). Here each change is prepared SQL: on SQLite a few
 * statements prepared once, run in one short synchronous transaction shared by the changes that
 * arrived together (fast-write-sqlite.ts); on PostgreSQL one statement, one round trip
 * (fast-write-postgres.ts). The rules are services/library.ts's; this layer only writes them.
 */

export type WatchKind = 'episode' | 'movie' | 'game';
export type FollowKind = 'show' | 'movie' | 'game';

/** Column of WatchState / WatchEvent / LibraryItem that points at an item of each kind. */
export const itemColumn = { episode: 'episodeId', movie: 'movieId', game: 'gameId', show: 'showId' } as const;

/** Catalog table of each kind (the existence check: a missing item is a 404, not a failed insert). */
export const itemTable = { episode: 'Episode', movie: 'Movie', game: 'Game', show: 'Show' } as const;

export interface WatchChange {
  accountId: number;
  kind: WatchKind;
  id: number;
  watched: boolean;
  /** Kept in the history: `api`, `graphql`, … */
  source: string;
  at: Date;
}

export interface FollowChange {
  accountId: number;
  kind: FollowKind;
  id: number;
  /** Left as it is when undefined. */
  followed?: boolean;
  /** Shows only; left as it is when undefined. */
  archived?: boolean;
  now: Date;
}

/** `missing`: the item does not exist (nothing written); `unchanged`: it already had this state. */
type WriteOutcome = 'changed' | 'unchanged' | 'missing';

/** A write's outcome and, when it changed something, the account's feed version it committed. */
export interface WriteResult {
  outcome: WriteOutcome;
  /** The feed version the change's bump set; null when nothing changed. */
  feedVersion: number | null;
}

export interface FastWriter {
  /**
   * Sets a watched flag: a real change updates the state (created on the first watch), appends a
   * history entry and bumps the account's feed version, atomically; the same value again changes nothing.
   */
  setWatched(change: WatchChange): Promise<WriteResult>;
  /**
   * Sets the follow and/or archive flags (remembered as set explicitly); a real change bumps the
   * feed and calendar versions. Resolves only once the change is durable (committed).
   */
  setFollow(change: FollowChange): Promise<WriteResult>;
  /** Waits for the changes already handed in, then closes. */
  close(): Promise<void>;
}
