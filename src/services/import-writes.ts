import { Prisma } from '../generated/prisma/client.ts';
import type { ImportWatchEvent } from '../import/import-document.ts';
import { insertRows, selectIn } from './bulk-sql.ts';
import { chunks } from './import-catalog.ts';

/**
 * The account side of an import, inside its transaction: follow/archive states, watch history
 * and watched states, each read with one query per batch of items and written with createMany or
 * grouped updateMany
 * (history and states, the bulk of a big import, through multi-row INSERTs: bulk-insert.ts). The rules are documented on applyImportDocument (src/services/import.ts).
 */

type Tx = Prisma.TransactionClient;
type FollowKind = 'show' | 'movie' | 'game';
type WatchKind = 'episode' | 'movie' | 'game';

/** Items compared per round of reads (selectIn batches its IN lists itself). */
const readBatch = 10_000;

const column = { show: 'showId', episode: 'episodeId', movie: 'movieId', game: 'gameId' } as const;

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
    const key = column[kind];
    const fresh: unknown[][] = []; // accountId, kind, item, followed, archived, followExplicit, archiveExplicit, followedAt, createdAt, updatedAt
    const updates = new Map<string, { data: Prisma.LibraryItemUpdateManyMutationInput; ids: number[] }>();
    for (const part of chunks([...items.keys()], readBatch)) {
      const columns = ['id', key, 'followed', 'archived', 'followExplicit', 'archiveExplicit', 'followedAt'];
      const stored = await selectIn<LibraryRow>(tx, 'LibraryItem', columns, key, part, Prisma.sql`"accountId" = ${accountId}`);
      const byId = new Map(stored.map((row) => [row[key]!, row]));
      for (const id of part) {
        const target = items.get(id)!;
        const row = byId.get(id);
        const archivable = kind === 'show' && target.archived !== undefined;
        const followed = row?.followExplicit ? row.followed : (target.followed ?? true);
        const archived = row?.archiveExplicit || !archivable ? (row?.archived ?? false) : target.archived!;
        const data = {
          followed,
          archived,
          followExplicit: (row?.followExplicit ?? false) || target.followed !== undefined,
          archiveExplicit: (row?.archiveExplicit ?? false) || archivable,
          followedAt: followed && !row?.followed ? now : (row?.followedAt ?? null),
        };
        if (!row) {
          fresh.push([accountId, kind, id, data.followed, data.archived, data.followExplicit, data.archiveExplicit, data.followedAt, now, now]);
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
    writes += await insertRows(tx, 'LibraryItem', ['accountId', 'kind', ...written], fresh);
    for (const { data, ids } of updates.values()) {
      for (const part of chunks(ids)) writes += (await tx.libraryItem.updateMany({ where: { id: { in: part } }, data })).count;
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
  const kinds = byItem(targets, (into, next) => {
    into.history = [...into.history, ...next.history].sort((a, b) => a.at.getTime() - b.at.getTime());
    into.watched = next.watched ?? into.watched;
  });
  for (const [kind, items] of kinds as Map<WatchKind, Map<number, WatchTarget>>) {
    const key = column[kind];
    const events: unknown[][] = []; // accountId, kind, item, watched, at, source
    const states: unknown[][] = []; // accountId, kind, item, watched, changedAt
    const updates = new Map<string, { data: { watched: boolean; changedAt: Date }; ids: number[] }>();
    const ids = [...items.keys()].filter((id) => items.get(id)!.history.length > 0 || items.get(id)!.watched !== undefined);
    for (const part of chunks(ids, readBatch)) {
      const seen = new Set<string>();
      // Only entries at the file's times can be duplicates: the time range keeps the lookup on the
      // (accountId, at) index instead of scanning the account's whole history for every batch.
      let [first, last] = [Infinity, -Infinity];
      for (const id of part) for (const entry of items.get(id)!.history) [first, last] = [Math.min(first, entry.at.getTime()), Math.max(last, entry.at.getTime())];
      if (first <= last) {
        const condition = Prisma.sql`"accountId" = ${accountId} AND "at" >= ${new Date(first)} AND "at" <= ${new Date(last)}`;
        for (const event of await selectIn<{ item: number; watched: boolean; at: Date }>(tx, 'WatchEvent', [key, 'watched', 'at'], key, part, condition)) {
          const row = event as unknown as Record<string, unknown>;
          seen.add(`${row[key]}:${event.watched}:${event.at.getTime()}`);
        }
      }
      type State = { id: number; watched: boolean; changedAt: Date } & Record<string, number>;
      const stored = await selectIn<State>(tx, 'WatchState', ['id', key, 'watched', 'changedAt'], key, part, Prisma.sql`"accountId" = ${accountId}`);
      const stateOf = new Map(stored.map((row) => [row[key]!, row]));
      for (const id of part) {
        const target = items.get(id)!;
        for (const entry of target.history) {
          const mark = `${id}:${entry.watched}:${entry.at.getTime()}`;
          if (seen.has(mark)) continue;
          seen.add(mark);
          events.push([accountId, kind, id, entry.watched, entry.at, source]);
        }
        const last = target.history.at(-1);
        const watched = target.watched ?? last?.watched;
        if (watched === undefined) continue;
        const state = stateOf.get(id);
        if (!state) {
          if (!watched) continue; // never watched: unwatching changes nothing
          states.push([accountId, kind, id, watched, last?.at ?? now]);
          if (!last) events.push([accountId, kind, id, watched, now, source]);
        } else if (state.watched !== watched && last !== undefined && last.at > state.changedAt) {
          const group = `${watched}:${last.at.getTime()}`;
          const entry = updates.get(group) ?? { data: { watched, changedAt: last.at }, ids: [] as number[] };
          entry.ids.push(state.id);
          updates.set(group, entry);
        }
      }
    }
    history += await insertRows(tx, 'WatchEvent', ['accountId', 'kind', key, 'watched', 'at', 'source'], events);
    writes += await insertRows(tx, 'WatchState', ['accountId', 'kind', key, 'watched', 'changedAt'], states);
    for (const { data, ids: stateIds } of updates.values()) {
      for (const part of chunks(stateIds)) writes += (await tx.watchState.updateMany({ where: { id: { in: part } }, data })).count;
    }
  }
  return { history, writes: writes + history };
}
