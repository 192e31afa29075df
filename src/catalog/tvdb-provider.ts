import { createCachedToken } from './cached-token.ts';
import { catalogRuntime } from '../value-bounds.ts';
import { CatalogHttpError, createCatalogHttp, systemClock, type CatalogHttpOptions } from './http-client.ts';
import { count, expectObject, httpUrl, isObject, localDate, objects, positiveId, text, type JsonObject } from './json-fields.ts';
import { isImdbId } from './catalog-file-schema.ts';
import type { CatalogEpisode, CatalogProvider, CatalogShow, ExternalIds } from './provider.ts';
import { refreshEach } from './refresh-each.ts';

/**
 * TheTVDB v4 (shared/reference/import-formats.md 5b): shows only. POST /login gives a bearer
 * token valid for a month; we keep it for 25 days and log in again on a 401. TheTVDB publishes no
 * rate limit, so we stay conservative at 20 requests per second.
 *
 * Lookup by a tmdb id returns null: the reference documents /search/remoteid for IMDb ids only,
 * and a bare number is ambiguous there (TMDB's movie and TV ids overlap), so TMDB answers those.
 */

export interface TvdbOptions {
  apiKey: string;
  /** Subscriber PIN, for user-supported keys. */
  pin: string | undefined;
  baseUrl: string;
  /** Overrides of the HTTP client's defaults (tests shorten delays). */
  http?: Partial<CatalogHttpOptions>;
  /** Where a refresh reports an item it skipped (the server's logger); silent when not given. */
  warn?: (message: string) => void;
}

export const tvdbRequestsPerSecond = 20;
const tokenLifetimeMs = 25 * 24 * 3600 * 1000;
/** Safety stop for episode paging (pages hold 100–500 episodes). */
const maxEpisodePages = 200;
/** TheTVDB sometimes answers artwork as a path on this host (translated endpoints). */
const artworkHost = 'https://artworks.thetvdb.com';

