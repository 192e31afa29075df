import { idColumn, idSourcesByKind } from '../catalog/provider.ts';
import { fastReader } from '../db/client.ts';
import { asBoolean, asIsoTimestamp } from '../db/fast-read.ts';
import {
  compareExportItems,
  presentEpisodeIds,
  presentIds,
  type ExportEpisode,
  type ExportShow,
  type ExportTitle,
  type ExportWatchEvent,
} from './export-format.ts';

/**
 * The export's reads, through the driver (`fastReader`): 100 000 history entries through Prisma
 * would cost seconds of value mapping alone. The item lists (a few thousand rows at most) are read
 * whole and sorted by external ids in memory; episodes, watch states and history are then read a
 * batch of items at a time, so memory stays bounded by one batch however long the history is.
 *
 * History entries whose date is unknown (a mark's "date unknown") are left out: the export's
 * history holds times, and the current state already says the item was watched (as an import
 * records a watch without a date).
 *
 * A library item is anything the account has a library row, a watch state or a history entry
 * for: watching an episode does not follow its show, and the export must still carry it.
 */

/** Items per batch query; IN lists are padded to this length so each query is one statement. */
const batchItems = 100;
/** A batch of shows stops growing at this many episodes (one long-running show may exceed it alone). */
const batchEpisodes = 2_000;
/** Never an item id: pads IN lists. */
const noId = 0;

const placeholders = `(${Array.from({ length: batchItems }, () => '?').join(', ')})`;
const padded = (ids: number[]): number[] => [...ids, ...Array.from({ length: batchItems - ids.length }, () => noId)];

interface Listed<T> {
  databaseId: number;
  entry: T;
  /** Episodes of a show; 1 for titles (their history is what a batch reads). */
  weight: number;
}

/** Groups rows whose first column is an item id; each group keeps the rows' SQL order. */
function groupHistory(rows: unknown[][]): Map<number, ExportWatchEvent[]> {
  const byItem = new Map<number, ExportWatchEvent[]>();
  for (const [itemId, watched, at] of rows) {
    const id = Number(itemId);
    let events = byItem.get(id);
    if (!events) byItem.set(id, (events = []));
    events.push({ watched: asBoolean(watched), at: asIsoTimestamp(at) });
  }
  return byItem;
}

/** Splits sorted items into batches of at most `batchItems` items and about `batchEpisodes` episodes. */
function* batches<T>(items: Listed<T>[]): Generator<Listed<T>[]> {
  let batch: Listed<T>[] = [];
  let weight = 0;
  for (const item of items) {
    if (batch.length > 0 && (batch.length === batchItems || weight + item.weight > batchEpisodes)) {
      yield batch;
      batch = [];
      weight = 0;
    }
    batch.push(item);
    weight += item.weight;
  }
  if (batch.length > 0) yield batch;
}

async function listShows(accountId: number): Promise<Listed<ExportShow>[]> {
  const rows = await fastReader().rows(
    `SELECT s."id", s."tmdbId", s."tvdbId", s."imdbId", s."title", s."poster", s."overview", li."followed", li."archived",
       (SELECT COUNT(*) FROM "Episode" c WHERE c."showId" = s."id")
     FROM "Show" s LEFT JOIN "LibraryItem" li ON li."accountId" = ? AND li."showId" = s."id"
     WHERE s."id" IN (
       SELECT "showId" FROM "LibraryItem" WHERE "accountId" = ? AND "showId" IS NOT NULL
       UNION SELECT e."showId" FROM "WatchState" w JOIN "Episode" e ON e."id" = w."episodeId" WHERE w."accountId" = ?
       UNION SELECT e."showId" FROM "WatchEvent" h JOIN "Episode" e ON e."id" = h."episodeId" WHERE h."accountId" = ?)`,
    [accountId, accountId, accountId, accountId],
  );
  const listed = rows.map(([id, tmdb, tvdb, imdb, title, poster, overview, followed, archived, episodes]) => ({
    databaseId: Number(id),
    weight: Number(episodes),
    entry: {
      ids: presentIds('show', { tmdb, tvdb, imdb }), title: String(title), poster: poster as string | null, overview: overview as string | null,
      followed: asBoolean(followed), archived: asBoolean(archived), episodes: [] as ExportEpisode[],
    },
  }));
  const compare = compareExportItems('show');
  return listed.sort((a, b) => compare(a.entry, b.entry) || a.databaseId - b.databaseId);
}

