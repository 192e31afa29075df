import { describe, expect, it } from 'vitest';
import { CatalogBudgetSpent, createCatalogBudgets } from '../../src/catalog/catalog-budget.ts';
import { asCatalogCaller } from '../../src/catalog/catalog-caller.ts';
import { createTvdbProvider } from '../../src/catalog/tvdb-provider.ts';
import { startCatalogServer } from './support/catalog-server.ts';
import { fakeClock } from './support/fake-clock.ts';
import { tvdbFixture, type TvdbSeries } from './support/tvdb-fixture.ts';

const apiKey = 'tvdb-project-key-0001';
const pin = '4321';
const series: TvdbSeries = {
  id: 9900001,
  name: 'Fixture Show',
  image: '/banners/v4/series/9900001/posters/fx.jpg',
  overview: 'Shown on TheTVDB.',
  tmdbId: 990001,
  imdbId: 'tt9900001',
  episodes: [
    { seasonNumber: 0, number: 1, name: 'Holiday Special', aired: '2024-12-20', id: 349232 },
    { seasonNumber: 1, number: 1, name: 'Pilot', aired: '2024-01-10', runtime: 44 },
    { seasonNumber: 1, number: 2, name: 'Second', aired: '2024-01-17' },
    { seasonNumber: 2, number: 1, name: 'Return', aired: '2025-01-15' },
    { seasonNumber: 2, number: 9, name: null, aired: null },
  ],
};
const fixture = tvdbFixture({ series: [series, { id: 77, name: 'Lonely Show', image: 'https://artworks.thetvdb.com/x.jpg', overview: null, episodes: [] }] }, apiKey, pin);
const server = await startCatalogServer(fixture.route);

const provider = (overrides: { apiKey?: string } = {}) =>
  createTvdbProvider({ apiKey, pin, baseUrl: server.url, http: { clock: fakeClock(), maxAttempts: 2 }, ...overrides });

