import type { Answer, SeenRequest } from './catalog-peer.ts';

/** A show as the fixture TMDB serves it; `seasons` maps season numbers to their episodes. */
export interface TmdbShow {
  id: number;
  name: string;
  poster_path: string | null;
  overview: string;
  tvdbId?: number;
  imdbId?: string;
  /** An episode's `id` defaults to show id × 1000 + season × 100 + its index + 1; its tvdb/imdb ids only answer /find. */
  seasons: Record<number, { episode_number: number; name: string; air_date: string | null; runtime?: number | null; id?: number; tvdbId?: number; imdbId?: string }[]>;
}

/**
 * A show of `seasons` seasons of `perSeason` episodes (S1E1, S1E2, …, aired 2025-01-01), with the
 * show's TheTVDB id `tvdbId` and episode n of season s TheTVDB's `episodeTvdb(s, n)` when given
 * (both answer /find).
 */
export function seasonedShow(props: { id: number; name: string; seasons: number; perSeason: number; tvdbId?: number; episodeTvdb?: (season: number, number: number) => number }): TmdbShow {
  const seasons: TmdbShow['seasons'] = {};
  for (let season = 1; season <= props.seasons; season += 1) {
    seasons[season] = Array.from({ length: props.perSeason }, (_, index) => ({
      episode_number: index + 1,
      name: `S${season}E${index + 1}`,
      air_date: '2025-01-01',
      ...(props.episodeTvdb ? { tvdbId: props.episodeTvdb(season, index + 1) } : {}),
    }));
  }
  return { id: props.id, name: props.name, poster_path: null, overview: '', ...(props.tvdbId === undefined ? {} : { tvdbId: props.tvdbId }), seasons };
}

export interface TmdbMovie {
  id: number;
  title: string;
  release_date: string;
  poster_path: string | null;
  overview: string;
  imdb_id?: string;
  tvdbId?: number;
}

const episodeId = (show: TmdbShow, season: number, index: number) => show.seasons[season]![index]!.id ?? show.id * 1000 + season * 100 + index + 1;

const notFound: Answer = { status: 404, json: { success: false, status_code: 34, status_message: 'The resource you requested could not be found.' } };

/**
 * Answers like TMDB v3 (shapes from import-formats.md 5a) from `data`, which tests may change
 * between calls. Requests must carry `key` as api_key, or as Bearer when it is a JWT.
 */
export function tmdbRoute(data: { shows: TmdbShow[]; movies: TmdbMovie[] }, key: string) {
  return (request: SeenRequest): Answer => {
    const authorized = key.startsWith('eyJ') ? request.headers.authorization === `Bearer ${key}` : request.query.get('api_key') === key;
    if (!authorized) return { status: 401, json: { success: false, status_code: 7, status_message: 'Invalid API key: You must be granted a valid key.' } };
    const parts = request.path.split('/').filter(Boolean);
    const show = (id: string | undefined) => data.shows.find((candidate) => String(candidate.id) === id);
    if (parts[0] === 'tv' && parts.length === 2) {
      const found = show(parts[1]);
      if (!found) return notFound;
      const seasons = Object.entries(found.seasons).map(([number, episodes]) => ({
        id: found.id * 10 + Number(number),
        season_number: Number(number),
        name: Number(number) === 0 ? 'Specials' : `Season ${number}`,
        episode_count: episodes.length,
        air_date: episodes[0]?.air_date ?? null,
        poster_path: null,
      }));
      const external = request.query.get('append_to_response') === 'external_ids' ? { external_ids: { imdb_id: found.imdbId ?? null, tvdb_id: found.tvdbId ?? null } } : {};
      return {
        json: {
          id: found.id,
          name: found.name,
          original_name: found.name,
          poster_path: found.poster_path,
          overview: found.overview,
          status: 'Returning Series',
          seasons,
          next_episode_to_air: null,
          ...external,
        },
      };
    }
    if (parts[0] === 'tv' && parts[2] === 'season') {
      const episodes = show(parts[1])?.seasons[Number(parts[3])];
      if (!episodes) return notFound;
      const season = Number(parts[3]);
      return {
        json: {
          id: 1,
          season_number: season,
          episodes: episodes.map(({ tvdbId: _tvdb, imdbId: _imdb, ...episode }, index) => ({ season_number: season, show_id: Number(parts[1]), overview: '', runtime: null, ...episode, id: episodeId(show(parts[1])!, season, index) })),
        },
      };
    }
    if (parts[0] === 'movie' && parts.length === 2) {
      const movie = data.movies.find((candidate) => String(candidate.id) === parts[1]);
      return movie ? { json: { ...movie, original_title: movie.title, status: 'Released', runtime: 100 } } : notFound;
    }
    const externalSource = request.query.get('external_source');
    if (parts[0] === 'find' && (externalSource === 'tvdb_id' || externalSource === 'imdb_id')) {
      const matches = (ids: { tvdbId?: number; imdbId?: string }) => String(externalSource === 'tvdb_id' ? ids.tvdbId : ids.imdbId) === parts[1];
      const found = data.shows.filter(matches);
      const results = found.map(({ id, name, poster_path, overview }) => ({ id, name, poster_path, overview }));
      const movies = data.movies.filter((movie) => matches({ tvdbId: movie.tvdbId, imdbId: movie.imdb_id })).map(({ id, title, poster_path, overview, release_date }) => ({ id, title, poster_path, overview, release_date }));
      const episodes = data.shows.flatMap((candidate) =>
        Object.entries(candidate.seasons).flatMap(([season, list]) =>
          list.flatMap((episode, index) =>
            matches(episode) ? [{ id: episodeId(candidate, Number(season), index), show_id: candidate.id, season_number: Number(season), episode_number: episode.episode_number, name: episode.name, air_date: episode.air_date }] : [],
          ),
        ),
      );
      return { json: { movie_results: movies, person_results: [], tv_results: results, tv_episode_results: episodes, tv_season_results: [] } };
    }
    if (parts[0] === 'search' && (parts[1] === 'tv' || parts[1] === 'movie')) {
      const query = (request.query.get('query') ?? '').toLowerCase();
      // TMDB narrows a movie search to films first released in primary_release_year.
      const year = request.query.get('primary_release_year');
      const results =
        parts[1] === 'tv'
          ? data.shows.filter((item) => item.name.toLowerCase().includes(query)).map(({ id, name, poster_path, overview }) => ({ id, name, original_name: name, poster_path, overview, first_air_date: '' }))
          : data.movies.filter((item) => item.title.toLowerCase().includes(query) && (year === null || item.release_date.startsWith(`${year}-`))).map((movie) => ({ ...movie, original_title: movie.title }));
      return { json: { page: 1, results, total_pages: 1, total_results: results.length } };
    }
    return notFound;
  };
}
