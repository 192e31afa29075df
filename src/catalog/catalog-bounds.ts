import { catalogLengths, maxIntColumn } from '../limits.ts';
import { isCatalogDate, isIntColumnCount, isIntColumnId, isPosterUrl, quoted, shortenText } from '../value-bounds.ts';
import { isImdbId } from './catalog-file-schema.ts';
import { episodeIdSources, hasMatchableId, type CatalogEpisode, type CatalogProvider, type CatalogRecord, type EpisodeIds, type ExternalIds } from './provider.ts';

/**
 * Catalog records brought within the bounds of src/limits.ts on their way to the catalog store.
 * Catalog rows are shared by every account, so an odd value from a catalog must not reach anyone's
 * feeds, calendar or search, yet a real item must not be lost over one odd value either:
 * - text longer than its limit (titles, episode titles, overviews) is shortened to the limit,
 *   ending in "…" (shortenText: cut between code points);
 * - an optional value that is out of bounds is dropped to null: a poster that is not an http(s)
 *   URL or is too long, an air or release date outside catalogDateRange;
 * - an episode whose season or number is outside 0…maxIntColumn is left out;
 * - an id outside 1…maxIntColumn (an IMDb id not `tt` + 1–10 digits) is dropped, on items and
 *   episodes alike, and an item left without an id its kind is made from (sourcesByKind) is
 *   refused (it could neither be stored nor refreshed).
 * Each episode left out and each item refused is logged at warn, once per record.
 *
 * The offline file is held to the same bounds by its schema (catalog-file-schema.ts), which
 * refuses the file instead: an operator's file is fixed by its operator.
 */
export function boundCatalogRecord(record: CatalogRecord, provider: string, warn: (message: string) => void): CatalogRecord | null {
  const ids = boundIds(record.ids) as ExternalIds;
  const name = `${record.kind} ${quoted(record.title)}`;
  if (!hasMatchableId({ kind: record.kind, ids })) {
    warn(`catalog provider ${provider}: refused ${name}: no id from 1 to ${maxIntColumn} (${JSON.stringify(record.ids)})`);
    return null;
  }
  const shared = {
    ids,
    title: shortenText(record.title, catalogLengths.title),
    poster: record.poster !== null && isPosterUrl(record.poster) ? record.poster : null,
    overview: record.overview === null ? null : shortenText(record.overview, catalogLengths.overview),
  };
  if (record.kind !== 'show') return { ...record, ...shared, releaseDate: boundDate(record.releaseDate) };
  return { ...record, ...shared, episodes: boundEpisodes(record.episodes, `${name} ${JSON.stringify(ids)}`, provider, warn) };
}

/**
 * `episodes` within bounds (boundCatalogRecord's rules), those whose season or number is out of
 * bounds left out, logged once for `name`.
 */
export function boundEpisodes(episodes: CatalogEpisode[], name: string, provider: string, warn: (message: string) => void): CatalogEpisode[] {
  const kept: CatalogEpisode[] = [];
  let leftOut = 0;
  for (const episode of episodes) {
    if (!isIntColumnCount(episode.season) || !isIntColumnCount(episode.number)) {
      leftOut += 1;
      continue;
    }
    const title = episode.title === null ? null : shortenText(episode.title, catalogLengths.title);
    const bounded: CatalogEpisode = { season: episode.season, number: episode.number, title, airDate: boundDate(episode.airDate) };
    const episodeIds = boundIds(episode.ids ?? {}) as EpisodeIds;
    if (episodeIdSources.some((source) => episodeIds[source] !== undefined)) bounded.ids = episodeIds;
    kept.push(bounded);
  }
  if (leftOut > 0) warn(`catalog provider ${provider}: ${name}: left out ${leftOut} episode(s) whose season or number is not from 0 to ${maxIntColumn}`);
  return kept;
}

/** The ids within bounds: IMDb ids of the form `tt` + digits, the others 1…maxIntColumn; the rest dropped. */
function boundIds(ids: ExternalIds | EpisodeIds): Record<string, number | string> {
  const kept: Record<string, number | string> = {};
  for (const [source, id] of Object.entries(ids) as [string, unknown][]) {
    if (source === 'imdb' ? isImdbId(id) : typeof id === 'number' && isIntColumnId(id)) kept[source] = id as number | string;
  }
  return kept;
}

function boundDate(date: string | null): string | null {
  return date !== null && isCatalogDate(date) ? date : null;
}

/**
 * `provider` with every record it answers brought within bounds (boundCatalogRecord): what the
 * catalog service asks, so every record that reaches the catalog store, a search ranking or a
 * lookup's answer has passed it.
 */
export function withCatalogBounds(provider: CatalogProvider, warn: (message: string) => void): CatalogProvider {
  const bound = (records: CatalogRecord[]) => records.flatMap((record) => boundCatalogRecord(record, provider.name, warn) ?? []);
  const listAll = provider.listAll?.bind(provider);
  const resolveId = provider.resolveId?.bind(provider);
  const locateEpisode = provider.locateEpisode?.bind(provider);
  const season = provider.season?.bind(provider);
  const imageOrigins = provider.imageOrigins?.bind(provider);
  return {
    name: provider.name,
    ...(imageOrigins ? { imageOrigins } : {}),
    ...(provider.local ? { local: true } : {}),
    lookup: async (kind, source, externalId) => {
      const record = await provider.lookup(kind, source, externalId);
      return record === null ? null : boundCatalogRecord(record, provider.name, warn);
    },
    search: async (query, kind, options) => bound(await provider.search(query, kind, options)),
    refresh: async (items) => bound(await provider.refresh(items)),
    ...(listAll ? { listAll: async () => bound(await listAll()) } : {}),
    ...(resolveId
      ? {
          resolveId: async (query: Parameters<typeof resolveId>[0]) => {
            const record = await resolveId(query);
            return record === null ? null : boundCatalogRecord(record, provider.name, warn);
          },
        }
      : {}),
    ...(locateEpisode
      ? {
          locateEpisode: async (query: Parameters<typeof locateEpisode>[0]) => {
            const location = await locateEpisode(query);
            const show = location && (boundIds(location.show) as ExternalIds);
            if (!location || !show || !hasMatchableId({ kind: 'show', ids: show })) return null;
            const [episode] = boundEpisodes([location.episode], `episode ${query.source} ${query.id}`, provider.name, warn);
            return episode ? { show, episode } : null;
          },
        }
      : {}),
    ...(season
      ? {
          season: async (show: ExternalIds, number: number) => {
            const episodes = await season(show, number);
            return episodes === null ? null : boundEpisodes(episodes, `show ${JSON.stringify(show)} season ${number}`, provider.name, warn);
          },
        }
      : {}),
  };
}
