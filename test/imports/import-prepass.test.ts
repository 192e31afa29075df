import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { createOfflineProvider } from '../../src/catalog/offline-catalog.ts';
import type { IdQuery } from '../../src/catalog/provider.ts';
import { createTmdbProvider } from '../../src/catalog/tmdb-provider.ts';
import { db } from '../../src/db/client.ts';
import type { ImportDocument, ImportEpisodeRef } from '../../src/imports/sources/import-document.ts';
import { importCatalogLookups } from '../../src/limits.ts';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { applyImportDocuments } from '../../src/imports/import-service.ts';
import { collectIdQueries, resolveUnknownIds } from '../../src/imports/import-prepass.ts';
import { deadUrl, startCatalogServer } from '../catalog/support/catalog-server.ts';
import { fakeClock } from '../catalog/support/fake-clock.ts';
import { tmdbRoute, type TmdbShow } from '../catalog/support/tmdb-fixture.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';

initSecretKey(await useTestDatabase());

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-prepass-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };
const key = '0123456789abcdef0123456789abcdef';
const at = (day: number) => new Date(Date.UTC(2022, 2, day, 21));
const ref = (ids: ImportEpisodeRef['ids'], day: number, label?: string): ImportEpisodeRef => ({ ids, label, history: [{ watched: true, at: at(day) }] });
const document = (parts: Partial<ImportDocument>, fileName = 'seen_episode.csv'): ImportDocument => ({ source: 'tvtime', fileName, shows: [], titles: [], skipped: [], ...parts });

/** The pre-pass and the transaction, as importUploads runs them. */
async function importWith(catalog: ReturnType<typeof createCatalogService>, accountId: number, documents: ImportDocument[]) {
  const queries = new Map<string, IdQuery>();
  for (const each of documents) collectIdQueries(each, queries);
  const prepass = await resolveUnknownIds(catalog, queries, accountId, logger);
  const result = await applyImportDocuments({ accountId, documents: () => documents });
  return { prepass, result };
}

/** A TMDB show of `seasons` × `perSeason` episodes, each with TheTVDB and IMDb episode ids. */
function tmdbShow(seasons: number, perSeason: number): TmdbShow {
  const id = unique();
  const show: TmdbShow = { id, name: `Found Show ${id}`, poster_path: null, overview: '', tvdbId: unique(), imdbId: `tt${id}`, seasons: {} };
  for (let season = 1; season <= seasons; season += 1) {
    show.seasons[season] = Array.from({ length: perSeason }, (_, index) => ({ episode_number: index + 1, name: `E${index + 1}`, air_date: '2020-01-01', tvdbId: unique(), imdbId: `tt${unique()}` }));
  }
  return show;
}

