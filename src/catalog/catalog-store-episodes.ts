import { chunks, prismaListValues } from '../db/limits.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { episodeIdSources, idColumn, type CatalogRecord, type EpisodeIds, type ExternalIds } from './provider.ts';

/**
 * The episodes side of storeCatalogRecords (catalog-store.ts): a show's episodes are matched by
 * (season, number), never deleted, updated only where the title or air date changed, and gain
 * the episode ids (tvdb, tmdb, imdb) they lack unless another episode has them.
 */

/** A catalog item's text columns by name. */
export type Fields = Record<string, string | number | null>;

/** What storeCatalogRecords (catalog-store.ts) plans for one item: its row, ids, text and episodes. */
export interface ItemPlan {
  id?: number;
  ids: ExternalIds;
  fields: Fields;
  /** As loaded from the database (`owner`: its ownerAccountId); undefined for a row still to create. */
  stored?: { ids: ExternalIds; fields: Fields; owner: number | null };
  /** A record matched this unconfirmed import row: it becomes shared (catalog-store.ts). */
  confirmed?: boolean;
  episodes: Map<string, EpisodePlan>;
  /** Set once the show's stored episodes are in `episodes`. */
  episodesLoaded: boolean;
}

const episodeKey = (season: number, number: number) => `${season}:${number}`;

/** An episode of a show's plan: as stored (when it is) and as the records say. */
export interface EpisodePlan {
  id?: number;
  season: number;
  number: number;
  title: string | null;
  airDate: string | null;
  /** Minutes, or null while unknown. */
  runtime: number | null;
  /** The episode's ids: stored ones, plus ones a record adds where none is stored. */
  ids: EpisodeIds;
  stored?: { title: string | null; airDate: string | null; runtime: number | null; ids: EpisodeIds };
}

/** Merges the records' episodes into their shows' plans, loading stored episodes first. */
export async function planEpisodes(client: Prisma.TransactionClient, records: CatalogRecord[], positions: number[], plans: ItemPlan[]) {
  const toLoad = new Map<number, ItemPlan>();
  for (const position of positions) {
    const plan = plans[position]!;
    const record = records[position]!;
    const hasEpisodes = record.kind === 'show' && record.episodes.length > 0;
    if (hasEpisodes && !plan.episodesLoaded && plan.id !== undefined) toLoad.set(plan.id, plan);
  }
  for (const part of chunks([...toLoad.keys()], prismaListValues)) {
    const stored = await client.episode.findMany({
      where: { showId: { in: part } },
      select: { id: true, showId: true, season: true, number: true, title: true, airDate: true, runtime: true, tvdbId: true, tmdbId: true, imdbId: true },
    });
    for (const episode of stored) {
      const { id, season, number, title, airDate, runtime } = episode;
      const ids = storedEpisodeIds(episode);
      const plan = { id, season, number, title, airDate, runtime, ids, stored: { title, airDate, runtime, ids: { ...ids } } };
      toLoad.get(episode.showId)!.episodes.set(episodeKey(season, number), plan);
    }
  }
  for (const plan of toLoad.values()) plan.episodesLoaded = true;

  // Episode ids are unique: one another stored episode (or an earlier record here) has stays
  // there; a catalog that moved an episode id is not followed, like item ids.
  const owned = await episodeIdOwners(client, records, positions);
  for (const position of positions) {
    const record = records[position]!;
    if (record.kind !== 'show') continue;
    const episodes = plans[position]!.episodes;
    for (const { season, number, title, airDate, runtime, ids } of record.episodes) {
      const key = episodeKey(season, number);
      let plan = episodes.get(key);
      // A provider that does not say the runtime (undefined) leaves the known one.
      if (plan) Object.assign(plan, { title, airDate, runtime: runtime === undefined ? plan.runtime : runtime });
      else episodes.set(key, (plan = { season, number, title, airDate, runtime: runtime ?? null, ids: {} }));
      for (const source of episodeIdSources) {
        const id = ids?.[source];
        const claim = `${source}:${id}`;
        if (id === undefined || plan.ids[source] !== undefined || owned.has(claim)) continue;
        (plan.ids as Record<string, unknown>)[source] = id;
        owned.add(claim);
      }
    }
  }
}

function storedEpisodeIds(row: { tvdbId: number | null; tmdbId: number | null; imdbId: string | null }): EpisodeIds {
  const ids: EpisodeIds = {};
  if (row.tvdbId !== null) ids.tvdb = row.tvdbId;
  if (row.tmdbId !== null) ids.tmdb = row.tmdbId;
  if (row.imdbId !== null) ids.imdb = row.imdbId;
  return ids;
}

/** `source:id` of every episode id the records carry that a stored episode already has. */
async function episodeIdOwners(client: Prisma.TransactionClient, records: CatalogRecord[], positions: number[]): Promise<Set<string>> {
  const owned = new Set<string>();
  for (const source of episodeIdSources) {
    const wanted = [
      ...new Set(positions.flatMap((position) => {
        const record = records[position]!;
        return record.kind === 'show' ? record.episodes.flatMap((episode) => episode.ids?.[source] ?? []) : [];
      })),
    ];
    for (const part of chunks(wanted, prismaListValues)) {
      const rows = await client.episode.findMany({ where: { [idColumn[source]]: { in: part } }, select: { tvdbId: true, tmdbId: true, imdbId: true } });
      for (const row of rows) owned.add(`${source}:${row[idColumn[source]]}`);
    }
  }
  return owned;
}

/** Creates new episodes in bulk and updates the ones whose title, air date or runtime changed. */
export async function writeEpisodes(client: Prisma.TransactionClient, shows: Set<ItemPlan>): Promise<number> {
  const fresh: Prisma.EpisodeCreateManyInput[] = [];
  let changes = 0;
  const idData = (ids: EpisodeIds) => ({ tvdbId: ids.tvdb ?? null, tmdbId: ids.tmdb ?? null, imdbId: ids.imdb ?? null });
  for (const show of shows) {
    for (const episode of show.episodes.values()) {
      const { season, number, title, airDate, runtime, ids } = episode;
      if (!episode.stored) {
        fresh.push({ showId: show.id!, season, number, title, airDate, runtime, ...idData(ids) });
        episode.stored = { title, airDate, runtime, ids: { ...ids } };
        continue;
      }
      const gained = episodeIdSources.some((source) => episode.stored!.ids[source] !== ids[source]);
      if (episode.stored.title !== title || episode.stored.airDate !== airDate || episode.stored.runtime !== runtime || gained) {
        await client.episode.update({ where: { id: episode.id! }, data: { title, airDate, runtime, ...(gained ? idData(ids) : {}) } });
        episode.stored = { title, airDate, runtime, ids: { ...ids } };
        changes += 1;
      }
    }
  }
  for (const part of chunks(fresh, prismaListValues)) changes += (await client.episode.createMany({ data: part })).count;
  return changes;
}

