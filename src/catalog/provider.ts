/**
 * What every catalog implements: the offline file now, TMDB, TheTVDB and IGDB later. Records are
 * plain data keyed by external ids; storing them (and giving them database ids) is the catalog
 * store's job, so a provider never touches the database.
 */

export type MediaKind = 'show' | 'movie' | 'game';

/** The external catalogs whose ids an item may carry. */
export type CatalogSource = 'tmdb' | 'tvdb' | 'igdb';

/**
 * Every external id an item has. A show may have tmdb and tvdb, a movie tmdb, a game igdb;
 * items are matched across catalogs by any shared id.
 */
export interface ExternalIds {
  tmdb?: number;
  tvdb?: number;
  igdb?: number;
  /** IMDb, `tt` + digits: shows and movies (real export files key items by it). */
  imdb?: string;
  /** Giant Bomb: games (older Grouvee exports know games by it only). */
  giantbomb?: number;
}

/**
 * Every id an item is matched by: the catalogs' own (CatalogSource) and the ids export files key
 * items by, which no catalog of ours is queried by directly but which TMDB's /find and IGDB's
 * external games resolve (imdb, tvdb for movies, giantbomb).
 */
export type ItemIdSource = CatalogSource | 'imdb' | 'giantbomb';

/**
 * Which ids match an item of each kind, in matching priority order: a stored row shares any one
 * of them. A row is only created with one of sourcesByKind's ids (the ones a refresh can ask a
 * catalog about); the others are carried along.
 */
export const idSourcesByKind: Readonly<Record<MediaKind, readonly ItemIdSource[]>> = {
  show: ['tmdb', 'tvdb', 'imdb'],
  movie: ['tmdb', 'tvdb', 'imdb'],
  game: ['igdb', 'giantbomb'],
};

/** The database column of each id (the same name on Show, Movie, Game and Episode). */
export const idColumn = {
  tmdb: 'tmdbId',
  tvdb: 'tvdbId',
  igdb: 'igdbId',
  imdb: 'imdbId',
  giantbomb: 'giantbombId',
} as const satisfies Record<ItemIdSource, string>;

/** An episode's own ids at the catalogs (TMDB's and TheTVDB's episode `id`, IMDb's `tt` id). */
export interface EpisodeIds {
  tvdb?: number;
  tmdb?: number;
  imdb?: string;
}

/** The episode id sources, in matching order. */
export const episodeIdSources = ['tvdb', 'tmdb', 'imdb'] as const satisfies readonly (keyof EpisodeIds)[];

/** Which external ids can identify an item of each kind, in matching priority order. */
export const sourcesByKind: Readonly<Record<MediaKind, readonly CatalogSource[]>> = {
  show: ['tmdb', 'tvdb'],
  movie: ['tmdb'],
  game: ['igdb'],
};

export interface CatalogEpisode {
  /** 0 for specials. */
  season: number;
  number: number;
  title: string | null;
  /** YYYY-MM-DD, or null while the date is unknown. */
  airDate: string | null;
  /** Running time in minutes; null: unknown; absent: this provider does not say (the stored value stays). */
  runtime?: number | null;
  /** The episode's own ids, when the catalog gives them (stored on the episode, never replacing one). */
  ids?: EpisodeIds;
}

export interface CatalogShow {
  kind: 'show';
  ids: ExternalIds;
  title: string;
  poster: string | null;
  overview: string | null;
  /**
   * The episodes this provider knows. Possibly only some of them (a search result may carry
   * none): storing never deletes episodes a record leaves out.
   */
  episodes: CatalogEpisode[];
}

export interface CatalogMovie {
  kind: 'movie';
  ids: ExternalIds;
  title: string;
  poster: string | null;
  overview: string | null;
  /** YYYY-MM-DD, or null while the date is unknown. */
  releaseDate: string | null;
  /** Running time in minutes; null: unknown; absent: this provider does not say (the stored value stays). */
  runtime?: number | null;
}

export interface CatalogGame {
  kind: 'game';
  ids: ExternalIds;
  title: string;
  poster: string | null;
  overview: string | null;
  /** YYYY-MM-DD, or null while the date is unknown. */
  releaseDate: string | null;
}

export type CatalogRecord = CatalogShow | CatalogMovie | CatalogGame;

/** Narrows a provider's search (CatalogProvider.search). */
export interface SearchOptions {
  /** The release year wanted (movies, games). */
  year?: number;
}

/** An item to refresh: its kind and every external id stored for it. */
export interface RefreshItem {
  kind: MediaKind;
  ids: ExternalIds;
}

/**
 * An id an export file keys something by, to be resolved through a catalog: an item by any of
 * its ids (idSourcesByKind), or an episode by one of its own ids.
 */
export type IdQuery =
  | { kind: MediaKind; source: ItemIdSource; id: number | string }
  | EpisodeQuery;

/** An episode by one of its own ids. */
export interface EpisodeQuery {
  kind: 'episode';
  source: keyof EpisodeIds;
  id: number | string;
}

