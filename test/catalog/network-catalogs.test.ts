import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { createIgdbProvider } from '../../src/catalog/igdb-provider.ts';
import { createCatalogProviders } from '../../src/catalog/providers.ts';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { createTvdbProvider } from '../../src/catalog/tvdb-provider.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { deadUrl, startCatalogServer } from './support/catalog-server.ts';
import { fakeClock } from './support/fake-clock.ts';
import { igdbFixture } from './support/igdb-fixture.ts';
import { tmdbRoute, type TmdbShow } from './support/tmdb-fixture.ts';
import { tvdbFixture, type TvdbSeries } from './support/tvdb-fixture.ts';

/** The viewer of lookups and searches: an account that owns no unconfirmed import row. */
const noOwner = 0;

const config = await useTestDatabase();
initSecretKey(config); // accounts hold encrypted tokens
/** Provider failures these tests cause on purpose are reported here, not printed. */
const quiet = { warn: () => {} };

const tmdbShow = (id: number, name: string, tvdbId?: number): TmdbShow => ({
  id,
  name,
  poster_path: null,
  overview: '',
  tvdbId,
  seasons: { 1: [{ episode_number: 1, name: 'Pilot', air_date: '2026-03-01' }] },
});
const tmdbData = {
  shows: [tmdbShow(1001, 'Merged Show', 5001), tmdbShow(1002, 'Followed One'), tmdbShow(1003, 'Followed Two'), tmdbShow(1004, 'Archived One'), tmdbShow(1005, 'Nobody Follows')],
  movies: [],
};
const tvdbSeries: TvdbSeries[] = [
  { id: 5001, name: 'Merged Show', image: null, overview: null, tmdbId: 1001, episodes: [] },
  { id: 5002, name: 'Only On TVDB', image: null, overview: null, tmdbId: 1099, episodes: [{ seasonNumber: 1, number: 1, name: 'One', aired: '2026-05-01' }] },
];
const tvdb = tvdbFixture({ series: tvdbSeries }, 'tvdb-key');
const igdb = igdbFixture({ games: [{ id: 7001, name: 'Merged Quest', first_release_date: 1726185600 }] }, 'id', 'secret');
const tmdbServer = await startCatalogServer(tmdbRoute(tmdbData, 'tmdb-key'));
const tvdbServer = await startCatalogServer(tvdb.route);
const igdbServer = await startCatalogServer(igdb.route);

const http = () => ({ clock: fakeClock(), maxAttempts: 2 });
const tmdbAt = (baseUrl: string) => createTmdbProvider({ apiKey: 'tmdb-key', baseUrl, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: http() });
const tvdbProvider = createTvdbProvider({ apiKey: 'tvdb-key', pin: undefined, baseUrl: tvdbServer.url, http: http() });
const igdbProvider = createIgdbProvider({ clientId: 'id', clientSecret: 'secret', baseUrl: igdbServer.url, tokenUrl: `${igdbServer.url}/oauth2/token`, http: http() });
const service = createCatalogService([tmdbAt(tmdbServer.url), tvdbProvider, igdbProvider], quiet);

const catalogVersion = async () => (await db().serverState.findUnique({ where: { id: 1 } }))?.catalogVersion ?? 0;
const episodesOf = async (showId: number) =>
  (await db().episode.findMany({ where: { showId }, orderBy: [{ season: 'asc' }, { number: 'asc' }] })).map((episode) => `${episode.number}:${episode.airDate}`);

