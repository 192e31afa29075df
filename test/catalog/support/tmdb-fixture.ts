import type { Answer, SeenRequest } from './catalog-server.ts';

/** A show as the fixture TMDB serves it; `seasons` maps season numbers to their episodes. */
export interface TmdbShow {
  id: number;
  name: string;
  poster_path: string | null;
  overview: string;
  tvdbId?: number;
  seasons: Record<number, { episode_number: number; name: string; air_date: string | null }[]>;
}

export interface TmdbMovie {
  id: number;
  title: string;
  release_date: string;
  poster_path: string | null;
  overview: string;
}

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
      const external = request.query.get('append_to_response') === 'external_ids' ? { external_ids: { imdb_id: null, tvdb_id: found.tvdbId ?? null } } : {};
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
          episodes: episodes.map((episode, index) => ({ id: index + 1, season_number: season, show_id: Number(parts[1]), overview: '', runtime: null, ...episode })),
        },
      };
    }
    if (parts[0] === 'movie' && parts.length === 2) {
      const movie = data.movies.find((candidate) => String(candidate.id) === parts[1]);
      return movie ? { json: { ...movie, original_title: movie.title, status: 'Released', runtime: 100 } } : notFound;
    }
    if (parts[0] === 'find' && request.query.get('external_source') === 'tvdb_id') {
      const found = data.shows.filter((candidate) => String(candidate.tvdbId) === parts[1]);
      const results = found.map(({ id, name, poster_path, overview }) => ({ id, name, poster_path, overview }));
      return { json: { movie_results: [], person_results: [], tv_results: results, tv_episode_results: [], tv_season_results: [] } };
    }
    if (parts[0] === 'search' && (parts[1] === 'tv' || parts[1] === 'movie')) {
      const query = (request.query.get('query') ?? '').toLowerCase();
      const results =
        parts[1] === 'tv'
          ? data.shows.filter((item) => item.name.toLowerCase().includes(query)).map(({ id, name, poster_path, overview }) => ({ id, name, original_name: name, poster_path, overview, first_air_date: '' }))
          : data.movies.filter((item) => item.title.toLowerCase().includes(query)).map((movie) => ({ ...movie, original_title: movie.title }));
      return { json: { page: 1, results, total_pages: 1, total_results: results.length } };
    }
    return notFound;
  };
}