describe('TheTVDB provider', () => {

  it("looks a series up: extended record, every episode page and its id, tmdb and imdb ids from remoteIds, artwork URL", async () => {
    const show = await provider().lookup('show', 'tvdb', 9900001);
    expect(show).toEqual({
      kind: 'show',
      ids: { tvdb: 9900001, tmdb: 990001, imdb: 'tt9900001' },
      title: 'Fixture Show',
      poster: 'https://artworks.thetvdb.com/banners/v4/series/9900001/posters/fx.jpg',
      overview: 'Shown on TheTVDB.',
      episodes: [
        { season: 0, number: 1, title: 'Holiday Special', airDate: '2024-12-20', ids: { tvdb: 349232 } },
        { season: 1, number: 1, title: 'Pilot', airDate: '2024-01-10', runtime: 44, ids: { tvdb: expect.any(Number) } },
        { season: 1, number: 2, title: 'Second', airDate: '2024-01-17', ids: { tvdb: expect.any(Number) } },
        { season: 2, number: 1, title: 'Return', airDate: '2025-01-15', ids: { tvdb: expect.any(Number) } },
        { season: 2, number: 9, title: null, airDate: null, ids: { tvdb: expect.any(Number) } },
      ],
    });
    // Five episodes, two per page: pages 0, 1 and 2.
    expect(server.seen('/series/9900001/episodes/default').map((request) => request.query.get('page'))).toEqual(['0', '1', '2']);
    expect(await provider().lookup('show', 'tvdb', 31337)).toBeNull();
  });

  it('logs in once (key and pin) and reuses the token; logs in again after a 401', async () => {
    const tvdb = provider();
    const before = fixture.logins.length;
    await tvdb.lookup('show', 'tvdb', 77);
    await tvdb.search('lonely');
    expect(fixture.logins.slice(before)).toEqual([{ apikey: apiKey, pin }]);

    fixture.revokeTokens();
    expect((await tvdb.lookup('show', 'tvdb', 77))?.title).toBe('Lonely Show');
    expect(fixture.logins.length - before).toBe(2);
    const tokens = server.seen('/series/77/extended').map((request) => request.headers.authorization);
    expect(tokens).toHaveLength(3); // ok, 401 with the revoked token, ok with the new one
    expect(tokens[1]).toBe(tokens[0]);
    expect(tokens[2]).not.toBe(tokens[1]);
  });

  it('a refused key is a clear error without the key', async () => {
    const wrong = 'not-the-right-key-9999';
    const error = await provider({ apiKey: wrong }).lookup('show', 'tvdb', 77).catch((caught: Error) => caught);
    expect((error as Error).message).toMatch(/^tvdb POST \/login: HTTP 401/);
    expect((error as Error).message).not.toContain(wrong);
  });

  it('searches series: string ids, English titles, remote tmdb ids; other kinds ask nothing', async () => {
    const found = await provider().search('fixture');
    expect(found).toEqual([
      {
        kind: 'show',
        ids: { tvdb: 9900001, tmdb: 990001 },
        title: 'Fixture Show',
        poster: 'https://artworks.thetvdb.com/banners/v4/series/9900001/posters/fx.jpg',
        overview: 'Shown on TheTVDB.',
        episodes: [],
      },
    ]);
    const before = server.requests.length;
    expect(await provider().search('fixture', 'movie')).toEqual([]);
    expect(await provider().lookup('show', 'tmdb', 990001)).toBeNull();
    expect(server.requests.length).toBe(before);
  });

  it('refreshes the shows it has tvdb ids for', async () => {
    const records = await provider().refresh([
      { kind: 'show', ids: { tvdb: 77 } },
      { kind: 'show', ids: { tmdb: 990001 } },
      { kind: 'show', ids: { tvdb: 555 } },
      { kind: 'movie', ids: { tmdb: 700001 } },
    ]);
    expect(records.map((record) => record.title)).toEqual(['Lonely Show']);
  });

  it('locates an episode by its id with one request, and resolves a series by its IMDb id', async () => {
    const tvdb = provider();
    await tvdb.search('warm the token up');
    const before = server.requests.length;
    expect(await tvdb.locateEpisode!({ kind: 'episode', source: 'tvdb', id: 349232 })).toEqual({
      show: { tvdb: 9900001 },
      episode: { season: 0, number: 1, title: 'Holiday Special', airDate: '2024-12-20', ids: { tvdb: 349232 } },
    });
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/episodes/349232']);
    expect(await tvdb.locateEpisode!({ kind: 'episode', source: 'tvdb', id: 1 })).toBeNull();
    expect(await tvdb.locateEpisode!({ kind: 'episode', source: 'imdb', id: 'tt1' })).toBeNull();
    expect(await tvdb.resolveId!({ kind: 'show', source: 'imdb', id: 'tt9900001' })).toMatchObject({ ids: { tvdb: 9900001, imdb: 'tt9900001' } });
    expect(await tvdb.resolveId!({ kind: 'show', source: 'imdb', id: 'tt404' })).toBeNull();
    expect(await tvdb.resolveId!({ kind: 'episode', source: 'tvdb', id: 349232 })).toBeNull();
  });

  it('fetches one season’s episodes, asking for that season only', async () => {
    const tvdb = provider();
    await tvdb.search('warm the token up');
    const before = server.requests.length;
    expect(await tvdb.season!({ tvdb: 9900001, tmdb: 990001 }, 2)).toEqual([
      { season: 2, number: 1, title: 'Return', airDate: '2025-01-15', ids: { tvdb: expect.any(Number) } },
      { season: 2, number: 9, title: null, airDate: null, ids: { tvdb: expect.any(Number) } },
    ]);
    const asked = server.requests.slice(before);
    expect(asked.map((request) => [request.path, request.query.get('season'), request.query.get('page')])).toEqual([['/series/9900001/episodes/default', '2', '0']]);
    expect(await tvdb.season!({ tmdb: 990001 }, 1)).toBeNull(); // no TheTVDB id: nothing to ask
  });

  it('logs in for every caller waiting, charged to nobody’s budget: a spent budget fails only its own caller’s request', async () => {
    const tvdb = provider();
    const spent = createCatalogBudgets(1).of('media-server:1:plex', 'a spent budget')!;
    expect(spent.take()).toBe(true);
    const before = fixture.logins.length;
    // The first caller starts the login; the second waits for the same one.
    const [mine, theirs] = await Promise.allSettled([asCatalogCaller({ priority: 'background', budget: spent }, () => tvdb.search('lonely')), tvdb.search('lonely')]);
    expect(mine.status === 'rejected' && mine.reason).toBeInstanceOf(CatalogBudgetSpent);
    expect(theirs.status === 'fulfilled' && theirs.value.map((show) => show.title)).toEqual(['Lonely Show']);
    expect(fixture.logins.length - before).toBe(1);
  });
});