describe('network catalogs through the catalog service', () => {
  it('stores a show TMDB and TheTVDB both know as one row with both ids', async () => {
    const found = await service.search('Merged Show', noOwner, 'show');
    expect(found.map((item) => item.title)).toEqual(['Merged Show']);
    const [row] = await db().show.findMany({ where: { title: 'Merged Show' } });
    expect(row).toMatchObject({ tmdbId: 1001 });
    // TMDB's search results carry no tvdb id; a lookup (as a refresh does) adds it to the same row.
    expect(await service.lookup('show', 'tvdb', 5001, noOwner)).toMatchObject({ id: row!.id, tmdbId: 1001, tvdbId: 5001 });

    // A show TMDB cannot find by tvdb id comes from TheTVDB, with its tmdb id.
    const onlyTvdb = await service.lookup('show', 'tvdb', 5002, noOwner);
    expect(onlyTvdb).toMatchObject({ title: 'Only On TVDB', tmdbId: 1099, tvdbId: 5002 });
    expect(await service.lookup('show', 'tmdb', 1099, noOwner)).toMatchObject({ id: onlyTvdb!.id });
    expect(await db().show.count({ where: { title: { in: ['Merged Show', 'Only On TVDB'] } } })).toBe(2);
  });

  it('refreshFollowed refreshes only followed, unarchived items: new episodes appear, moved dates move', async () => {
    const [one, two] = [await makeAccount(), await makeAccount()];
    const rows = new Map<number, number>();
    for (const tmdb of [1002, 1003, 1004, 1005]) rows.set(tmdb, (await service.lookup('show', 'tmdb', tmdb, noOwner))!.id);
    await setFollow({ accountId: one.id, kind: 'show', id: rows.get(1002)!, followed: true });
    await setFollow({ accountId: two.id, kind: 'show', id: rows.get(1003)!, followed: true });
    await setFollow({ accountId: one.id, kind: 'show', id: rows.get(1004)!, followed: true, archived: true });

    for (const show of tmdbData.shows) {
      show.seasons[1] = [
        { episode_number: 1, name: 'Pilot', air_date: '2026-03-08' },
        { episode_number: 2, name: 'New', air_date: '2026-03-15' },
      ];
    }
    const seen = (id: number) => tmdbServer.seen(`/tv/${id}`).length;
    const before = { two: seen(1003), archived: seen(1004), nobody: seen(1005), version: await catalogVersion() };

    const summary = await service.refreshFollowed({ accountId: one.id });
    expect(summary).toEqual({ items: 1, records: 1, changes: 2, failures: [] });
    expect(await episodesOf(rows.get(1002)!)).toEqual(['1:2026-03-08', '2:2026-03-15']);
    expect(await episodesOf(rows.get(1003)!)).toEqual(['1:2026-03-01']);
    expect(await catalogVersion()).toBeGreaterThan(before.version);
    expect(seen(1003)).toBe(before.two);

    const everyone = await service.refreshFollowed({});
    expect(everyone.failures).toEqual([]);
    expect(await episodesOf(rows.get(1003)!)).toEqual(['1:2026-03-08', '2:2026-03-15']);
    expect(await episodesOf(rows.get(1004)!)).toEqual(['1:2026-03-01']);
    expect([seen(1004), seen(1005)]).toEqual([before.archived, before.nobody]);
    expect((await service.refreshFollowed({})).changes).toBe(0);

    // refreshAll still refreshes everything stored.
    await service.refreshAll();
    expect(await episodesOf(rows.get(1005)!)).toEqual(['1:2026-03-08', '2:2026-03-15']);
  });

  it('a catalog that is down does not stop the others in lookup, search and refresh', async () => {
    const down = tmdbAt(await deadUrl());
    const degraded = createCatalogService([down, tvdbProvider, igdbProvider], quiet);
    expect(await degraded.lookup('show', 'tvdb', 5002, noOwner)).toMatchObject({ title: 'Only On TVDB' });
    expect(await degraded.lookup('game', 'igdb', 7001, noOwner)).toMatchObject({ title: 'Merged Quest', releaseDate: '2024-09-13' });
    expect((await degraded.search('Merged', noOwner)).map((item) => `${item.kind}:${item.title}`).sort()).toEqual(['game:Merged Quest', 'show:Merged Show']);

    const account = await makeAccount();
    const show = await degraded.lookup('show', 'tvdb', 5002, noOwner);
    await setFollow({ accountId: account.id, kind: 'show', id: show!.id, followed: true });
    tvdbSeries[1]!.episodes.push({ seasonNumber: 1, number: 2, name: 'Two', aired: '2026-05-08' });
    const summary = await degraded.refreshFollowed({ accountId: account.id });
    expect(summary.failures).toEqual([{ provider: 'tmdb', message: expect.stringMatching(/^tmdb GET \/tv\/1099: network error/) }]);
    expect(await episodesOf(show!.id)).toEqual(['1:2026-05-01', '2:2026-05-08']);
  });

  it('refuses a bad account id', async () => {
    await expect(service.refreshFollowed({ accountId: 0 })).rejects.toThrow('accountId must be a positive integer');
  });
});

describe('createCatalogProviders', () => {
  it('adds TMDB, TheTVDB and IGDB after the offline catalog when their keys are set', async () => {
    const env = { AIRDATE_DATA_DIR: config.dataDir, AIRDATE_CATALOG_FILE: '' };
    expect(createCatalogProviders(loadConfig(env), quiet).providers).toEqual([]);
    const all = loadConfig({ ...env, TMDB_API_KEY: 'a', TVDB_API_KEY: 'b', IGDB_CLIENT_ID: 'c', IGDB_CLIENT_SECRET: 'd' });
    expect(createCatalogProviders(all, quiet).providers.map((provider) => provider.name)).toEqual(['tmdb', 'tvdb', 'igdb']);
    const igdbHalf = loadConfig({ ...env, IGDB_CLIENT_ID: 'c' });
    expect(createCatalogProviders(igdbHalf, quiet).providers).toEqual([]);
  });
});
