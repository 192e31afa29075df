import { createHash } from 'node:crypto';
import type { MediaKind } from '../catalog/provider.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { ImportEpisodeIds, ImportEpisodeRef, ImportIds, ImportShow, ImportSource, ImportTitle } from './sources/import-document.ts';
import { pendingImports } from '../limits.ts';
import { insertRows, selectIn } from '../db/bulk-sql.ts';

type Tx = Prisma.TransactionClient;

/**
 * An item of an import that no catalog matched, whole (its history included), as the import's
 * transaction hands it over: kept as a PendingImport row and retried later
 * (src/imports/pending-imports.ts).
 */
export interface UnmatchedItem {
  source: ImportSource;
  file: string;
  kind: MediaKind | 'episode';
  title: string;
  year?: number;
  sourceId?: string;
  ids: ImportIds | ImportEpisodeIds;
  item: ImportShow | ImportTitle | ImportEpisodeRef;
}

/** What an item's key is made of (an unmatched report entry and its source carry it). */
export type PendingIdentity = Pick<UnmatchedItem, 'source' | 'kind' | 'title' | 'year' | 'sourceId' | 'ids'>;

/**
 * The item's key among the account's pending imports: the same item imported again (the same
 * file, or a newer export of the same service) has the same key, two same-titled items with
 * different ids or source ids do not. Items with neither are told apart by title and year. The
 * source is part of it: the same film unmatched in two services' files keeps both histories.
 * Hashed, so a long title or URI never makes a long index entry.
 */
export function pendingItemKey(item: PendingIdentity): string {
  const ids = Object.entries(item.ids)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const identity = ids.length > 0 || item.sourceId !== undefined ? ['ids', ids, item.sourceId ?? null] : ['title', item.title, item.year ?? null];
  return createHash('sha256').update(JSON.stringify([item.source, item.kind, ...identity])).digest('hex');
}

/** Keys per deleteMany of replaced rows: under the SQLite driver's bound of 999 parameters a statement. */
const keysPerStatement = 500;

/**
 * Keeps `items` as the account's pending imports, inside the import's transaction (a dry run or a
 * failed import keeps none): an item already pending (same key) has its row replaced by the newer
 * file's (its createdAt kept, its tries forgotten); new items are added while the account has fewer
 * than pendingImports.perAccount. Returns how many rows were written and how many items were
 * left out by the bound.
 */
export async function storePendingImports(tx: Tx, accountId: number, items: UnmatchedItem[], now: Date): Promise<{ stored: number; overLimit: number }> {
  if (items.length === 0) return { stored: 0, overLimit: 0 };
  const byKey = new Map<string, UnmatchedItem>();
  for (const item of items) byKey.set(pendingItemKey(item), item); // the last of duplicates in one request wins
  const keys = [...byKey.keys()];
  const existing = await selectIn<{ itemKey: string; createdAt: Date }>(tx, 'PendingImport', ['itemKey', 'createdAt'], 'itemKey', keys, Prisma.sql`"accountId" = ${accountId}`);
  const createdAt = new Map(existing.map((row) => [row.itemKey, new Date(row.createdAt)]));
  const replaced = [...createdAt.keys()];
  // Counted before the replaced rows are deleted: they come back, and are within the bound already.
  let room = pendingImports.perAccount - (await tx.pendingImport.count({ where: { accountId } }));
  for (let start = 0; start < replaced.length; start += keysPerStatement) {
    await tx.pendingImport.deleteMany({ where: { accountId, itemKey: { in: replaced.slice(start, start + keysPerStatement) } } });
  }
  let overLimit = 0;
  const rows: unknown[][] = [];
  for (const [key, item] of byKey) {
    const kept = createdAt.get(key);
    if (!kept) {
      if (room <= 0) {
        overLimit += 1;
        continue;
      }
      room -= 1;
    }
    rows.push([key, item.source, item.file, item.kind, item.title, item.year ?? null, item.sourceId ?? null, JSON.stringify(item.ids), JSON.stringify(item.item), kept ?? now]);
  }
  const stored = await insertRows(tx, 'PendingImport', ['itemKey', 'source', 'file', 'kind', 'title', 'year', 'sourceId', 'ids', 'item', 'createdAt'], rows, { shared: { accountId } });
  return { stored, overLimit };
}

/**
 * Inside an import's transaction: the items it matched are no longer pending from an earlier
 * import (the catalog learned them meanwhile, and the file was imported again before a retry).
 * One cheap read when the account has no pending imports, which is the usual case.
 */
export async function forgetPendingImports(tx: Tx, accountId: number, matched: PendingIdentity[]): Promise<number> {
  if (matched.length === 0 || !(await tx.pendingImport.findFirst({ where: { accountId }, select: { id: true } }))) return 0;
  const keys = [...new Set(matched.map(pendingItemKey))];
  let deleted = 0;
  for (let start = 0; start < keys.length; start += keysPerStatement) {
    deleted += (await tx.pendingImport.deleteMany({ where: { accountId, itemKey: { in: keys.slice(start, start + keysPerStatement) } } })).count;
  }
  return deleted;
}
