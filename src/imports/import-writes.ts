import { Prisma } from '../generated/prisma/client.ts';
import type { ImportWatchEvent } from './sources/import-document.ts';
import { insertRows, selectIn } from '../db/bulk-sql.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { itemColumn, type FollowKind, type WatchKind } from '../library/library.ts';

/**
 * The account side of an import, inside its transaction: follow/archive states, watch history
 * and watched states, each read with one query per batch of items and written with createMany or
 * grouped updateMany (history and states, the bulk of a big import, through bulk INSERTs:
 * bulk-sql.ts). The rules are documented on applyImportDocument (src/imports/import-service.ts).
 */

type Tx = Prisma.TransactionClient;

/** Items compared per round of reads (selectIn batches its IN lists itself). */
const readBatch = 10_000;

type LibraryRow = { id: number; followed: boolean; archived: boolean; followExplicit: boolean; archiveExplicit: boolean; followedAt: Date | null } & Record<string, number>;

/** A library item the file records something for, with the flags it states (if any). */
export interface FollowTarget {
  kind: FollowKind;
  id: number;
  followed?: boolean;
  /** Shows only. */
  archived?: boolean;
}

/** An episode, movie or game with the file's history and stated state. */
export interface WatchTarget {
  kind: WatchKind;
  id: number;
  history: ImportWatchEvent[];
  watched?: boolean;
}

/** Groups `targets` by kind, merging repeats of one item (the same title twice in a file). */
function byItem<T extends { kind: string; id: number }>(targets: T[], merge: (into: T, next: T) => void): Map<string, Map<number, T>> {
  const kinds = new Map<string, Map<number, T>>();
  for (const target of targets) {
    let items = kinds.get(target.kind);
    if (!items) kinds.set(target.kind, (items = new Map()));
    const existing = items.get(target.id);
    if (existing) merge(existing, target);
    else items.set(target.id, { ...target });
  }
  return kinds;
}

/** Writes follow/archive states; returns rows written. */
export async function applyFollowStates(tx: Tx, accountId: number, targets: FollowTarget[], now: Date): Promise<number> {
  let writes = 0;
  const kinds = byItem(targets, (into, next) => {
    into.followed = next.followed ?? into.followed;
    into.archived = next.archived ?? into.archived;
  });
  for (const [kind, items] of kinds as Map<FollowKind, Map<number, FollowTarget>>) {
    const key = itemColumn[kind];
    const fresh: unknown[][] = []; // item, followed, archived, followExplicit, archiveExplicit, followedAt, createdAt, updatedAt
    const updates = new Map<string, { data: Prisma.LibraryItemUpdateManyMutationInput; ids: number[] }>();
    for (const part of chunks([...items.keys()], readBatch)) {
      const columns = ['id', key, 'followed', 'archived', 'followExplicit', 'archiveExplicit', 'followedAt'];
      const stored = await selectIn<LibraryRow>(tx, 'LibraryItem', columns, key, part, Prisma.sql`"accountId" = ${accountId}`);
      const byId = new Map(stored.map((row) => [row[key]!, row]));
      for (const id of part) {
        const target = items.get(id)!;
        const row = byId.get(id);
        const archivable = kind === 'show' && target.archived !== undefined;
        // decisions.md: an account that set its follow *or* archive state explicitly keeps both.
        const kept = (row?.followExplicit ?? false) || (row?.archiveExplicit ?? false);
        const followed = kept ? row!.followed : (target.followed ?? true);
        const archived = kept || !archivable ? (row?.archived ?? false) : target.archived!;
        const data = {
          followed,
          archived,
          followExplicit: (row?.followExplicit ?? false) || target.followed !== undefined,
          archiveExplicit: (row?.archiveExplicit ?? false) || archivable,
          followedAt: followed && !row?.followed ? now : (row?.followedAt ?? null),
        };
        if (!row) {
          fresh.push([id, data.followed, data.archived, data.followExplicit, data.archiveExplicit, data.followedAt, now, now]);
          continue;
        }
        const same = data.followed === row.followed && data.archived === row.archived && data.followExplicit === row.followExplicit
          && data.archiveExplicit === row.archiveExplicit && data.followedAt?.getTime() === row.followedAt?.getTime();
        if (same) continue;
        // Rows needing the same change share one UPDATE (followedAt is `now` or kept).
        const group = JSON.stringify({ ...data, followedAt: data.followedAt === now ? 'now' : data.followedAt });
        const entry = updates.get(group) ?? { data, ids: [] as number[] };
        entry.ids.push(row.id);
        updates.set(group, entry);
      }
    }
    const written = [key, 'followed', 'archived', 'followExplicit', 'archiveExplicit', 'followedAt', 'createdAt', 'updatedAt'];
    writes += await insertRows(tx, 'LibraryItem', written, fresh, { shared: { accountId, kind } });
    for (const { data, ids } of updates.values()) {
      for (const part of chunks(ids, prismaListValues)) writes += (await tx.libraryItem.updateMany({ where: { id: { in: part } }, data })).count;
    }
  }
  return writes;
}