/** Where a catalog puts an episode it knows by one of the episode's own ids (CatalogProvider.locateEpisode). */
export interface EpisodeLocation {
  /** The ids of the episode's show at this catalog: enough to look the show up. */
  show: ExternalIds;
  /** The episode as the catalog gives it, carrying the id it was found by. */
  episode: CatalogEpisode;
}

export interface CatalogProvider {
  /** Short name for logs and error messages, such as `offline` or `tmdb`. */
  readonly name: string;

  /**
   * True for a catalog read on this machine (the offline file): asking it sends no request, so its
   * answers are neither cached nor charged to a budget (catalog-lookups.ts), and it is asked
   * inline where a network catalog would be queued.
   */
  readonly local?: boolean;

  /**
   * The record this catalog holds for `source`'s id `externalId`, or null when it does not know
   * it (including a source it does not use, such as igdb for a show). Throws only when the
   * catalog itself fails (network, bad file); callers treat that as "skip this provider".
   */
  lookup(kind: MediaKind, source: CatalogSource, externalId: number): Promise<CatalogRecord | null>;

  /**
   * Items whose title matches `query`, optionally of one kind only, best matches first. Search
   * results may be shallow (a show without episodes); `refresh` fills them in later. `year` is a
   * hint a catalog may use to narrow the search (TMDB's primary_release_year); the caller still
   * checks every result's year.
   */
  search(query: string, kind?: MediaKind, options?: SearchOptions): Promise<CatalogRecord[]>;

  /**
   * The current records for `items`, fetched again (the offline file is re-read). Items this
   * catalog does not know are left out of the result, never reported as errors; the result's
   * order need not follow `items`. Throws when the catalog as a whole fails, so that a broken
   * source can never be mistaken for "everything was removed".
   */
  refresh(items: RefreshItem[]): Promise<CatalogRecord[]>;

  /**
   * Every record of the catalog, read again. Only catalogs that can enumerate themselves (the
   * offline file) have it; network catalogs are refreshed item by item instead.
   */
  listAll?(): Promise<CatalogRecord[]>;

  /**
   * The record `query` names, or null when this catalog does not know it: for an item, its
   * record (carrying the queried id); for an episode (only catalogs without locateEpisode: the
   * offline file), its show's record with its episodes, the queried one carrying that id. Only
   * catalogs that can answer such ids have it (the offline file by every id it holds, TMDB by
   * /find, TheTVDB by remote id, IGDB by Giant Bomb's id). Throws when the catalog itself fails,
   * as lookup does.
   */
  resolveId?(query: IdQuery): Promise<CatalogRecord | null>;

  /**
   * Where the episode `query` names sits: its show's ids at this catalog, its season and number,
   * in one request (TMDB's /find, TheTVDB's /episodes/{id}); null when the catalog does not know
   * it. The catalog service then fetches the show only when the store lacks it. Throws when the
   * catalog itself fails.
   */
  locateEpisode?(query: EpisodeQuery): Promise<EpisodeLocation | null>;

  /**
   * The episodes of one season of the show with `show`'s ids, as this catalog has them now (the
   * offline file's, TMDB's /tv/{id}/season/{n}, TheTVDB's episodes with `season`): what a
   * delivery of a stored show's missing season asks for, instead of the whole show. Empty when
   * the catalog has no such season, null when it does not know the show. Throws when the catalog
   * itself fails.
   */
  season?(show: ExternalIds, season: number): Promise<CatalogEpisode[] | null>;

  /**
   * The origins (`https://host`) this catalog's posters are served from beyond the network
   * catalogs' usual ones (image-origins.ts): TMDB's configured image URL, the hosts the offline
   * file's posters name (as of its last read). Imports keep posters from these only, and the web
   * pages allow images from them only.
   */
  imageOrigins?(): readonly string[];
}

/** True when `record` carries at least one id its kind is matched by (else it cannot be stored). */
export function hasMatchableId(record: { kind: MediaKind; ids: ExternalIds }): boolean {
  return sourcesByKind[record.kind].some((source) => record.ids[source] !== undefined);
}

/**
 * How well `title` matches a search: 0 exact, 1 prefix, 2 elsewhere, undefined not at all
 * (case-insensitive substring). Shared so that every catalog and the stored-row search order
 * results the same way.
 */
export function titleMatchRank(title: string, query: string): number | undefined {
  const haystack = title.toLocaleLowerCase();
  const needle = query.trim().toLocaleLowerCase();
  if (needle === '') return undefined;
  if (haystack === needle) return 0;
  if (haystack.startsWith(needle)) return 1;
  return haystack.includes(needle) ? 2 : undefined;
}

/** Items whose title matches `query`, best rank first, then by title; stable otherwise. */
export function rankByTitle<T extends { title: string }>(items: Iterable<T>, query: string): T[] {
  const ranked: { item: T; rank: number }[] = [];
  for (const item of items) {
    const rank = titleMatchRank(item.title, query);
    if (rank !== undefined) ranked.push({ item, rank });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.item.title.localeCompare(b.item.title));
  return ranked.map(({ item }) => item);
}
