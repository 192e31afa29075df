import type { MediaKind } from '../catalog/provider.ts';
import { db } from '../db/client.ts';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import { yieldToEventLoop } from '../event-loop.ts';
import { transactionTimes } from '../limits.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ImportDocument, ImportEpisodeIds, ImportEpisodeRef, ImportIds, ImportShow, ImportTitle } from './sources/import-document.ts';
import { episodeKey, resolveEpisodeRefs, resolveEpisodes, resolveItems, type WantedEpisode } from './import-catalog.ts';
import { applyFollowStates, applyWatchData, type FollowTarget, type WatchTarget } from './import-writes.ts';
import { watchedThroughTargets } from './import-watched-through.ts';
import { dropForeignPosters } from './import-posters.ts';
import { networkImageOrigins } from '../catalog/image-origins.ts';
import { forgetPendingImports, storePendingImports, type PendingIdentity, type UnmatchedItem } from './pending-import-store.ts';
import { accountVersionBumps, bumpCatalogVersion } from '../db/stale-versions.ts';

/**
 * Writes the ImportDocuments of one request into an account, in one transaction, with the merge rules of
 * decisions.md ("Import and export"): never delete, never duplicate, explicit states kept.
 *
 * 1. Catalog: every item is found by any shared external id (tmdb, tvdb, imdb, igdb, giantbomb), or
 *    created from the file's ids and title when it has a tmdb/tvdb (shows) / tmdb (movies) / igdb
 *    (games) id; movies and games with no id are matched by exact title and year when exactly
 *    one stored row has them (import-catalog.ts); the rest are `unmatched`. Episode references
 *    (episodes known by an episode id only) resolve to the stored episode with that id; their
 *    show counts as recorded by the file (becomes followed unless a stated flag says otherwise).
 *    Unresolved references are `unmatched`, one entry each, never a show made up for them.
 * 2. Library: every show, movie and game the file records anything for becomes followed, unless
 *    the account set its follow or archive state itself (followExplicit/archiveExplicit: then both
 *    stay). A file that states a
 *    flag (the Airdate export's followed/archived, TV Time's unfollowed and archived shows,
 *    Simkl's dropped shows) sets it unless the account's explicit flags say otherwise, and the
 *    stated flag then counts as explicit: it is the user's own choice carried over, so a later
 *    import from another source does not undo it. Nothing is ever unarchived by an import that
 *    does not say so.
 * 3. History: the file's entries are appended unless the account already has the same (item,
 *    watched, timestamp); importing the same file twice adds nothing.
 * 4. Watched state: the file's state is its stated one, else its last entry's. It replaces the
 *    account's state only when the file's last entry is newer than the account's last change, so
 *    an import never un-watches what the account watched (or unwatches) later. A state without a
 *    timestamp (Simkl episodes without watched_at) only fills in an item the account has no
 *    state for, and is recorded in the history at import time.
 * 5. Unmatched items are kept with the account, whole (history included), as pending imports
 *    (pending-import-store.ts), in the same transaction: a dry run or a failed import keeps none.
 *    They are retried when the catalog is refreshed (pending-imports.ts). An item that matches
 *    now is no longer pending from an earlier import.
 * 6. The account's feedVersion (and the catalog's catalogVersion, when rows were created) is
 *    bumped in the same transaction when anything was written, so feed caches never go stale.
 * All reads and writes are batched per kind (bulk statements of thousands of rows, bulk-sql.ts),
 * never one per entry, and a big document goes in slices (below): 100 000 history entries take a
 * few seconds.
 */

/** Counts of what an import covered; `history` is the number of history entries added. */
export interface ImportCounts {
  shows: number;
  episodes: number;
  movies: number;
  games: number;
  history: number;
}

/** Something in a file left out, and why. */
export interface ImportSkipped {
  file: string;
  item: string;
  reason: string;
}

/** How a file was read (the zone of its plain times, what its only date stands for), for the report. */
export interface ImportNote {
  file: string;
  note: string;
}

/**
 * An item no catalog row could be found or made for: nothing was written for it. One entry per
 * item of the file; an episode reference (kind `episode`) is named by its label and ids.
 */
export interface ImportUnmatched {
  file: string;
  kind: MediaKind | 'episode';
  title: string;
  /** The ids the file gave it (an episode reference's are the episode's own). */
  ids: ImportIds | ImportEpisodeIds;
  /** Its year, when the file gives one. */
  year?: number;
  /** The source's own id or URI of the item (Grouvee id, Letterboxd URI, TV Time uuid). */
  sourceId?: string;
}

