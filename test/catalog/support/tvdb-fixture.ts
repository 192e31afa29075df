import type { Answer, SeenRequest } from './catalog-peer.ts';

export interface TvdbSeries {
  id: number;
  name: string;
  image: string | null;
  overview: string | null;
  tmdbId?: number;
  imdbId?: string;
  /** An episode's `id` defaults to series id × 1000 + its position + 1. */
  episodes: { seasonNumber: number; number: number; name: string | null; aired: string | null; runtime?: number | null; id?: number }[];
}

const episodeIdOf = (series: TvdbSeries, index: number) => series.episodes[index]!.id ?? series.id * 1000 + index + 1;

/**
 * Answers like TheTVDB v4 (import-formats.md 5b) from `data`. POST /login with `apiKey` (and
 * `pin` when given) issues a new token each time; `revokeTokens` makes the issued ones answer 401,
 * as an expired token would. Episodes come `pageSize` per page so paging is exercised.
 */
export function tvdbFixture(data: { series: TvdbSeries[] }, apiKey: string, pin?: string, pageSize = 2) {
  const valid = new Set<string>();
  const logins: unknown[] = [];
  const route = (request: SeenRequest): Answer => {
    if (request.method === 'POST' && request.path === '/login') {
      const body = JSON.parse(request.body) as { apikey?: string; pin?: string };
      logins.push(body);
      if (body.apikey !== apiKey || body.pin !== pin) return { status: 401, json: { status: 'failure', message: 'InvalidAPIKey', data: null } };
      const token = `tvdb-token-${logins.length}`;
      valid.add(token);
      return { json: { status: 'success', data: { token } } };
    }
    if (!valid.has((request.headers.authorization ?? '').replace(/^Bearer /, ''))) return { status: 401, json: { status: 'failure', message: 'Unauthorized' } };
    const parts = request.path.split('/').filter(Boolean);
    const series = data.series.find((candidate) => String(candidate.id) === parts[1]);
    const remoteIds = (item: TvdbSeries) => [
      ...(item.tmdbId === undefined ? [] : [{ id: String(item.tmdbId), type: 12, sourceName: 'TheMovieDB.com' }]),
      ...(item.imdbId === undefined ? [] : [{ id: item.imdbId, type: 2, sourceName: 'IMDB' }]),
    ];
    if (parts[0] === 'episodes' && parts.length === 2) {
      for (const candidate of data.series) {
        const index = candidate.episodes.findIndex((_, position) => String(episodeIdOf(candidate, position)) === parts[1]);
        if (index < 0) continue;
        const episode = candidate.episodes[index]!;
        return { json: { status: 'success', data: { id: episodeIdOf(candidate, index), seriesId: candidate.id, name: episode.name, aired: episode.aired, seasonNumber: episode.seasonNumber, number: episode.number } } };
      }
      return { status: 404, json: { status: 'failure', message: 'NotFoundException' } };
    }
    if (parts[0] === 'search' && parts[1] === 'remoteid') {
      const found = data.series.filter((candidate) => candidate.imdbId === parts[2]);
      return { json: { status: 'success', data: found.map((candidate) => ({ series: { id: candidate.id, name: candidate.name } })) } };
    }
    if (parts[0] === 'series' && parts[2] === 'extended') {
      if (!series) return { status: 404, json: { status: 'failure', message: 'NotFoundException' } };
      const { id, name, image, overview } = series;
      return { json: { status: 'success', data: { id, name, image, overview, slug: 'x', remoteIds: remoteIds(series), status: { id: 1, name: 'Continuing' } } } };
    }
    if (parts[0] === 'series' && parts[2] === 'episodes' && parts[3] === 'default') {
      if (!series) return { status: 404, json: { status: 'failure', message: 'NotFoundException' } };
      const page = Number(request.query.get('page') ?? '0');
      // `season` narrows the list to one season (reference 5b).
      const season = request.query.get('season');
      const listed = series.episodes.flatMap((episode, position) => (season === null || String(episode.seasonNumber) === season ? [{ ...episode, id: episodeIdOf(series, position) }] : []));
      const slice = listed.slice(page * pageSize, (page + 1) * pageSize);
      const more = (page + 1) * pageSize < listed.length;
      const episodes = slice.map((episode) => ({ seriesId: series.id, overview: null, runtime: null, isMovie: 0, ...episode }));
      const next = more ? `https://api4.thetvdb.com/v4/series/${series.id}/episodes/default?page=${page + 1}` : null;
      return { json: { status: 'success', data: { series: { id: series.id, name: series.name }, episodes }, links: { prev: null, self: 'x', next, total_items: listed.length, page_size: pageSize } } };
    }
    if (parts[0] === 'search' && request.query.get('type') === 'series') {
      const query = (request.query.get('query') ?? '').toLowerCase();
      const found = data.series.filter((item) => item.name.toLowerCase().includes(query));
      return {
        json: {
          status: 'success',
          data: found.map((item) => ({
            objectID: `series-${item.id}`,
            id: `series-${item.id}`,
            tvdb_id: String(item.id),
            name: item.name,
            translations: { eng: item.name },
            overviews: item.overview === null ? {} : { eng: item.overview },
            image_url: item.image,
            remote_ids: remoteIds(item),
          })),
        },
      };
    }
    return { status: 404, json: { status: 'failure', message: 'NotFound' } };
  };
  return { route, logins, revokeTokens: () => valid.clear() };
}
