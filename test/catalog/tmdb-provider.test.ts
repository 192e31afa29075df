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
      { episode_number: 1, name: 'Pilot', air_date: '2024-01-10', runtime: 42 },
      // TMDB's 0: not known.
      { episode_number: 2, name: 'Second', air_date: '2024-01-17', runtime: 0 },
    ],
    2: [
      { episode_number: 1, name: 'Return', air_date: '2025-01-15' },
      { episode_number: 9, name: 'Episode 9', air_date: '' },
    ],
  },
};
const fixtureMovie: TmdbMovie = { id: 700001, title: 'Fixture Film', release_date: '2019-10-04', poster_path: '/fxMovie.jpg', overview: 'A film.' };
/** A show and a movie known by the ids export files carry (TV Time: TheTVDB episode ids, imdb). */
const idShow: TmdbShow = {
  id: 990002,
  name: 'Id Show',
  poster_path: null,
  overview: '',
  tvdbId: 9900002,
  imdbId: 'tt9900002',
  seasons: {
    1: [
      { episode_number: 1, name: 'One', air_date: '2023-01-01', tvdbId: 7700001, imdbId: 'tt7700001' },
      { episode_number: 2, name: 'Two', air_date: '2023-01-08', tvdbId: 7700002 },
    ],
  },
};
const idMovie: TmdbMovie = { id: 700002, title: 'Id Film', release_date: '1999-03-31', poster_path: null, overview: '', imdb_id: 'tt0133093', tvdbId: 169 };
const data = { shows: [fixtureShow, idShow], movies: [fixtureMovie, idMovie] };
const server = await startCatalogServer(tmdbRoute(data, key));

const provider = (overrides: { apiKey?: string; baseUrl?: string } = {}) =>
  createTmdbProvider({ apiKey: key, baseUrl: server.url, imageBaseUrl: image, http: { clock: fakeClock(), maxAttempts: 2 }, ...overrides });

describe('TMDB provider', () => {
  it("looks a show up by tmdb id: every season (specials as 0), dates, runtimes, poster, its tvdb id and each episode's TMDB id", async () => {
    const show = await provider().lookup('show', 'tmdb', 990001);
    expect(show).toEqual({
      kind: 'show',
      ids: { tmdb: 990001, tvdb: 9900001 },
      title: 'Fixture Show',
      poster: `${image}/fxPoster0001.jpg`,
      overview: null,
      episodes: [
        { season: 0, number: 1, title: 'Holiday Special', airDate: '2024-12-20', ids: { tmdb: 990001001 } },
        { season: 1, number: 1, title: 'Pilot', airDate: '2024-01-10', runtime: 42, ids: { tmdb: 990001101 } },
        { season: 1, number: 2, title: 'Second', airDate: '2024-01-17', ids: { tmdb: 990001102 } },
        { season: 2, number: 1, title: 'Return', airDate: '2025-01-15', ids: { tmdb: 990001201 } },
        { season: 2, number: 9, title: 'Episode 9', airDate: null, ids: { tmdb: 990001202 } },
      ],
    });
    const detail = server.seen('/tv/990001')[0]!;
    expect(detail.query.get('append_to_response')).toBe('external_ids');
    expect(detail.query.get('api_key')).toBe(key);
  });

  it('resolves shows and movies by imdb or tvdb id through /find', async () => {
    const tmdb = provider();
    expect(await tmdb.resolveId!({ kind: 'show', source: 'imdb', id: 'tt9900002' })).toMatchObject({ ids: { tmdb: 990002, tvdb: 9900002, imdb: 'tt9900002' }, title: 'Id Show' });
    expect(server.seen('/find/tt9900002')[0]!.query.get('external_source')).toBe('imdb_id');
    expect(await tmdb.resolveId!({ kind: 'movie', source: 'imdb', id: 'tt0133093' })).toMatchObject({ kind: 'movie', ids: { tmdb: 700002, imdb: 'tt0133093' }, title: 'Id Film' });
    expect(await tmdb.resolveId!({ kind: 'movie', source: 'tvdb', id: 169 })).toMatchObject({ ids: { tmdb: 700002, tvdb: 169 } });
    expect(await tmdb.resolveId!({ kind: 'game', source: 'giantbomb', id: 5 })).toBeNull();
    // Episodes are located instead (below): the catalog service fetches their show only when it lacks it.
    expect(await tmdb.resolveId!({ kind: 'episode', source: 'tvdb', id: 7700002 })).toBeNull();
  });

  it('locates an episode by its tvdb or imdb id with one /find: its show, season, number and TMDB id', async () => {
    const tmdb = provider();
    const before = server.requests.length;
    expect(await tmdb.locateEpisode!({ kind: 'episode', source: 'tvdb', id: 7700002 })).toEqual({
      show: { tmdb: 990002 },
      episode: { season: 1, number: 2, title: 'Two', airDate: '2023-01-08', ids: { tmdb: 990002102, tvdb: 7700002 } },
    });
    expect(await tmdb.locateEpisode!({ kind: 'episode', source: 'imdb', id: 'tt7700001' })).toMatchObject({ show: { tmdb: 990002 }, episode: { season: 1, number: 1, ids: { tmdb: 990002101, imdb: 'tt7700001' } } });
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/find/7700002', '/find/tt7700001']);
    expect(await tmdb.locateEpisode!({ kind: 'episode', source: 'tvdb', id: 1 })).toBeNull();
    expect(await tmdb.locateEpisode!({ kind: 'episode', source: 'tmdb', id: 990002101 })).toBeNull(); // /find has no TMDB source
  });

  it('fetches one season with one request (a /find first for a show known by its tvdb id only)', async () => {
    const tmdb = provider();
    let before = server.requests.length;
    expect(await tmdb.season!({ tmdb: 990001, tvdb: 9900001 }, 2)).toEqual([
      { season: 2, number: 1, title: 'Return', airDate: '2025-01-15', ids: { tmdb: 990001201 } },
      { season: 2, number: 9, title: 'Episode 9', airDate: null, ids: { tmdb: 990001202 } },
    ]);
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/tv/990001/season/2']);
    before = server.requests.length;
    expect(await tmdb.season!({ tvdb: 9900001 }, 7)).toEqual([]); // a season TMDB does not have
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/find/9900001', '/tv/990001/season/7']);
    expect(await tmdb.season!({ tvdb: 123 }, 1)).toBeNull();
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
      runtime: 100,
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
