import { describe, expect, it } from 'vitest';
import { createIgdbProvider } from '../../src/catalog/igdb-provider.ts';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { createTvdbProvider } from '../../src/catalog/tvdb-provider.ts';
import { db } from '../../src/db/client.ts';
import { catalogLengths, maxIntColumn } from '../../src/limits.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { graphql } from '../support/http.ts';
import { startCatalogServer } from './support/catalog-server.ts';
import { fakeClock } from './support/fake-clock.ts';
import { igdbFixture } from './support/igdb-fixture.ts';
import { tmdbRoute, type TmdbShow } from './support/tmdb-fixture.ts';
import { tvdbFixture } from './support/tvdb-fixture.ts';

/** The viewer of lookups and searches: an account that owns no unconfirmed import row. */
const noOwner = 0;

/**
 * Network catalogs answer whatever they answer. On the way into the shared catalog every record is
 * brought within bounds (src/catalog/catalog-bounds.ts): long text is shortened to its limit with
 * "…", a poster or date out of bounds becomes unknown, an episode numbered past 32 bits is left
 * out, an item whose ids are all past 32 bits is refused, and the rest of the item is kept.
 */

const overLong = (length: number, unit = 'x') => unit.repeat(length);
/** What a text past `limit` is stored as: its first limit − 1 characters and "…". */
const shortened = (text: string, limit: number) => `${[...text].slice(0, limit - 1).join('')}…`;

const oddShow: TmdbShow = {
  id: 880001,
  name: `Odd ${overLong(5_000)}`,
  poster_path: `/${overLong(2_000)}.jpg`,
  overview: overLong(50_000, 'é'),
  seasons: {
    1: [
      { episode_number: 1, name: overLong(1_000, '🎬'), air_date: '0001-01-01' },
      { episode_number: 2, name: 'Fine', air_date: '2026-03-01' },
      { episode_number: maxIntColumn + 1, name: 'Past 32 bits', air_date: null },
    ],
    [maxIntColumn + 1]: [{ episode_number: 1, name: 'Season past 32 bits', air_date: null }],
  },
};
const tmdbData = {
  shows: [oddShow, { id: maxIntColumn + 1, name: 'Odd overflow id', poster_path: null, overview: '', seasons: {} }],
  movies: [{ id: 880002, title: 'Odd Film', release_date: '9999-01-01', poster_path: null, overview: '' }],
};
const tmdb = await startCatalogServer(tmdbRoute(tmdbData, 'key'));
const tvdb = tvdbFixture(
  {
    series: [
      {
        id: 880003,
        name: 'Odd Series',
        image: 'javascript:alert(1)',
        overview: null,
        episodes: [
          { seasonNumber: maxIntColumn + 1, number: 1, name: 'Past 32 bits', aired: null },
          { seasonNumber: 1, number: 1, name: 'One', aired: '2200-01-01' },
        ],
      },
    ],
  },
  'tvdb-key',
);
const tvdbServer = await startCatalogServer(tvdb.route);
const igdb = igdbFixture(
  {
    games: [
      { id: 880004, name: overLong(600, '語'), summary: overLong(10_001), first_release_date: Date.UTC(2500, 0, 1) / 1000 },
      { id: maxIntColumn + 1, name: 'Odd overflow game' },
    ],
  },
  'id',
  'secret',
);
const igdbServer = await startCatalogServer(igdb.route);

const { app } = await useTestApp({ TMDB_API_KEY: 'key', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_TMDB_IMAGE_URL: 'https://img.example/w500' });

const warnings: string[] = [];
const http = () => ({ clock: fakeClock(), maxAttempts: 1 });
const service = createCatalogService(
  [
    createTmdbProvider({ apiKey: 'key', baseUrl: tmdb.url, imageBaseUrl: 'https://img.example/w500', http: http() }),
    createTvdbProvider({ apiKey: 'tvdb-key', pin: undefined, baseUrl: tvdbServer.url, http: http() }),
    createIgdbProvider({ clientId: 'id', clientSecret: 'secret', baseUrl: igdbServer.url, tokenUrl: `${igdbServer.url}/oauth2/token`, http: http() }),
  ],
  { warn: (message) => warnings.push(message) },
);

