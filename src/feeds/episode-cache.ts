import { fastReader } from '../db/client.ts';
import { registerCache } from '../metrics/cache-sizes.ts';

/** A catalog episode as every account sees it; shared, never mutated. */
export interface CatalogEpisodeRow {
  readonly id: number;
  readonly season: number;
  readonly number: number;
  readonly title: string | null;
  readonly airDate: string | null;
}

/** Episodes kept in memory at most (about 100 bytes each), least recently used shows first out. */
const episodeCapacity = 300_000;

let cachedVersion = -1;
let cachedEpisodes = 0;
const byShow = new Map<number, CatalogEpisodeRow[]>();
registerCache('catalog-episodes', { size: () => cachedEpisodes, max: episodeCapacity, unit: 'entries' });

/**
 * The episodes of `showIds`, from memory where possible and otherwise in one query. Catalog data
 * is the same for every account and changes only with `ServerState.catalogVersion`, which the
 * token check reads on every request: a newer version empties the cache, so no server instance
 * ever answers from an older catalog.
 */
export async function episodesOfShows(showIds: readonly number[], catalogVersion: number): Promise<Map<number, readonly CatalogEpisodeRow[]>> {
  if (catalogVersion !== cachedVersion) {
    byShow.clear();
    cachedEpisodes = 0;
    cachedVersion = catalogVersion;
  }
  const result = new Map<number, readonly CatalogEpisodeRow[]>();
  const missing: number[] = [];
  for (const showId of showIds) {
    const episodes = byShow.get(showId);
    if (episodes) {
      byShow.delete(showId);
      byShow.set(showId, episodes);
      result.set(showId, episodes);
    } else {
      missing.push(showId);
    }
  }
  if (missing.length > 0) {
    const loaded = await loadEpisodes(missing);
    for (const showId of missing) {
      const episodes = loaded.get(showId) ?? [];
      result.set(showId, episodes);
      // A refresh that raced this load may have bumped the version; then this copy is not kept.
      if (catalogVersion === cachedVersion) remember(showId, episodes);
    }
  }
  return result;
}

function remember(showId: number, episodes: CatalogEpisodeRow[]): void {
  byShow.set(showId, episodes);
  cachedEpisodes += episodes.length;
  for (const [oldest, evicted] of byShow) {
    if (cachedEpisodes <= episodeCapacity || oldest === showId) break;
    byShow.delete(oldest);
    cachedEpisodes -= evicted.length;
  }
}

/** Placeholders per query: under SQLite's and PostgreSQL's limits with room to spare. */
const batchSize = 5_000;

async function loadEpisodes(showIds: number[]): Promise<Map<number, CatalogEpisodeRow[]>> {
  const byShowId = new Map<number, CatalogEpisodeRow[]>();
  for (let start = 0; start < showIds.length; start += batchSize) {
    const batch = showIds.slice(start, start + batchSize);
    const rows = await fastReader().rows(
      `SELECT "showId", "id", "season", "number", "title", "airDate" FROM "Episode"
       WHERE "showId" IN (${batch.map(() => '?').join(', ')})`,
      batch,
    );
    for (const [showId, id, season, number, title, airDate] of rows) {
      const key = Number(showId);
      let list = byShowId.get(key);
      if (!list) byShowId.set(key, (list = []));
      list.push({ id: Number(id), season: Number(season), number: Number(number), title: title as string | null, airDate: airDate as string | null });
    }
  }
  return byShowId;
}