/** An unmatched entry for `item`: one per source item, with what tells it apart from same-titled ones. */
function unmatchedEntry(file: string, item: ImportShow | ImportTitle): ImportUnmatched {
  return { file, kind: item.kind, title: item.title, ids: item.ids, ...(item.year !== undefined ? { year: item.year } : {}), ...(item.sourceId !== undefined ? { sourceId: item.sourceId } : {}) };
}

export interface ImportResult {
  imported: ImportCounts;
  skipped: ImportSkipped[];
  /** How each file was read (ImportDocument.notes), in document order. */
  notes: ImportNote[];
  unmatched: ImportUnmatched[];
  /** Database ids the document covered, per kind (to count distinct items across documents). */
  databaseIds: Record<'shows' | 'episodes' | 'movies' | 'games', number[]>;
}

export interface ApplyImportProps {
  accountId: number;
  document: ImportDocument;
  /** The import's time (followedAt, undated watched states); defaults to now. */
  now?: Date;
}

export interface ApplyImportsProps {
  accountId: number;
  /**
   * The request's documents, in order. A function, because a transaction that lost a creation race
   * runs again from the start and reads them again (importUploads parses each file right before
   * it is applied, so they are not all held at once).
   */
  documents: () => Iterable<ImportDocument>;
  /** The import's time (followedAt, undated watched states); defaults to now. */
  now?: Date;
  /** Work out the whole result, then roll the transaction back: nothing is written. */
  dryRun?: boolean;
  /**
   * What becomes of the unmatched items (every document's, whole), inside the transaction before
   * it commits, with what tells apart every item that matched. Default: kept as the account's
   * pending imports (storePendingImports), and those that matched no longer pending
   * (forgetPendingImports); the retry of pending imports passes its own, which deletes the rows
   * it tried that matched this time.
   */
  unmatchedItems?: (tx: Tx, items: UnmatchedItem[], now: Date, matched: PendingIdentity[]) => Promise<void>;
  /**
   * The origins posters are kept from (CatalogService.imageOrigins; default the network catalogs'
   * image hosts): any other poster of a file is dropped and counted in its notes (import-posters.ts).
   */
  imageOrigins?: readonly string[];
}

type Tx = Prisma.TransactionClient;

/** Applies one document in its own transaction: applyImportDocuments with one document. */
export async function applyImportDocument(props: ApplyImportProps): Promise<ImportResult> {
  return applyImportDocuments({ accountId: props.accountId, documents: () => [props.document], now: props.now });
}

/**
 * Applies every document of one import request to the account in ONE transaction (the rules
 * above): the request is written whole or not at all, whatever stops it (a database error, a
 * timeout, the process killed). The event loop turns between documents, and between statements on
 * SQLite (db/sqlite-gate.ts), so other requests are served while it runs. `skipped` and
 * `unmatched` list every document's in order; `imported` counts distinct items across documents.
 * A transaction that lost a race to create the same catalog or library row as a concurrent writer
 * is run again. With `dryRun`, the transaction runs whole and is rolled back: the result says what
 * the import would do, and nothing is written.
 */
export async function applyImportDocuments(props: ApplyImportsProps): Promise<ImportResult> {
  try {
    return await retryOnUniqueViolation(() => applyOnce(props));
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result;
    throw error;
  }
}

/**
 * Thrown at the end of a dry run's transaction, so that the transaction rolls back: the result is
 * exactly the real import's (same statements, same matching, same duplicates found), and nothing
 * of it stays.
 */
class DryRunRollback extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run: rolled back');
  }
}

