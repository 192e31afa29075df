import { CatalogHttpError, createCatalogHttp, type CatalogHttpOptions } from './http-client.ts';
import { count, expectObject, httpUrl, localDate, objects, positiveId, text, type JsonObject } from './json-fields.ts';
import { isImdbId } from './catalog-file-schema.ts';
import { catalogRuntime } from '../value-bounds.ts';
import type { CatalogEpisode, CatalogMovie, CatalogProvider, CatalogShow, EpisodeLocation, EpisodeQuery, IdQuery, MediaKind, RefreshItem, SearchOptions } from './provider.ts';
import { originsOf } from './image-origins.ts';
import { refreshEach } from './refresh-each.ts';

/**
 * TMDB v3 (shared/reference/import-formats.md 5a): shows with their episodes (one request per
 * season, season 0 = specials) and tvdb ids, movies with their release date. TMDB's soft ceiling
 * is "around 40 requests per second"; we stay at 35.
 */

export interface TmdbOptions {
  /** A v3 API key (sent as `api_key`) or a v4 read access token (a JWT, sent as Bearer). */
  apiKey: string;
  baseUrl: string;
  /** Prefix of poster URLs, such as https://image.tmdb.org/t/p/w500. */
  imageBaseUrl: string;
  /** Overrides of the HTTP client's defaults (tests shorten delays). */
  http?: Partial<CatalogHttpOptions>;
  /** Where a refresh reports an item it skipped (the server's logger); silent when not given. */
  warn?: (message: string) => void;
}

export const tmdbRequestsPerSecond = 35;

/** Most search results taken from TMDB's first page (it pages by 20). */
const searchPageResults = 20;