/** Appends new history entries and sets watched states; returns entries added and rows written. */
export async function applyWatchData(
  tx: Tx,
  accountId: number,
  targets: WatchTarget[],
  source: string,
  now: Date,
): Promise<{ history: number; writes: number }> {
  let history = 0;
  let writes = 0;
  // An item named many times (a 300 000-row file of one film) has its entries appended, in a copy
  // of its first list (the document's own stays as it was), and sorted once after all are merged:
  // joining and sorting the lists at each repeat cost time quadratic in the repeats.
  const merged = new Set<WatchTarget>();
  const kinds = byItem(targets, (into, next) => {
    if (!merged.has(into)) into.history = into.history.slice();
    merged.add(into);
    for (const entry of next.history) into.history.push(entry);
    into.watched = next.watched ?? into.watched;
  });
  for (const target of merged) target.history.sort((a, b) => a.at.getTime() - b.at.getTime());
  for (const [kind, items] of kinds as Map<WatchKind, Map<number, WatchTarget>>) {
    const key = itemColumn[kind];
    const events: unknown[][] = []; // item, watched, at, estimated (the account, kind and source are shared)
    const states: unknown[][] = []; // item, watched, changedAt
    const updates = new Map<string, { data: { watched: boolean; changedAt: Date }; ids: number[] }>();
    const ids = [...items.keys()].filter((id) => items.get(id)!.history.length > 0 || items.get(id)!.watched !== undefined);
    for (const part of chunks(ids, readBatch)) {
      type State = { id: number; watched: boolean; changedAt: Date } & Record<string, number>;
      const stored = await selectIn<State>(tx, 'WatchState', ['id', key, 'watched', 'changedAt'], key, part, Prisma.sql`"accountId" = ${accountId}`);
      const stateOf = new Map(stored.map((row) => [row[key]!, row]));
      for (const id of part) {
        const target = items.get(id)!;
        pushDistinctEntries(events, id, target.history);
        const last = target.history.at(-1);
        const watched = target.watched ?? last?.watched;
        if (watched === undefined) continue;
        const state = stateOf.get(id);
        if (!state) {
          if (!watched) continue; // never watched: unwatching changes nothing
          states.push([id, watched, last?.at ?? now]);
          // The file gave no time: the import's own is recorded, marked as estimated.
          if (!last) events.push([id, watched, now, true]);
        } else if (state.watched !== watched && last !== undefined && last.at > state.changedAt) {
          const group = `${watched}:${last.at.getTime()}`;
          const entry = updates.get(group) ?? { data: { watched, changedAt: last.at }, ids: [] as number[] };
          entry.ids.push(state.id);
          updates.set(group, entry);
        }
      }
    }
    // Entries the account already has (same item, watched flag and time) are skipped by the INSERT
    // itself: reading the account's history at the file's times first cost a row object per entry.
    let [first, last] = [Infinity, -Infinity];
    for (const event of events) {
      const at = (event[2] as Date).getTime();
      if (at < first) first = at;
      if (at > last) last = at;
    }
    history += await insertRows(tx, 'WatchEvent', [key, 'watched', 'at', 'estimated'], events, {
      shared: { accountId, kind, source },
      skipExisting: ['accountId', key, 'watched', 'at'],
      // Only entries at the file's times can be duplicates: the (accountId, at) index range.
      skipExistingWithin: events.length === 0 ? undefined : Prisma.sql`existing."accountId" = ${accountId} AND existing."at" >= ${new Date(first)} AND existing."at" <= ${new Date(last)}`,
    });
    writes += await insertRows(tx, 'WatchState', [key, 'watched', 'changedAt'], states, { shared: { accountId, kind } });
    for (const { data, ids: stateIds } of updates.values()) {
      for (const part of chunks(stateIds, prismaListValues)) writes += (await tx.watchState.updateMany({ where: { id: { in: part } }, data })).count;
    }
  }
  return { history, writes: writes + history };
}

/**
 * Appends `[id, watched, at]` for each entry of `history` (oldest first) but repeated (watched,
 * time) entries, which merged items can have. A plain loop: it runs once per history entry.
 */
function pushDistinctEntries(events: unknown[][], id: number, history: ImportWatchEvent[]): void {
  let sorted = history;
  for (let index = 1; index < history.length; index += 1) {
    if (history[index - 1]!.at.getTime() > history[index]!.at.getTime()) {
      sorted = [...history].sort((a, b) => a.at.getTime() - b.at.getTime());
      break;
    }
  }
  let time = NaN;
  let seen = 0; // bit 1: a watched entry at `time`, bit 2: an unwatched one
  for (const entry of sorted) {
    const at = entry.at.getTime();
    if (at !== time) {
      time = at;
      seen = 0;
    }
    const bit = entry.watched ? 1 : 2;
    if ((seen & bit) === 0) events.push([id, entry.watched, entry.at, entry.estimated ?? false]);
    seen |= bit;
  }
}