describe('records from network catalogs are brought within bounds, and no item is lost over one odd value', () => {
  it('TMDB: a show keeps its good episodes, with long texts shortened and a bad poster and date dropped', async () => {
    const stored = await service.lookup('show', 'tmdb', 880001, noOwner);
    expect(stored).toMatchObject({ kind: 'show', tmdbId: 880001, title: shortened(oddShow.name, catalogLengths.title), poster: null, overview: shortened(oddShow.overview, catalogLengths.overview) });
    expect([...stored!.title]).toHaveLength(catalogLengths.title);
    const episodes = await db().episode.findMany({ where: { showId: stored!.id }, orderBy: { number: 'asc' }, select: { season: true, number: true, title: true, airDate: true } });
    expect(episodes).toEqual([
      { season: 1, number: 1, title: `${overLong(catalogLengths.title - 1, '🎬')}…`, airDate: null },
      { season: 1, number: 2, title: 'Fine', airDate: '2026-03-01' },
    ]);
    expect(warnings).toContainEqual(expect.stringMatching(/^catalog provider tmdb: show "Odd x+…" \{"tmdb":880001\}: left out 2 episode\(s\) whose season or number is not from 0 to 2147483647$/));
  });

  it('TMDB: a movie whose release date is out of range is stored without it', async () => {
    expect(await service.lookup('movie', 'tmdb', 880002, noOwner)).toMatchObject({ title: 'Odd Film', releaseDate: null });
  });

  it('a search result whose only id is past 32 bits is refused, and the others are stored', async () => {
    const found = await service.search('Odd', noOwner);
    expect(found.map((item) => `${item.kind}:${item.title.slice(0, 12)}`).sort()).toEqual(['movie:Odd Film', 'show:Odd Series', 'show:Odd xxxxxxxx']);
    expect(await db().show.count({ where: { title: 'Odd overflow id' } })).toBe(0);
    expect(await db().game.count({ where: { title: 'Odd overflow game' } })).toBe(0);
    expect(warnings).toContainEqual(`catalog provider tmdb: refused show "Odd overflow id": no id from 1 to 2147483647 ({"tmdb":2147483648})`);
  });

  it('TheTVDB: a series without a usable poster keeps its in-range episodes, without an out-of-range air date', async () => {
    const stored = await service.lookup('show', 'tvdb', 880003, noOwner);
    expect(stored).toMatchObject({ title: 'Odd Series', poster: null });
    // A search may have stored it first without episodes; a refresh reads them all.
    expect(await service.refreshAll()).toMatchObject({ failures: [] });
    const episodes = await db().episode.findMany({ where: { showId: stored!.id }, select: { season: true, number: true, airDate: true } });
    expect(episodes).toEqual([{ season: 1, number: 1, airDate: null }]);
  });

  it('IGDB: a game with a 600-character name (3 bytes each), a long summary and a release in 2500', async () => {
    const stored = await service.lookup('game', 'igdb', 880004, noOwner);
    expect(stored).toMatchObject({ title: `${overLong(catalogLengths.title - 1, '語')}…`, releaseDate: null, overview: shortened(overLong(10_001), catalogLengths.overview) });
  });

  it('through GraphQL: searching the odd TMDB items answers the bounded rows', async () => {
    const account = await makeAccount();
    const { json } = await graphql(app, account.token, '{ searchCatalog(query: "odd", kind: SHOW) { ... on Show { tmdbId title poster overview episodes { season number } } } }');
    expect(json.errors).toBeUndefined();
    const show = json.data.searchCatalog.find((item: { tmdbId: number }) => item.tmdbId === 880001);
    expect(show).toMatchObject({ title: shortened(oddShow.name, catalogLengths.title), episodes: [{ season: 1, number: 1 }, { season: 1, number: 2 }] });
    expect(json.data.searchCatalog.every((item: { tmdbId: number | null }) => item.tmdbId === null || item.tmdbId <= maxIntColumn)).toBe(true);
  });
});