export function createTmdbProvider(options: TmdbOptions): CatalogProvider {
  const http = createCatalogHttp({ provider: 'tmdb', requestsPerSecond: tmdbRequestsPerSecond, secrets: [options.apiKey], ...options.http });
  // v4 read access tokens are JWTs; v3 keys are 32 hex characters.
  const bearer = options.apiKey.startsWith('eyJ');

  async function get(path: string, query: Record<string, string> = {}): Promise<JsonObject | null> {
    const url = new URL(`${options.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    if (!bearer) url.searchParams.set('api_key', options.apiKey);
    const headers: Record<string, string> = bearer ? { authorization: `Bearer ${options.apiKey}` } : {};
    try {
      return expectObject(await http.json({ url, headers }), 'tmdb', `the answer of ${path}`);
    } catch (error) {
      if (error instanceof CatalogHttpError && error.status === 404) return null;
      throw error;
    }
  }

  const poster = (item: JsonObject) => {
    const path = text(item.poster_path);
    return path === null ? null : httpUrl(`${options.imageBaseUrl}${path.startsWith('/') ? '' : '/'}${path}`);
  };

  const showFields = (item: JsonObject, id: number): CatalogShow | null => {
    const title = text(item.name) ?? text(item.original_name);
    return title === null ? null : { kind: 'show', ids: { tmdb: id }, title, poster: poster(item), overview: text(item.overview), episodes: [] };
  };

  const movieFields = (item: JsonObject, id: number): CatalogMovie | null => {
    const title = text(item.title) ?? text(item.original_title);
    if (title === null) return null;
    // Details carry `runtime` (minutes, 0 when unknown); search results do not, and leave the stored one.
    return { kind: 'movie', ids: { tmdb: id }, title, poster: poster(item), overview: text(item.overview), releaseDate: localDate(item.release_date), ...catalogRuntime(item.runtime) };
  };

  async function seasonEpisodes(showId: number, number: number): Promise<CatalogEpisode[]> {
    const answer = await get(`/tv/${showId}/season/${number}`);
    return objects(answer?.episodes).flatMap((episode) => {
      const seasonNumber = count(episode.season_number) ?? number;
      const episodeNumber = positiveId(episode.episode_number);
      if (episodeNumber === undefined) return [];
      const found: CatalogEpisode = { season: seasonNumber, number: episodeNumber, title: text(episode.name), airDate: localDate(episode.air_date), ...catalogRuntime(episode.runtime) };
      const tmdb = positiveId(episode.id);
      if (tmdb !== undefined) found.ids = { tmdb };
      return [found];
    });
  }

  async function show(id: number): Promise<CatalogShow | null> {
    const answer = await get(`/tv/${id}`, { append_to_response: 'external_ids' });
    if (!answer) return null;
    const record = showFields(answer, id);
    if (!record) return null;
    const externalIds = objects([answer.external_ids])[0];
    const tvdb = positiveId(externalIds?.tvdb_id);
    if (tvdb !== undefined) record.ids.tvdb = tvdb;
    const imdb = externalIds?.imdb_id;
    if (isImdbId(imdb)) record.ids.imdb = imdb;
    const seasons = [...new Set(objects(answer.seasons).flatMap((entry) => count(entry.season_number) ?? []))];
    const episodes = await Promise.all(seasons.map((number) => seasonEpisodes(id, number)));
    record.episodes = episodes.flat();
    return record;
  }

  async function movie(id: number): Promise<CatalogMovie | null> {
    const answer = await get(`/movie/${id}`);
    const record = answer ? movieFields(answer, id) : null;
    if (record && isImdbId(answer!.imdb_id)) record.ids.imdb = answer!.imdb_id;
    return record;
  }

  /**
   * /find by an imdb or tvdb id (reference 5a): a show or movie, the record with that id. Episodes
   * are found by locateEpisode instead, so that the catalog service fetches their show only when
   * the store lacks it.
   */
  async function resolveId(query: IdQuery): Promise<CatalogShow | CatalogMovie | null> {
    if ((query.source !== 'imdb' && query.source !== 'tvdb') || (query.kind !== 'show' && query.kind !== 'movie')) return null;
    const answer = await get(`/find/${encodeURIComponent(String(query.id))}`, { external_source: `${query.source}_id` });
    const id = positiveId(objects(query.kind === 'show' ? answer?.tv_results : answer?.movie_results)[0]?.id);
    const record = id === undefined ? null : query.kind === 'show' ? await show(id) : await movie(id);
    if (record) (record.ids as Record<string, unknown>)[query.source] ??= query.id;
    return record;
  }

  /**
   * An episode by its imdb or tvdb id: one /find (reference 5a), whose episode result names its
   * show's TMDB id, season and number; the episode carries the id it was found by and its own.
   */
  async function locateEpisode(query: EpisodeQuery): Promise<EpisodeLocation | null> {
    if (query.source !== 'imdb' && query.source !== 'tvdb') return null;
    const answer = await get(`/find/${encodeURIComponent(String(query.id))}`, { external_source: `${query.source}_id` });
    const found = objects(answer?.tv_episode_results)[0];
    const showId = positiveId(found?.show_id);
    const season = count(found?.season_number);
    const number = positiveId(found?.episode_number);
    if (showId === undefined || season === undefined || number === undefined) return null;
    const tmdb = positiveId(found!.id);
    return {
      show: { tmdb: showId },
      episode: { season, number, title: text(found!.name), airDate: localDate(found!.air_date), ids: { ...(tmdb === undefined ? {} : { tmdb }), [query.source]: query.id } },
    };
  }

  /** The TMDB id of the show TheTVDB knows as `tvdbId`, via /find. */
  async function showIdByTvdb(tvdbId: number): Promise<number | undefined> {
    const answer = await get(`/find/${tvdbId}`, { external_source: 'tvdb_id' });
    return positiveId(objects(answer?.tv_results)[0]?.id);
  }

  async function search(kind: 'show' | 'movie', query: string, year?: number) {
    // A movie's year narrows the search to films first released then (reference 5a).
    const narrowed: Record<string, string> = kind === 'movie' && year !== undefined && Number.isInteger(year) && year > 0 ? { primary_release_year: String(year) } : {};
    const answer = await get(kind === 'show' ? '/search/tv' : '/search/movie', { query, include_adult: 'false', ...narrowed });
    return objects(answer?.results)
      .slice(0, searchPageResults)
      .flatMap((item) => {
        const id = positiveId(item.id);
        const record = id === undefined ? null : kind === 'show' ? showFields(item, id) : movieFields(item, id);
        return record ? [record] : [];
      });
  }

  async function lookupShow(ids: RefreshItem['ids']): Promise<CatalogShow | null> {
    if (ids.tmdb !== undefined) return show(ids.tmdb);
    const tmdb = ids.tvdb === undefined ? undefined : await showIdByTvdb(ids.tvdb);
    const record = tmdb === undefined ? null : await show(tmdb);
    // /find matched on this tvdb id, so it belongs to the record even if external_ids lacks it.
    if (record && ids.tvdb !== undefined) record.ids.tvdb ??= ids.tvdb;
    return record;
  }

  const imageOrigins = originsOf([options.imageBaseUrl]);
  return {
    name: 'tmdb',
    imageOrigins: () => imageOrigins,
    async lookup(kind, source, externalId) {
      if (kind === 'show' && (source === 'tmdb' || source === 'tvdb')) return lookupShow({ [source]: externalId });
      if (kind === 'movie' && source === 'tmdb') return movie(externalId);
      return null;
    },
    async search(query, kind?: MediaKind, options?: SearchOptions) {
      const kinds = kind === undefined ? (['show', 'movie'] as const) : kind === 'game' ? [] : [kind];
      return (await Promise.all(kinds.map((wanted) => search(wanted, query, options?.year)))).flat();
    },
    resolveId,
    locateEpisode,
    /** One season of a show: /tv/{id}/season/{n}, one request (a /find first for a show known by its tvdb id only). */
    async season(ids, number) {
      const id = ids.tmdb ?? (ids.tvdb === undefined ? undefined : await showIdByTvdb(ids.tvdb));
      return id === undefined ? null : seasonEpisodes(id, number);
    },
    async refresh(items) {
      const known = items.filter((item) => (item.kind === 'show' && (item.ids.tmdb ?? item.ids.tvdb) !== undefined) || (item.kind === 'movie' && item.ids.tmdb !== undefined));
      return refreshEach('tmdb', known, (item) => (item.kind === 'show' ? lookupShow(item.ids) : movie(item.ids.tmdb!)), options.warn ?? (() => {}));
    },
  };
}