describe('import pre-pass', () => {
  it('resolves episode references through the offline file, and stores what it answers', async () => {
    const account = await makeAccount();
    const [tmdb, tvdbA, tvdbB] = [unique(), unique(), unique()];
    const file = path.join(folder, 'catalog.json');
    writeFileSync(file, JSON.stringify({
      shows: [{ ids: { tmdb }, title: 'Offline Show', episodes: [
        { season: 1, number: 1, ids: { tvdb: tvdbA }, title: 'A', air_date: '2020-01-01' },
        { season: 1, number: 2, ids: { tvdb: tvdbB, imdb: 'tt0959621' }, title: 'B', air_date: '2020-01-08' },
      ] }],
    }));
    const catalog = createCatalogService([createOfflineProvider(file)], logger);
    const { prepass, result } = await importWith(catalog, account.id, [document({ episodeRefs: [ref({ tvdb: tvdbA }, 1), ref({ tvdb: tvdbB }, 2), ref({ tvdb: unique() }, 3, 'Gone')] })]);
    expect(prepass).toEqual({ unknown: 3, asked: 3, found: 2 });
    expect(result.imported).toMatchObject({ shows: 1, episodes: 2, history: 2 });
    expect(result.unmatched).toEqual([expect.objectContaining({ file: 'seen_episode.csv', kind: 'episode', title: expect.stringMatching(/^Gone \(episode tvdb \d+\)$/) })]);
    const show = await db().show.findUniqueOrThrow({ where: { tmdbId: tmdb }, include: { episodes: { orderBy: { number: 'asc' } } } });
    expect(show.episodes.map((episode) => [episode.tvdbId, episode.imdbId])).toEqual([[tvdbA, null], [tvdbB, 'tt0959621']]);
    expect(await db().libraryItem.count({ where: { accountId: account.id, showId: show.id, followed: true } })).toBe(1);
  });

  it('resolves references, imdb-only shows and movies through a TMDB stand-in, a few requests at a time', async () => {
    const account = await makeAccount();
    const shows = Array.from({ length: 12 }, () => tmdbShow(3, 10)); // 360 episodes
    const imdbOnly = tmdbShow(1, 2);
    const movie = { id: unique(), title: 'Imdb Film', release_date: '2001-01-01', poster_path: null, overview: '', imdb_id: `tt${unique()}` };
    let open = 0;
    let mostOpen = 0;
    const route = tmdbRoute({ shows: [...shows, imdbOnly], movies: [movie] }, key);
    // Lookups at a time: /find requests open at once (a show's fetch asks for its seasons together).
    const server = await startCatalogServer(async (request) => {
      if (!request.path.startsWith('/find/')) return route(request);
      mostOpen = Math.max(mostOpen, ++open);
      await new Promise((resolve) => setTimeout(resolve, 2));
      open -= 1;
      return route(request);
    });
    const tmdb = createTmdbProvider({ apiKey: key, baseUrl: server.url, imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock(), maxAttempts: 2 } });
    const catalog = createCatalogService([tmdb], logger);
    // Every watched episode by its TheTVDB id, some by IMDb id only, in file order (shuffled shows).
    const refs = shows.flatMap((show) => Object.values(show.seasons).flat()).map((episode, index) => (index % 7 === 0 ? ref({ imdb: episode.imdbId }, 1 + (index % 28)) : ref({ tvdb: episode.tvdbId }, 1 + (index % 28))));
    refs.sort((a, b) => JSON.stringify(a.ids).localeCompare(JSON.stringify(b.ids)));
    const documents = [
      document({ episodeRefs: refs }),
      document({
        shows: [{ kind: 'show', ids: { imdb: imdbOnly.imdbId }, title: 'By imdb', followed: false, episodes: [{ season: 1, number: 2, history: [{ watched: true, at: at(5) }] }] }],
        titles: [{ kind: 'movie', ids: { imdb: movie.imdb_id }, title: 'Imdb Film', history: [{ watched: true, at: at(6) }] }],
      }, 'tvtime-movies.csv'),
    ];
    const { prepass, result } = await importWith(catalog, account.id, documents);
    expect(prepass).toEqual({ unknown: 362, asked: 362, found: 362 });
    expect(result.unmatched).toEqual([]);
    expect(result.imported).toMatchObject({ shows: 13, episodes: 361, movies: 1, history: 362 });
    expect(mostOpen).toBeGreaterThan(1);
    expect(mostOpen).toBeLessThanOrEqual(4);
    // Each show was fetched once, whatever number of its episodes the file names.
    for (const show of shows) expect(server.seen(`/tv/${show.id}`)).toHaveLength(1);
    const stored = await db().show.findUniqueOrThrow({ where: { tmdbId: shows[0]!.id }, include: { episodes: true } });
    expect(stored.episodes.filter((episode) => episode.tvdbId !== null || episode.imdbId !== null)).toHaveLength(30);
    const byImdb = await db().show.findUniqueOrThrow({ where: { imdbId: imdbOnly.imdbId! } });
    const library = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: byImdb.id } });
    expect(library.followed).toBe(false);
    // The same files again: nothing to ask, nothing added.
    const again = await importWith(catalog, account.id, documents);
    expect(again.prepass).toEqual({ unknown: 0, asked: 0, found: 0 });
    expect(again.result.imported.history).toBe(0);
  });

  it('asks at most importCatalogLookups.perRequest ids a request; the rest are reported unmatched', async () => {
    const account = await makeAccount();
    const file = path.join(folder, 'empty-catalog.json');
    writeFileSync(file, JSON.stringify({ shows: [] }));
    const offline = createOfflineProvider(file);
    let asked = 0;
    const counting = { ...offline, name: 'offline', resolveId: (query: IdQuery) => ((asked += 1), offline.resolveId!(query)) };
    const catalog = createCatalogService([counting], logger);
    warnings.length = 0;
    const refs = Array.from({ length: importCatalogLookups.perRequest + 50 }, () => ref({ tvdb: unique() }, 1));
    const { prepass, result } = await importWith(catalog, account.id, [document({ episodeRefs: refs })]);
    expect(prepass).toEqual({ unknown: refs.length, asked: importCatalogLookups.perRequest, found: 0 });
    expect(asked).toBe(importCatalogLookups.perRequest);
    expect(warnings).toContain(`import: ${refs.length} ids unknown to the catalog, asking about the first ${importCatalogLookups.perRequest} (importCatalogLookups.perRequest)`);
    expect(result.unmatched).toHaveLength(refs.length);
  });

  it('leaves items unmatched when the catalog is down, and still imports the rest', async () => {
    const account = await makeAccount();
    const tmdb = createTmdbProvider({ apiKey: key, baseUrl: await deadUrl(), imageBaseUrl: 'https://image.tmdb.org/t/p/w500', http: { clock: fakeClock(), maxAttempts: 1 } });
    const catalog = createCatalogService([tmdb], logger);
    const showTmdb = unique();
    warnings.length = 0;
    const { prepass, result } = await importWith(catalog, account.id, [
      document({
        shows: [{ kind: 'show', ids: { tmdb: showTmdb }, title: 'Known by tmdb', episodes: [{ season: 1, number: 1, history: [{ watched: true, at: at(1) }] }] }],
        episodeRefs: [ref({ tvdb: unique() }, 2, 'Unreachable')],
        titles: [{ kind: 'movie', ids: { imdb: `tt${unique()}` }, title: 'Unreachable film', history: [] }],
      }),
    ]);
    expect(prepass).toMatchObject({ unknown: 2, asked: 2, found: 0 });
    expect(warnings.some((message) => message.includes('catalog provider tmdb: resolve'))).toBe(true);
    expect(result.unmatched.map((item) => item.kind)).toEqual(['episode', 'movie']);
    expect(result.imported).toMatchObject({ shows: 1, history: 1 });
  });
});
