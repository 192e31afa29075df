import type { MediaKind } from '../catalog/provider.ts';
import { db } from '../db/client.ts';
import { retryOnUniqueViolation } from './prisma-errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ImportDocument, ImportShow, ImportTitle } from '../import/import-document.ts';
import { episodeKey, resolveEpisodes, resolveItems, type WantedEpisode } from './import-catalog.ts';
import { applyFollowStates, applyWatchData, type FollowTarget, type WatchTarget } from './import-writes.ts';

/**
 * Writes one ImportDocument into an account, in one transaction, with the merge rules of
 * decisions.md ("Import and export"): never delete, never duplicate, explicit states kept.
 *
 * 1. Catalog: every item is found by any shared external id, or created from the file's ids and
 *    title (import-catalog.ts); items without a tmdb/tvdb/igdb id are `unmatched`.
 * 2. Library: every show, movie and game the file records anything for becomes followed, unless
 *    the account set its follow state itself (LibraryItem.followExplicit). A file that states a
 *    flag (the Airdate export's followed/archived, TV Time's unfollowed and archived shows,
 *    Simkl's dropped shows) sets it unless the account's explicit flag says otherwise, and the
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
 * 5. The account's feedVersion (and the catalog's catalogVersion, when rows were created) is
 *    bumped in the same transaction when anything was written, so feed caches never go stale.
 * All reads and writes are batched per kind (one query per batch of up to 1 000 rows), never one
 * per entry: 100 000 history entries take a few seconds.
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

/** An item with no usable external id: nothing was written for it. */
export interface ImportUnmatched {
  file: string;
  kind: MediaKind;
  title: string;
}

export interface ImportResult {
  imported: ImportCounts;
  skipped: ImportSkipped[];
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

type Tx = Prisma.TransactionClient;

/**
 * Applies `document` to the account in one transaction (the rules above). A transaction that lost
 * a race to create the same catalog or library row as a concurrent writer is run again.
 */
export async function applyImportDocument(props: ApplyImportProps): Promise<ImportResult> {
  return retryOnUniqueViolation(() => applyOnce(props));
}

async function applyOnce(props: ApplyImportProps): Promise<ImportResult> {
  const { accountId, document } = props;
  const now = props.now ?? new Date();
  const file = document.fileName;
  const result: ImportResult = {
    imported: { shows: 0, episodes: 0, movies: 0, games: 0, history: 0 },
    skipped: document.skipped.map((skip) => ({ file, ...skip })),
    unmatched: [],
    databaseIds: { shows: [], episodes: [], movies: [], games: [] },
  };
  if (document.shows.length === 0 && document.titles.length === 0) return result;
  return db().$transaction(
    async (tx) => {
      // Imports into one account take turns (a row lock on PostgreSQL; SQLite writes one at a
      // time anyway): two uploads of the same file at once must not both find its history new.
      await tx.$executeRaw`UPDATE "Account" SET "feedVersion" = "feedVersion" WHERE "id" = ${accountId}`;
      const source = `import:${document.source}`;
      const follows: FollowTarget[] = [];
      const watches: WatchTarget[] = [];
      let catalogChanges = 0;

      const showIds = await resolveItems(tx, 'show', document.shows);
      catalogChanges += showIds.changes;
      const wanted: WantedEpisode[] = [];
      document.shows.forEach((show, index) => {
        const showId = showIds.ids[index];
        if (showId === undefined) return void result.unmatched.push({ file, kind: 'show', title: show.title });
        follows.push({ kind: 'show', id: showId, followed: show.followed, archived: show.archived });
        for (const { season, number, title, airDate } of show.episodes) wanted.push({ showId, season, number, title: title ?? null, airDate: airDate ?? null });
      });
      const episodes = await resolveEpisodes(tx, wanted);
      catalogChanges += episodes.changes;
      document.shows.forEach((show: ImportShow, index) => {
        const showId = showIds.ids[index];
        if (showId === undefined) return;
        for (const episode of show.episodes) {
          const id = episodes.ids.get(episodeKey(showId, episode.season, episode.number))!;
          watches.push({ kind: 'episode', id, history: episode.history, watched: episode.watched });
        }
      });

      for (const kind of ['movie', 'game'] as const) {
        const titles = document.titles.filter((title) => title.kind === kind);
        const resolved = await resolveItems(tx, kind, titles);
        catalogChanges += resolved.changes;
        titles.forEach((title: ImportTitle, index) => {
          const id = resolved.ids[index];
          if (id === undefined) return void result.unmatched.push({ file, kind, title: title.title });
          follows.push({ kind, id, followed: title.followed });
          watches.push({ kind, id, history: title.history, watched: title.watched });
        });
      }

      const libraryChanges = await applyFollowStates(tx, accountId, follows, now);
      const watchChanges = await applyWatchData(tx, accountId, watches, source, now);
      result.imported.history = watchChanges.history;
      for (const [kind, key] of [['show', 'shows'], ['movie', 'movies'], ['game', 'games']] as const) {
        result.databaseIds[key] = [...new Set(follows.filter((target) => target.kind === kind).map((target) => target.id))];
      }
      result.databaseIds.episodes = [...new Set(watches.filter((target) => target.kind === 'episode').map((target) => target.id))];
      for (const key of ['shows', 'movies', 'games', 'episodes'] as const) result.imported[key] = result.databaseIds[key].length;

      if (catalogChanges > 0) await bumpCatalogVersion(tx);
      if (catalogChanges + libraryChanges + watchChanges.writes > 0) {
        await tx.account.update({ where: { id: accountId }, data: { feedVersion: { increment: 1 } } });
      }
      return result;
    },
    // A big history file takes seconds; Prisma's default 5 s would abort it.
    { maxWait: 30_000, timeout: 300_000 },
  );
}

async function bumpCatalogVersion(tx: Tx): Promise<void> {
  await tx.serverState.upsert({ where: { id: 1 }, create: { id: 1, catalogVersion: 1 }, update: { catalogVersion: { increment: 1 } } });
}