/** Fills the episodes of one batch of shows: three queries whatever the batch size. */
async function fillEpisodes(accountId: number, batch: Listed<ExportShow>[]): Promise<void> {
  const reader = fastReader();
  const showIds = padded(batch.map((show) => show.databaseId));
  const episodeRows = await reader.rows(
    `SELECT "id", "showId", "season", "number", "title", "airDate", "tvdbId", "tmdbId", "imdbId" FROM "Episode"
     WHERE "showId" IN ${placeholders} ORDER BY "showId", "season", "number"`,
    showIds,
  );
  // `episodeId IN (subquery)` probes the (accountId, episodeId) indexes once per episode of the
  // batch; a join from the account's side would scan its whole history for every batch. History
  // is ordered by item first, or SQLite walks the (accountId, at) index to avoid a sort: the
  // same whole-history scan.
  const episodesOfBatch = `SELECT "id" FROM "Episode" WHERE "showId" IN ${placeholders}`;
  const stateRows = await reader.rows(
    `SELECT "episodeId", "watched" FROM "WatchState" WHERE "accountId" = ? AND "episodeId" IN (${episodesOfBatch})`,
    [accountId, ...showIds],
  );
  const historyRows = await reader.rows(
    `SELECT "episodeId", "watched", CAST("at" AS TEXT) FROM "WatchEvent"
     WHERE "accountId" = ? AND "episodeId" IN (${episodesOfBatch}) AND NOT "dateUnknown" ORDER BY "episodeId", "at", "watched"`,
    [accountId, ...showIds],
  );
  const watched = new Map(stateRows.map(([episodeId, state]) => [Number(episodeId), asBoolean(state)]));
  const history = groupHistory(historyRows);
  const byShow = new Map(batch.map((show) => [show.databaseId, show.entry]));
  for (const [id, showId, season, number, title, airDate, tvdb, tmdb, imdb] of episodeRows) {
    const episodeId = Number(id);
    const ids = presentEpisodeIds({ tvdb, tmdb, imdb });
    byShow.get(Number(showId))!.episodes.push({
      season: Number(season), number: Number(number), title: title as string | null, airDate: airDate as string | null,
      ...(ids ? { ids } : {}),
      watched: watched.get(episodeId) ?? false, history: history.get(episodeId) ?? [],
    });
  }
}

/** Part of a list in export order: `first` items after the first `offset`. */
export interface ExportPage {
  offset: number;
  first: number;
}

const pageOf = <T>(items: T[], page: ExportPage | undefined): T[] => (page ? items.slice(page.offset, page.offset + page.first) : items);

/**
 * The account's shows in export order (or the `page` of them), a batch at a time, each with all
 * its episodes: only the page's episodes and history are read.
 */
export async function* readExportShows(accountId: number, page?: ExportPage): AsyncGenerator<ExportShow[]> {
  for (const batch of batches(pageOf(await listShows(accountId), page))) {
    await fillEpisodes(accountId, batch);
    yield batch.map((show) => show.entry);
  }
}

const titleTables = {
  movie: { table: 'Movie', column: 'movieId' },
  game: { table: 'Game', column: 'gameId' },
} as const;

/** The account's movies or games in export order (or the `page` of them), a batch at a time, each with its history. */
export async function* readExportTitles(accountId: number, kind: 'movie' | 'game', page?: ExportPage): AsyncGenerator<ExportTitle[]> {
  const { table, column } = titleTables[kind];
  const sources = idSourcesByKind[kind];
  const reader = fastReader();
  const rows = await reader.rows(
    `SELECT t."id", ${sources.map((source) => `t."${idColumn[source]}"`).join(', ')}, t."title", t."poster", t."overview", t."releaseDate", li."followed", ws."watched"
     FROM "${table}" t
     LEFT JOIN "LibraryItem" li ON li."accountId" = ? AND li."${column}" = t."id"
     LEFT JOIN "WatchState" ws ON ws."accountId" = ? AND ws."${column}" = t."id"
     WHERE t."id" IN (
       SELECT "${column}" FROM "LibraryItem" WHERE "accountId" = ? AND "${column}" IS NOT NULL
       UNION SELECT "${column}" FROM "WatchState" WHERE "accountId" = ? AND "${column}" IS NOT NULL
       UNION SELECT "${column}" FROM "WatchEvent" WHERE "accountId" = ? AND "${column}" IS NOT NULL)`,
    [accountId, accountId, accountId, accountId, accountId],
  );
  const compare = compareExportItems(kind);
  const listed: Listed<ExportTitle>[] = rows
    .map(([id, ...values]) => {
      const [title, poster, overview, releaseDate, followed, watched] = values.slice(sources.length);
      const ids = presentIds(kind, Object.fromEntries(sources.map((source, index) => [source, values[index]])));
      const entry: ExportTitle = {
        ids, title: String(title), poster: poster as string | null,
        overview: overview as string | null, releaseDate: releaseDate as string | null,
        followed: asBoolean(followed), watched: asBoolean(watched), history: [] as ExportWatchEvent[],
      };
      return { databaseId: Number(id), weight: 1, entry };
    })
    .sort((a, b) => compare(a.entry, b.entry) || a.databaseId - b.databaseId);
  for (const batch of batches(pageOf(listed, page))) {
    const historyRows = await reader.rows(
      `SELECT "${column}", "watched", CAST("at" AS TEXT) FROM "WatchEvent"
       WHERE "accountId" = ? AND "${column}" IN ${placeholders} AND NOT "dateUnknown" ORDER BY "${column}", "at", "watched"`,
      [accountId, ...padded(batch.map((title) => title.databaseId))],
    );
    const history = groupHistory(historyRows);
    yield batch.map((title) => ({ ...title.entry, history: history.get(title.databaseId) ?? [] }));
  }
}