export function createTvdbProvider(options: TvdbOptions): CatalogProvider {
  const http = createCatalogHttp({
    provider: 'tvdb',
    requestsPerSecond: tvdbRequestsPerSecond,
    secrets: [options.apiKey, ...(options.pin === undefined ? [] : [options.pin])],
    ...options.http,
  });

  const token = createCachedToken(async () => {
    const body = JSON.stringify(options.pin === undefined ? { apikey: options.apiKey } : { apikey: options.apiKey, pin: options.pin });
    const answer = await http.json({ method: 'POST', url: new URL(`${options.baseUrl}/login`), headers: { 'content-type': 'application/json' }, body });
    const issued = isObject(answer) && isObject(answer.data) ? text(answer.data.token) : null;
    if (issued === null) throw new CatalogHttpError('tvdb POST /login: the answer has no data.token', 'tvdb', undefined);
    return { token: issued, lifetimeMs: tokenLifetimeMs };
  }, options.http?.clock ?? systemClock);

  /** GET `path` with the token; null for a 404. */
  async function get(path: string, query: Record<string, string> = {}): Promise<JsonObject | null> {
    const url = new URL(`${options.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    try {
      const answer = await token.use((bearer) => http.json({ url, headers: { authorization: `Bearer ${bearer}` } }));
      return expectObject(answer, 'tvdb', `the answer of ${path}`);
    } catch (error) {
      if (error instanceof CatalogHttpError && error.status === 404) return null;
      throw error;
    }
  }

  const image = (value: unknown) => {
    const path = text(value);
    return path === null ? null : httpUrl(path.startsWith('/') ? `${artworkHost}${path}` : path);
  };

  /** The tmdb id among TheTVDB's remote ids (`remoteIds` on records, `remote_ids` in search). */
  const tmdbIdOf = (remoteIds: unknown): number | undefined =>
    objects(remoteIds)
      .filter((remote) => /themoviedb/i.test(String(remote.sourceName ?? '')))
      .map((remote) => positiveId(remote.id))
      .find((id) => id !== undefined);

  const withIds = (tvdb: number, tmdb: number | undefined): ExternalIds => (tmdb === undefined ? { tvdb } : { tvdb, tmdb });

  /** The series' episodes (of one season when `season` is given), page after page. */
  async function episodes(id: number, season?: number): Promise<CatalogEpisode[]> {
    const found: CatalogEpisode[] = [];
    const onlySeason: Record<string, string> = season === undefined ? {} : { season: String(season) };
    for (let page = 0; page < maxEpisodePages; page += 1) {
      const answer = await get(`/series/${id}/episodes/default`, { page: String(page), ...onlySeason });
      const list = objects(isObject(answer?.data) ? answer.data.episodes : undefined);
      for (const episode of list) {
        const seasonNumber = count(episode.seasonNumber);
        const number = positiveId(episode.number);
        if (seasonNumber === undefined || number === undefined || (season !== undefined && seasonNumber !== season)) continue;
        const tvdb = positiveId(episode.id);
        found.push({ season: seasonNumber, number, title: text(episode.name), airDate: localDate(episode.aired), ...catalogRuntime(episode.runtime), ...(tvdb === undefined ? {} : { ids: { tvdb } }) });
      }
      const links = isObject(answer?.links) ? answer.links : {};
      if (list.length === 0 || links.next === null || links.next === undefined) break;
    }
    return found;
  }

  async function series(id: number): Promise<CatalogShow | null> {
    const answer = await get(`/series/${id}/extended`, { short: 'true' });
    const data = isObject(answer?.data) ? answer.data : undefined;
    const title = text(data?.name);
    if (!data || title === null) return null;
    const imdb = objects(data.remoteIds).find((remote) => /imdb/i.test(String(remote.sourceName ?? '')))?.id;
    return {
      kind: 'show',
      ids: { ...withIds(id, tmdbIdOf(data.remoteIds)), ...(isImdbId(imdb) ? { imdb } : {}) },
      title,
      poster: image(data.image),
      overview: text(data.overview),
      episodes: await episodes(id),
    };
  }

  return {
    name: 'tvdb',
    async lookup(kind, source, externalId) {
      return kind === 'show' && source === 'tvdb' ? series(externalId) : null;
    },
    async search(query, kind) {
      if (kind !== undefined && kind !== 'show') return [];
      const answer = await get('/search', { query, type: 'series', limit: '20' });
      return objects(answer?.data).flatMap((item): CatalogShow[] => {
        const id = positiveId(item.tvdb_id) ?? positiveId(item.id);
        const translations = isObject(item.translations) ? item.translations : {};
        const overviews = isObject(item.overviews) ? item.overviews : {};
        const title = text(translations.eng) ?? text(item.name);
        if (id === undefined || title === null) return [];
        const overview = text(overviews.eng) ?? text(item.overview);
        return [{ kind: 'show', ids: withIds(id, tmdbIdOf(item.remote_ids)), title, poster: image(item.image_url), overview, episodes: [] }];
      });
    },
    /** A series by its IMDb id through /search/remoteid/{id} (reference 5b). */
    async resolveId(query) {
      if (query.kind === 'show' && query.source === 'tvdb' && typeof query.id === 'number') return series(query.id);
      if (query.kind === 'show' && query.source === 'imdb') {
        const answer = await get(`/search/remoteid/${encodeURIComponent(String(query.id))}`);
        const match = objects(answer?.data).map((entry) => (isObject(entry.series) ? positiveId(entry.series.id) : undefined)).find((id) => id !== undefined);
        const record = match === undefined ? null : await series(match);
        if (record) record.ids.imdb ??= String(query.id);
        return record;
      }
      return null;
    },
    /**
     * An episode by its TheTVDB id (TV Time's older exports, Jellyfin's plugin): /episodes/{id}
     * names its series, season and number, in one request.
     */
    async locateEpisode(query) {
      if (query.source !== 'tvdb') return null;
      const answer = await get(`/episodes/${encodeURIComponent(String(query.id))}`);
      const data = isObject(answer?.data) ? answer.data : undefined;
      const seriesId = positiveId(data?.seriesId);
      const season = count(data?.seasonNumber);
      const number = positiveId(data?.number);
      const tvdb = positiveId(data?.id);
      if (seriesId === undefined || season === undefined || number === undefined || tvdb === undefined) return null;
      return { show: { tvdb: seriesId }, episode: { season, number, title: text(data!.name), airDate: localDate(data!.aired), ids: { tvdb } } };
    },
    /** One season's episodes: /series/{id}/episodes/default with `season` (reference 5b), usually one page. */
    async season(show, number) {
      return show.tvdb === undefined ? null : episodes(show.tvdb, number);
    },
    async refresh(items) {
      const ids = items.flatMap((item) => (item.kind === 'show' && item.ids.tvdb !== undefined ? [item.ids.tvdb] : []));
      return refreshEach('tvdb', ids, series, options.warn ?? (() => {}));
    },
  };
}
