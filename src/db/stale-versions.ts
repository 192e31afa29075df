import type { Prisma } from '../generated/prisma/client.ts';

/**
 * What a write makes stale, in one place: every write that changes what a feed, a calendar or a
 * catalog lookup answers goes through these functions, in the transaction or statement that
 * writes (test/development/layout.test.ts refuses a version bump written anywhere else).
 *
 * - `feedVersion` (per account): anything its feeds show — watch marks, follows and archives, its
 *   settings, catalog rows its own import created. Feed bodies, snapshots and summaries are keyed
 *   by it (with the catalog version).
 * - `calendarVersion` (per account): what its calendar shows — follows, archives, settings, catalog
 *   rows its import created; not watch marks (a toggle keeps the calendar's ETag).
 * - `catalogVersion` (one, ServerState): any catalog row created or changed, by a refresh or an
 *   import. Every per-account cache key holds it, so a catalog change needs no account bumps.
 */
export interface AccountWrite {
  /** Watch marks changed. */
  watches?: boolean;
  /** Follows or archives changed (library rows). */
  library?: boolean;
  /** Settings changed (zone, name, summary profile, webhook). */
  settings?: boolean;
  /** Catalog rows were created or changed by this account's write (an import). */
  catalog?: boolean;
}

/** The account versions `write` makes stale. */
export function staleAccountVersions(write: AccountWrite): { feed: boolean; calendar: boolean } {
  const calendar = write.library === true || write.settings === true || write.catalog === true;
  return { feed: calendar || write.watches === true, calendar };
}

const columns = (write: AccountWrite): string[] => {
  const stale = staleAccountVersions(write);
  return [...(stale.feed ? ['feedVersion'] : []), ...(stale.calendar ? ['calendarVersion'] : [])];
};

/** The Prisma `data` that bumps the account versions `write` makes stale (empty when none). */
export function accountVersionBumps(write: AccountWrite): Prisma.AccountUpdateInput {
  return Object.fromEntries(columns(write).map((column) => [column, { increment: 1 }]));
}

/**
 * The SQL assignments that bump them, for the prepared statements of the fast writer (one
 * statement per write on SQLite and PostgreSQL alike: the identifiers are quoted for both).
 */
export function accountVersionAssignments(write: AccountWrite): string {
  const assigned = columns(write);
  if (assigned.length === 0) throw new Error('a write that makes nothing stale bumps no version');
  return assigned.map((column) => `"${column}" = "${column}" + 1`).join(', ');
}

/** Bumps the catalog version: in the transaction that created or changed catalog rows. */
export async function bumpCatalogVersion(client: Prisma.TransactionClient): Promise<void> {
  await client.serverState.upsert({ where: { id: 1 }, create: { id: 1, catalogVersion: 1 }, update: { catalogVersion: { increment: 1 } } });
}
