import { describe, expect, it } from 'vitest';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { deadUrl, startCatalogServer } from './support/catalog-server.ts';
import { fakeClock } from './support/fake-clock.ts';
import { tmdbRoute, type TmdbMovie, type TmdbShow } from './support/tmdb-fixture.ts';

const key = '0123456789abcdef0123456789abcdef';
const image = 'https://image.tmdb.org/t/p/w500';
const fixtureShow: TmdbShow = {
  id: 990001,
  name: 'Fixture Show',
  poster_path: '/fxPoster0001.jpg',
  overview: '',
  tvdbId: 9900001,
  seasons: {
    0: [{ episode_number: 1, name: 'Holiday Special', air_date: '2024-12-20' }],
    1: [
      { episode_number: 1, name: 'Pilot', air_date: '2024-01-10' },
      { episode_number: 2, name: 'Second', air_date: '2024-01-17' },
    ],
    2: [
      { episode_number: 1, name: 'Return', air_date: '2025-01-15' },
      { episode_number: 9, name: 'Episode 9', air_date: '' },
    ],
  },
};
const fixtureMovie: TmdbMovie = { id: 700001, title: 'Fixture Film', release_date: '2019-10-04', poster_path: '/fxMovie.jpg', overview: 'A film.' };
const data = { shows: [fixtureShow], movies: [fixtureMovie] };
const server = await startCatalogServer(tmdbRoute(data, key));

const provider = (overrides: { apiKey?: string; baseUrl?: string } = {}) =>
  createTmdbProvider({ apiKey: key, baseUrl: server.url, imageBaseUrl: image, http: { clock: fakeClock(), maxAttempts: 2 }, ...overrides });

describe('TMDB provider', () => {
  it('looks a show up by tmdb id: every season (specials as 0), dates, poster and its tvdb id', async () => {
    const show = await provider().lookup('show', 'tmdb', 990001);
    expect(show).toEqual({
      kind: 'show',
      ids: { tmdb: 990001, tvdb: 9900001 },
      title: 'Fixture Show',
      poster: `${image}/fxPoster0001.jpg`,
      overview: null,
      episodes: [
        { season: 0, number: 1, title: 'Holiday Special', airDate: '2024-12-20' },
        { season: 1, number: 1, title: 'Pilot', airDate: '2024-01-10' },
        { season: 1, number: 2, title: 'Second', airDate: '2024-01-17' },
        { season: 2, number: 1, title: 'Return', airDate: '2025-01-15' },
        { season: 2, number: 9, title: 'Episode 9', airDate: null },
      ],
    });
    const detail = server.seen('/tv/990001')[0]!;
    expect(detail.query.get('append_to_response')).toBe('external_ids');
    expect(detail.query.get('api_key')).toBe(key);
  });

  it('finds a show by its tvdb id through /find', async () => {
    const show = await provider().lookup('show', 'tvdb', 9900001);
    expect(show).toMatchObject({ ids: { tmdb: 990001, tvdb: 9900001 }, title: 'Fixture Show' });
    expect(server.seen('/find/9900001')[0]!.query.get('external_source')).toBe('tvdb_id');
    expect(await provider().lookup('show', 'tvdb', 123)).toBeNull();
  });

  it('looks a movie up with its release date, and answers null for unknown ids and foreign sources', async () => {
    expect(await provider().lookup('movie', 'tmdb', 700001)).toEqual({
      kind: 'movie',
      ids: { tmdb: 700001 },
      title: 'Fixture Film',
      poster: `${image}/fxMovie.jpg`,
      overview: 'A film.',
      releaseDate: '2019-10-04',
    });
    expect(await provider().lookup('movie', 'tmdb', 4242)).toBeNull();
    expect(await provider().lookup('game', 'igdb', 1)).toBeNull();
    expect(await provider().lookup('movie', 'tvdb', 1)).toBeNull();
  });

  it('searches shows and movies (shallow records), only the kind asked for', async () => {
    const both = await provider().search('fixture');
    expect(both.map((record) => [record.kind, record.ids.tmdb, record.title])).toEqual([
      ['show', 990001, 'Fixture Show'],
      ['movie', 700001, 'Fixture Film'],
    ]);
    expect(both[0]).toMatchObject({ episodes: [], poster: `${image}/fxPoster0001.jpg` });
    const before = server.requests.length;
    expect((await provider().search('fixture', 'movie')).map((record) => record.kind)).toEqual(['movie']);
    expect(await provider().search('fixture', 'game')).toEqual([]);
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/search/movie']);
  });

  it('sends a v4 read token as Bearer, not as api_key', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.fixture.token';
    const bearerServer = await startCatalogServer(tmdbRoute(data, token));
    const found = await provider({ apiKey: token, baseUrl: bearerServer.url }).lookup('movie', 'tmdb', 700001);
    expect(found?.title).toBe('Fixture Film');
    expect(bearerServer.requests[0]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(bearerServer.requests[0]!.query.has('api_key')).toBe(false);
  });

  it('refreshes shows (by tmdb or tvdb id) and movies, leaving out unknown ones', async () => {
    const records = await provider().refresh([
      { kind: 'show', ids: { tvdb: 9900001 } },
      { kind: 'movie', ids: { tmdb: 700001 } },
      { kind: 'movie', ids: { tmdb: 5 } },
      { kind: 'game', ids: { igdb: 5 } },
    ]);
    expect(records.map((record) => `${record.kind}:${record.ids.tmdb}`).sort()).toEqual(['movie:700001', 'show:990001']);
  });

  it('refresh skips one failing item but throws when the catalog is down', async () => {
    const flaky = await startCatalogServer((request) => (request.path === '/movie/13' ? { status: 500 } : tmdbRoute(data, key)(request)));
    const records = await provider({ baseUrl: flaky.url }).refresh([
      { kind: 'movie', ids: { tmdb: 13 } },
      { kind: 'movie', ids: { tmdb: 700001 } },
    ]);
    expect(records.map((record) => record.ids.tmdb)).toEqual([700001]);

    const down = provider({ baseUrl: await deadUrl() });
    await expect(down.refresh([{ kind: 'movie', ids: { tmdb: 700001 } }])).rejects.toThrow(/^tmdb GET \/movie\/700001: network error/);
  });

  it('a wrong key fails the refresh at once, and the key is not in the message', async () => {
    const wrong = 'ffffffffffffffffffffffffffffffff';
    const items = [1, 2, 3, 4, 5, 6].map((tmdb) => ({ kind: 'movie' as const, ids: { tmdb } }));
    const error = await provider({ apiKey: wrong }).refresh(items).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^tmdb GET \/movie\/\d: HTTP 401 .*Invalid API key/);
    expect((error as Error).message).not.toContain(wrong);
  });
});
