import { db } from '../db/client.ts';
import type { ImportDocument, ImportEpisodeRef, ImportShow, ImportSource, ImportTitle } from './sources/import-document.ts';
import { pendingImports } from '../limits.ts';
import type { Warner } from '../log.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import { applyImportDocuments } from './import-service.ts';
import { collectIdQueries, importBudget, resolveUnknownIds, type PrepassQuery } from './import-prepass.ts';
import { pendingItemKey, type UnmatchedItem } from './pending-import-store.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Unmatched import items, kept with the account (PendingImport rows, written by the import's own
 * transaction: pending-import-store.ts), are retried when the catalog is refreshed: the account's
 * sync (POST /api/machine/sync) and the periodic catalog refresh job. A retry rebuilds the rows
 * into the documents they came from (one per source and file), runs the import's catalog pre-pass
 * on them (a network catalog configured since, or an offline file that grew, may now answer their
 * ids) and applies them with the import's own rules (applyImportDocuments: same merge, the
 * history with its original dates, source `import:<source>`). In the same transaction, the rows
 * that matched are deleted and the others get `lastTriedAt`.
 */

export interface RetryPendingImportsProps {
  catalog: CatalogService;
  /** Only this account's pending imports; every account's that has any when undefined. */
  accountId?: number;
  /** Where a failed retry is reported: it is logged, never thrown. */
  logger: Warner;
  /** The retry's time (followedAt of what it adds, lastTriedAt); defaults to now. */
  now?: Date;
}

/** What a retry did, over every account it covered. */
export interface RetrySummary {
  accounts: number;
  /** Pending items tried (at most pendingImports.retriedPerRun per account). */
  tried: number;
  /** Of those, matched now: added to the library and no longer pending. */
  matched: number;
  /** Accounts whose retry failed (logged; their rows are left as they were). */
  failures: number;
}

/**
 * Retries the pending imports of one account, or of every account that has some. Never throws:
 * a failure (of an account's retry, or of listing the accounts) is logged and counted, so the
 * catalog refresh that calls it never fails because of it.
 */
export async function retryPendingImports(props: RetryPendingImportsProps): Promise<RetrySummary> {
  const summary: RetrySummary = { accounts: 0, tried: 0, matched: 0, failures: 0 };
  let accounts: number[];
  try {
    accounts = props.accountId !== undefined
      ? [props.accountId]
      : (await db().pendingImport.findMany({ distinct: ['accountId'], select: { accountId: true }, orderBy: { accountId: 'asc' } })).map((row) => row.accountId);
  } catch (error) {
    props.logger.warn(`pending imports: listing the accounts failed: ${(error as Error).message}`);
    return { ...summary, failures: 1 };
  }
  for (const accountId of accounts) {
    summary.accounts += 1;
    try {
      const done = await retryAccount(props.catalog, accountId, props.now ?? new Date(), props.logger);
      summary.tried += done.tried;
      summary.matched += done.matched;
    } catch (error) {
      summary.failures += 1;
      props.logger.warn(`pending imports: retry of account ${accountId} failed: ${(error as Error).message}`);
    }
  }
  return summary;
}

type PendingRow = Awaited<ReturnType<typeof loadPending>>[number];

/** The account's pending rows tried longest ago (never tried first), at most retriedPerRun. */
function loadPending(accountId: number) {
  return db().pendingImport.findMany({
    where: { accountId },
    orderBy: [{ lastTriedAt: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }],
    take: pendingImports.retriedPerRun,
  });
}

async function retryAccount(catalog: CatalogService, accountId: number, now: Date, logger: Warner): Promise<{ tried: number; matched: number }> {
  const rows = await loadPending(accountId);
  if (rows.length === 0) return { tried: 0, matched: 0 };
  const documents = documentsOf(rows);
  const queries = new Map<string, PrepassQuery>();
  for (const document of documents) collectIdQueries(document, queries);
  await resolveUnknownIds(catalog, queries, accountId, logger, importBudget(catalog, accountId));
  let matched = 0;
  await applyImportDocuments({
    accountId,
    documents: () => documents,
    now,
    imageOrigins: catalog.imageOrigins(),
    unmatchedItems: async (tx, items) => {
      matched = await settleRows(tx, rows, items, now);
    },
  });
  return { tried: rows.length, matched };
}

/** Ids per statement that deletes or stamps rows: under the SQLite driver's bound of 999 parameters a statement. */
const idsPerStatement = 500;

/**
 * Inside the retry's transaction: deletes the tried rows that matched (they are in the library
 * now) and stamps lastTriedAt on those still unmatched. Returns how many matched.
 */
async function settleRows(tx: Prisma.TransactionClient, rows: PendingRow[], stillUnmatched: UnmatchedItem[], now: Date): Promise<number> {
  const still = new Set(stillUnmatched.map(pendingItemKey));
  const matched = rows.filter((row) => !still.has(row.itemKey)).map((row) => row.id);
  const left = rows.filter((row) => still.has(row.itemKey)).map((row) => row.id);
  for (let start = 0; start < matched.length; start += idsPerStatement) {
    await tx.pendingImport.deleteMany({ where: { id: { in: matched.slice(start, start + idsPerStatement) } } });
  }
  for (let start = 0; start < left.length; start += idsPerStatement) {
    await tx.pendingImport.updateMany({ where: { id: { in: left.slice(start, start + idsPerStatement) } }, data: { lastTriedAt: now } });
  }
  return matched.length;
}

/** The rows as the documents they came from: one per source and file, items in row order. */
export function documentsOf(rows: Pick<PendingRow, 'source' | 'file' | 'kind' | 'item'>[]): ImportDocument[] {
  const documents = new Map<string, ImportDocument & { episodeRefs: ImportEpisodeRef[] }>();
  for (const row of rows) {
    const key = JSON.stringify([row.source, row.file]);
    let document = documents.get(key);
    if (!document) {
      document = { source: row.source as ImportSource, fileName: row.file, shows: [], titles: [], episodeRefs: [], skipped: [] };
      documents.set(key, document);
    }
    const item = reviveItem(row.item);
    if (row.kind === 'show') document.shows.push(item as ImportShow);
    else if (row.kind === 'episode') document.episodeRefs.push(item as ImportEpisodeRef);
    else document.titles.push(item as ImportTitle);
  }
  return [...documents.values()];
}

/**
 * An item's JSON read back: its times (`at` of each history entry and of watchedThrough, the only
 * fields of that name) as Dates again, so the history keeps its original dates.
 */
function reviveItem(json: string): ImportShow | ImportTitle | ImportEpisodeRef {
  return JSON.parse(json, (key, value: unknown) => (key === 'at' && typeof value === 'string' ? new Date(value) : value)) as ImportShow | ImportTitle | ImportEpisodeRef;
}