async function applyOnce(props: ApplyImportsProps): Promise<ImportResult> {
  const { accountId } = props;
  const now = props.now ?? new Date();
  const result: ImportResult = {
    imported: { shows: 0, episodes: 0, movies: 0, games: 0, history: 0 },
    skipped: [],
    notes: [],
    unmatched: [],
    databaseIds: { shows: [], episodes: [], movies: [], games: [] },
  };
  const distinct = { shows: new Set<number>(), episodes: new Set<number>(), movies: new Set<number>(), games: new Set<number>() };
  const changes = { catalog: 0, library: 0, watches: 0 };
  const unmatchedItems: UnmatchedItem[] = [];
  const matchedItems: PendingIdentity[] = [];
  let locked = false;
  const transaction = async (tx: Tx) => {
    for (const document of props.documents()) {
      dropForeignPosters(document, props.imageOrigins ?? networkImageOrigins);
      // Loops, never push(...list): a list of 300 000 arguments overflows the stack.
      for (const skip of document.skipped) result.skipped.push({ file: document.fileName, ...skip });
      for (const note of document.notes ?? []) result.notes.push({ file: document.fileName, note });
      if (document.shows.length === 0 && document.titles.length === 0 && (document.episodeRefs ?? []).length === 0) continue;
      if (!locked) {
        // Imports into one account take turns (a row lock on PostgreSQL; SQLite writes one at a
        // time anyway): two uploads of the same file at once must not both find its history new.
        await tx.$executeRaw`UPDATE "Account" SET "feedVersion" = "feedVersion" WHERE "id" = ${accountId}`;
        locked = true;
      }
      // Other requests get their turn between documents (a document is applied in slices of
      // statements that each let the loop turn on SQLite; on PostgreSQL every statement waits on
      // the network anyway).
      await yieldToEventLoop();
      await applyDocument(tx, { accountId, document, now, result, distinct, changes, unmatchedItems, matchedItems });
    }
    const keep = props.unmatchedItems ?? (async (client: Tx, items: UnmatchedItem[], at: Date, matched: PendingIdentity[]) => {
      await forgetPendingImports(client, accountId, matched);
      await storePendingImports(client, accountId, items, at);
    });
    await keep(tx, unmatchedItems, now, matchedItems);
    for (const key of ['shows', 'movies', 'games', 'episodes'] as const) {
      result.databaseIds[key] = [...distinct[key]];
      result.imported[key] = distinct[key].size;
    }
    if (changes.catalog > 0) await bumpCatalogVersion(tx);
    const stale = accountVersionBumps({ catalog: changes.catalog > 0, library: changes.library > 0, watches: changes.watches > 0 });
    if (Object.keys(stale).length > 0) await tx.account.update({ where: { id: accountId }, data: stale });
    if (props.dryRun) throw new DryRunRollback(result);
    return result;
  };
  // A whole library's import takes seconds; Prisma's default 5 s would abort it.
  return db().$transaction(transaction, { maxWait: transactionTimes.sqliteWaitMs, timeout: transactionTimes.importMs });
}

interface DocumentWork {
  accountId: number;
  document: ImportDocument;
  now: Date;
  /** What the request's documents covered so far (skipped, unmatched, history added). */
  result: ImportResult;
  /** Database ids written for, per kind, across the request's documents. */
  distinct: Record<'shows' | 'episodes' | 'movies' | 'games', Set<number>>;
  /** Rows changed so far: catalog rows created or filled in, follow states, watch data. */
  changes: { catalog: number; library: number; watches: number };
  /** The unmatched items so far, whole, to be kept as pending imports. */
  unmatchedItems: UnmatchedItem[];
  /** What tells apart each item matched so far (an earlier import may have kept it as pending). */
  matchedItems: PendingIdentity[];
}

