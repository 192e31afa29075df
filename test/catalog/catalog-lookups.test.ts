import { describe, expect, it } from 'vitest';
import { createCatalogBudgets } from '../../src/catalog/catalog-budget.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { createLookupCache, lookupCacheTimes, lookupsKept } from '../../src/catalog/lookup-cache.ts';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { startCatalogServer } from './support/catalog-server.ts';
import { seasonedShow, tmdbRoute, type TmdbShow } from './support/tmdb-fixture.ts';

/** The viewer of lookups and searches: an account that owns no unconfirmed import row. */
const noOwner = 0;

/**
 * The catalog service's lookups for deliveries and imports (catalog-lookups.ts): what they cost a
 * network catalog, counted by a fake TMDB started here, and the pieces that bound it (the lookup
 * cache, the budgets, the request queue that serves a person's search first).
 */
await useTestDatabase();
const quiet = { warn: () => {} };

const shows: TmdbShow[] = [];
const tmdb = await startCatalogServer(tmdbRoute({ shows, movies: [] }, 'tmdb-key'));
/** TMDB at `requestsPerSecond`, under the catalog service. */
const serviceAt = (requestsPerSecond = 35) =>
  createCatalogService([createTmdbProvider({ apiKey: 'tmdb-key', baseUrl: tmdb.url, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { requestsPerSecond, maxAttempts: 1 } })], quiet);

/** A show of `seasons` seasons of two episodes, whose episode n of season s has TheTVDB id id × 100 + s × 10 + n. */
function tmdbShow(id: number, name: string, seasons: number): TmdbShow {
  const show = seasonedShow({ id, name, seasons, perSeason: 2, episodeTvdb: (season, number) => id * 100 + season * 10 + number });
  shows.push(show);
  return show;
}

async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = tmdb.requests.length;
  await work();
  return tmdb.requests.slice(before).map((request) => request.path);
}

const episodesOf = async (tmdbId: number) =>
  (await db().episode.findMany({ where: { show: { tmdbId } }, orderBy: [{ season: 'asc' }, { number: 'asc' }] })).map((episode) => `S${episode.season}E${episode.number}:${episode.tvdbId}`);

describe('the lookup cache', () => {
  it('remembers an answer a day and a miss six hours, drops the least recently used past its bound, and shares a lookup under way', async () => {
    let now = 0;
    const cache = createLookupCache(() => now);
    cache.remember('tmdb:episode:tvdb:1', 'found');
    cache.remember('tmdb:episode:tvdb:2', 'missing');
    now = lookupCacheTimes.missingMs - 1;
    expect([cache.get('tmdb:episode:tvdb:1'), cache.get('tmdb:episode:tvdb:2')]).toEqual(['found', 'missing']);
    now = lookupCacheTimes.missingMs;
    expect([cache.get('tmdb:episode:tvdb:1'), cache.get('tmdb:episode:tvdb:2')]).toEqual(['found', undefined]);
    now = lookupCacheTimes.foundMs;
    expect(cache.get('tmdb:episode:tvdb:1')).toBeUndefined();

    for (let index = 0; index <= lookupsKept; index += 1) cache.remember(`key:${index}`, 'missing');
    expect(cache.get('key:0')).toBeUndefined();
    expect(cache.get('key:1')).toBe('missing');

    let asked = 0;
    const ask = async () => {
      asked += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return 'answer';
    };
    const [first, second] = await Promise.all([cache.shared('once', ask), cache.shared('once', ask)]);
    expect([first, second, asked]).toEqual([{ value: 'answer', shared: false }, { value: 'answer', shared: true }, 1]);
  });

  it('budgets: each holds its hour of requests, takes none past it, refills evenly, and stays apart from the others', () => {
    let now = 0;
    const budgets = createCatalogBudgets(4, () => now);
    const one = budgets.of('media-server:1:plex', 'one')!;
    expect(Array.from({ length: 5 }, () => one.take())).toEqual([true, true, true, true, false]);
    expect(one.hasRoom()).toBe(false);
    expect(budgets.of('media-server:2:plex', 'two')!.take()).toBe(true);
    now = 15 * 60_000; // a quarter of an hour: one request back
    expect([one.take(), one.take()]).toEqual([true, false]);
    expect(createCatalogBudgets(0).of('imports:1', 'off')).toBeUndefined();
  });
});

describe('id lookups through the catalog service', () => {
  it('locates an episode of a stored show with one request and adds it to the show, never fetching the show again', async () => {
    const show = tmdbShow(7001, 'Stored Already', 3);
    await storeCatalogRecords([{ kind: 'show', ids: { tmdb: 7001 }, title: 'Stored Already (our title)', poster: null, overview: null, episodes: [{ season: 1, number: 1, title: 'S1E1', airDate: '2025-02-01' }] }]);
    const service = serviceAt();
    let answer;
    const asked = await requestsOf(async () => (answer = await service.resolveIds([{ kind: 'episode', source: 'tvdb', id: 700131 }], 2)));
    expect(asked).toEqual(['/find/700131']);
    expect(answer).toMatchObject({ asked: 1, found: 1, failures: 0, unasked: 0 });
    expect(await episodesOf(7001)).toEqual(['S1E1:null', 'S3E1:700131']);
    // The show's own fields are left as stored.
    expect(await db().show.findUniqueOrThrow({ where: { tmdbId: 7001 } })).toMatchObject({ title: 'Stored Already (our title)', overview: null });
    expect(show.seasons[3]).toHaveLength(2);
  });

  it('fetches a show the store lacks once for several of its episodes, and stores each with its id', async () => {
    tmdbShow(7002, 'Not Stored Yet', 2);
    const service = serviceAt();
    const queries = [700212, 700221, 700211].map((id) => ({ kind: 'episode' as const, source: 'tvdb' as const, id }));
    const asked = await requestsOf(() => service.resolveIds(queries, 3));
    expect(asked.filter((path) => path.startsWith('/find/')).sort()).toEqual(['/find/700211', '/find/700212', '/find/700221']);
    expect(asked.filter((path) => path.startsWith('/tv/')).sort()).toEqual(['/tv/7002', '/tv/7002/season/1', '/tv/7002/season/2']);
    expect(await episodesOf(7002)).toEqual(['S1E1:700211', 'S1E2:700212', 'S2E1:700221', 'S2E2:null']);
    // Asked again: each id is found among stored episodes by the caller; asked anyway, the answers are remembered.
    expect(await requestsOf(() => service.resolveIds(queries, 3))).toEqual([]);
  });

  it('sends a person’s search before the background lookups queued ahead of it', async () => {
    tmdbShow(7003, 'Quiet Search', 1);
    // Four requests a second, so that the lookups wait in the queue: the first second sends four.
    const service = serviceAt(4);
    const before = tmdb.requests.length;
    const lookups = service.resolveIds(
      Array.from({ length: 12 }, (_, index) => ({ kind: 'episode' as const, source: 'tvdb' as const, id: 99_000 + index })),
      12,
    );
    while (tmdb.requests.length - before < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    const found = await service.search('Quiet Search', noOwner, 'show');
    expect(found.map((item) => item.title)).toEqual(['Quiet Search']);
    await lookups;
    const order = tmdb.requests.slice(before).map((request) => request.path);
    // The search goes in the next second's first slot, ahead of the eight lookups that asked before it.
    expect(order.indexOf('/search/tv')).toBe(4);
    expect(order.filter((path) => path.startsWith('/find/'))).toHaveLength(12);
  });
});