/** Writes one document inside the request's transaction. */
async function applyDocument(tx: Tx, work: DocumentWork): Promise<void> {
  const { accountId, document, now, result, distinct, changes } = work;
  const file = document.fileName;
  const source = `import:${document.source}`;
  const unmatched = (entry: ImportUnmatched, item: ImportShow | ImportTitle | ImportEpisodeRef) => {
    result.unmatched.push(entry);
    work.unmatchedItems.push({ ...entry, source: document.source, item });
  };
  const matched = (entry: ImportUnmatched) => work.matchedItems.push({ ...entry, source: document.source });
  /** `items` by the row each resolved to (itemsById), each noted as matched or unmatched. */
  const sorted = <T extends ImportShow | ImportTitle>(items: T[], ids: (number | undefined)[]): Map<number, T[]> => {
    const byId = itemsById(items, ids, (item) => unmatched(unmatchedEntry(file, item), item));
    for (const same of byId.values()) for (const item of same) matched(unmatchedEntry(file, item));
    return byId;
  };
  /** Follow states and watch data of one slice; every item of the document is in exactly one. */
  const applySlice = async (follows: FollowTarget[], watches: WatchTarget[]) => {
    changes.library += await applyFollowStates(tx, accountId, follows, now);
    const written = await applyWatchData(tx, accountId, watches, source, now);
    result.imported.history += written.history;
    changes.watches += written.writes;
    for (const target of follows) distinct[`${target.kind}s`].add(target.id);
    for (const target of watches) if (target.kind === 'episode') distinct.episodes.add(target.id);
  };

  const showIds = await resolveItems(tx, 'show', document.shows, now, accountId);
  changes.catalog += showIds.changes;
  const showsById = sorted(document.shows, showIds.ids);
  for (const slice of slices(showsById, (shows) => shows.reduce((sum, show) => sum + show.episodes.length, 1))) {
    const follows: FollowTarget[] = [];
    const wanted: WantedEpisode[] = [];
    for (const [showId, shows] of slice) {
      for (const show of shows) {
        follows.push({ kind: 'show', id: showId, followed: show.followed, archived: show.archived });
        for (const { season, number, title, airDate, ids } of show.episodes) wanted.push({ showId, season, number, title: title ?? null, airDate: airDate ?? null, ids });
      }
    }
    const episodes = await resolveEpisodes(tx, wanted, now, accountId);
    changes.catalog += episodes.changes;
    // Shows the file calls finished without listing episodes (Simkl): their aired episodes, first.
    const watches: WatchTarget[] = await watchedThroughTargets(tx, slice);
    for (const [showId, shows] of slice) {
      for (const show of shows) {
        for (const episode of show.episodes) {
          const id = episodes.ids.get(episodeKey(showId, episode.season, episode.number))!;
          watches.push({ kind: 'episode', id, history: episode.history, watched: episode.watched });
        }
      }
    }
    await applySlice(follows, watches);
  }

  // After the document's shows: a show the file also lists with a stated follow flag has it set
  // (and explicit) by then, so a reference's "becomes followed" does not undo it.
  const refs = document.episodeRefs ?? [];
  for (let start = 0; start < refs.length; start += sliceWeight) {
    const slice = refs.slice(start, start + sliceWeight);
    const resolved = await resolveEpisodeRefs(tx, slice, accountId);
    const follows: FollowTarget[] = [];
    const watches: WatchTarget[] = [];
    slice.forEach((ref, index) => {
      const found = resolved[index];
      const entry: ImportUnmatched = { file, kind: 'episode', title: refName(ref), ids: ref.ids };
      if (!found) return unmatched(entry, ref);
      matched(entry);
      follows.push({ kind: 'show', id: found.showId });
      watches.push({ kind: 'episode', id: found.episodeId, history: ref.history, watched: ref.watched });
    });
    await applySlice(follows, watches);
  }

  for (const kind of ['movie', 'game'] as const) {
    const titles = document.titles.filter((title) => title.kind === kind);
    const resolved = await resolveItems(tx, kind, titles, now, accountId);
    changes.catalog += resolved.changes;
    const titlesById = sorted(titles, resolved.ids);
    for (const slice of slices(titlesById, (same) => same.reduce((sum, title) => sum + title.history.length, 1))) {
      const follows: FollowTarget[] = [];
      const watches: WatchTarget[] = [];
      for (const [id, same] of slice) {
        for (const title of same) {
          follows.push({ kind, id, followed: title.followed });
          watches.push({ kind, id, history: title.history, watched: title.watched });
        }
      }
      await applySlice(follows, watches);
    }
  }
}

/** How the report names an unresolved reference: the file's label (if any) and the ids it gave. */
function refName(ref: ImportEpisodeRef): string {
  const ids = (['tvdb', 'tmdb', 'imdb'] as const).flatMap((source) => (ref.ids[source] === undefined ? [] : [`${source} ${ref.ids[source]}`]));
  const named = `episode ${ids.join(', ') || 'without ids'}`;
  return ref.label ? `${ref.label} (${named})` : named;
}

/**
 * The document's items by the database id they resolved to (an item named twice in a file is one
 * entry with both), in file order; `unmatched` gets the items that resolved to none.
 */
function itemsById<T>(items: T[], ids: (number | undefined)[], unmatched: (item: T) => void): Map<number, T[]> {
  const byId = new Map<number, T[]>();
  items.forEach((item, index) => {
    const id = ids[index];
    if (id === undefined) return unmatched(item);
    const same = byId.get(id);
    if (same) same.push(item);
    else byId.set(id, [item]);
  });
  return byId;
}

/**
 * Work per slice of a document: a slice closes once its items carry this much (episodes of its
 * shows, history entries of its movies or games).
 */
export const sliceWeight = 5_000;

/**
 * The items in slices of about `sliceWeight` (never splitting one item's entries): a document
 * is applied slice by slice inside the request's transaction, so a whole library's restore (60 000 episodes,
 * 100 000 history entries in one file) holds one slice's lookups and rows at a time, not the whole
 * file's. Each item is in exactly one slice, so the rules, which apply per item, give the same
 * result as one pass.
 */
function* slices<T>(byId: Map<number, T[]>, weigh: (same: T[]) => number): Generator<[number, T[]][]> {
  let slice: [number, T[]][] = [];
  let weight = 0;
  for (const entry of byId) {
    slice.push(entry);
    weight += weigh(entry[1]);
    if (weight >= sliceWeight) {
      yield slice;
      slice = [];
      weight = 0;
    }
  }
  if (slice.length > 0) yield slice;
}


