import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCatalogItem, findCatalogItemsById, storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { buildDemoCatalog } from '../../src/catalog/demo-catalog.ts';
import { createOfflineProvider } from '../../src/catalog/offline-catalog.ts';
import type { CatalogProvider, CatalogRecord, CatalogShow } from '../../src/catalog/provider.ts';
import { db } from '../../src/db/client.ts';
import { InputError } from '../../src/errors.ts';
import { createCatalogService, syncOfflineCatalog } from '../../src/catalog/catalog-service.ts';
import { useTestDatabase } from '../support/database.ts';

/** The viewer of lookups and searches: an account that owns no unconfirmed import row. */
const noOwner = 0;

await useTestDatabase();

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-catalog-service-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
/** The catalog service's logger: its warnings, for the tests to read. */
const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };

let nextId = 2000;
const freshId = () => (nextId += 1);

const show = (ids: CatalogShow['ids'], title: string, episodes: CatalogShow['episodes'] = []): CatalogShow => ({
  kind: 'show',
  ids,
  title,
  poster: null,
  overview: null,
  episodes,
});

/** A provider answering from memory, counting its calls. */
function memoryProvider(name: string, records: CatalogRecord[]) {
  const calls: string[] = [];
  const provider: CatalogProvider = {
    name,
    async lookup(kind, source, externalId) {
      calls.push(`lookup ${kind} ${source} ${externalId}`);
      return records.find((record) => record.kind === kind && record.ids[source] === externalId) ?? null;
    },
    async search(query, kind) {
      calls.push(`search ${query}`);
      return records.filter((record) => (kind === undefined || record.kind === kind) && record.title.toLowerCase().includes(query.toLowerCase()));
    },
    async refresh(items) {
      calls.push(`refresh ${items.length}`);
      return records.filter((record) => items.some((item) => item.kind === record.kind && Object.entries(item.ids).some(([source, id]) => record.ids[source as 'tmdb'] === id)));
    },
  };
  return { provider, calls };
}

function failingProvider(name: string): CatalogProvider {
  const fail = async (): Promise<never> => {
    throw new Error('connection refused');
  };
  return { name, lookup: fail, search: fail, refresh: fail };
}

function writeCatalog(name: string, content: unknown): string {
  const file = path.join(folder, name);
  writeFileSync(file, JSON.stringify(content, null, 2));
  return file;
}

async function catalogVersion(): Promise<number> {
  return (await db().serverState.findUnique({ where: { id: 1 } }))?.catalogVersion ?? 0;
}

describe('catalog service lookup', () => {
  it('answers from the database without asking any provider', async () => {
    const tmdb = freshId();
    await storeCatalogRecords([show({ tmdb }, 'Stored Already')]);
    const { provider, calls } = memoryProvider('memory', [show({ tmdb }, 'Provider Title')]);
    const found = await createCatalogService([provider], logger).lookup('show', 'tmdb', tmdb, noOwner);
    expect(found).toMatchObject({ kind: 'show', title: 'Stored Already', tmdbId: tmdb });
    expect(calls).toEqual([]);
  });

  it('asks providers in order, stores the answer and returns the stored row', async () => {
    const [tmdb, tvdb] = [freshId(), freshId()];
    const first = memoryProvider('first', []);
    const second = memoryProvider('second', [show({ tmdb, tvdb }, 'Found Later', [{ season: 1, number: 1, title: 'Pilot', airDate: '2026-11-20' }])]);
    const service = createCatalogService([first.provider, second.provider], logger);

    const found = await service.lookup('show', 'tvdb', tvdb, noOwner);
    expect(found).toMatchObject({ kind: 'show', title: 'Found Later', tmdbId: tmdb, tvdbId: tvdb });
    expect(first.calls).toEqual([`lookup show tvdb ${tvdb}`]);
    expect(await db().episode.count({ where: { showId: found!.id } })).toBe(1);
    // The other id now finds the same row, from the database.
    expect(await service.lookup('show', 'tmdb', tmdb, noOwner)).toMatchObject({ id: found!.id });
    expect(second.calls).toHaveLength(1);
  });

  it('returns null when no catalog knows the item, or the source does not apply to the kind', async () => {
    const { provider, calls } = memoryProvider('memory', []);
    const service = createCatalogService([provider], logger);
    expect(await service.lookup('movie', 'tmdb', freshId(), noOwner)).toBeNull();
    expect(await service.lookup('game', 'tmdb', 5, noOwner)).toBeNull();
    expect(await service.lookup('show', 'tmdb', -1, noOwner)).toBeNull();
    expect(calls).toHaveLength(1);
    expect(await createCatalogService([], logger).lookup('show', 'tvdb', freshId(), noOwner)).toBeNull();
  });

  it('logs a failing provider and goes on to the next', async () => {
    warnings.length = 0;
    const igdb = freshId();
    const game = { kind: 'game' as const, ids: { igdb }, title: 'Rescued Game', poster: null, overview: null, releaseDate: '2027-01-01' };
    const service = createCatalogService([failingProvider('broken'), memoryProvider('memory', [game]).provider], logger);
    expect(await service.lookup('game', 'igdb', igdb, noOwner)).toMatchObject({ kind: 'game', title: 'Rescued Game', igdbId: igdb });
    expect(warnings).toContainEqual(expect.stringContaining('catalog provider broken: lookup game igdb'));
  });
});

describe('catalog service search', () => {
  it('joins stored rows and provider results, once each, all with database ids, best match first', async () => {
    const [a, b, c] = [freshId(), freshId(), freshId()];
    await storeCatalogRecords([show({ tmdb: a }, 'Zephyr Station'), show({ tmdb: b }, 'The Zephyr Diaries')]);
    const { provider } = memoryProvider('memory', [
      show({ tmdb: a, tvdb: freshId() }, 'Zephyr Station'), // the stored one again, with one more id
      show({ tvdb: c }, 'ZEPHYR'), // new to the database
      { kind: 'movie', ids: { tmdb: a }, title: 'Zephyr Station: The Movie', poster: null, overview: null, releaseDate: null },
    ]);
    warnings.length = 0;
    const service = createCatalogService([failingProvider('down'), provider], logger);

    const results = await service.search('  zephyr ', noOwner);
    expect(results.map((item) => [item.kind, item.title])).toEqual([
      ['show', 'ZEPHYR'], // exact (case-insensitive) match first, then prefixes, then anywhere
      ['show', 'Zephyr Station'],
      ['movie', 'Zephyr Station: The Movie'],
      ['show', 'The Zephyr Diaries'],
    ]);
    // Every result is a stored row: its id is the database id the write endpoints take.
    const rows = await findCatalogItemsById(results.map((item) => ({ kind: item.kind, databaseId: item.id })));
    expect(rows.map((row) => row.title)).toEqual(results.map((item) => item.title));
    expect(await db().show.count({ where: { tmdbId: a } })).toBe(1);
    expect(warnings).toContainEqual(expect.stringContaining('catalog provider down: search'));

    expect((await service.search('zephyr', noOwner, 'movie')).map((item) => item.title)).toEqual(['Zephyr Station: The Movie']);
    await expect(service.search('   ', noOwner)).rejects.toBeInstanceOf(InputError);
  });

  it('returns at most 50 results', async () => {
    await storeCatalogRecords(Array.from({ length: 60 }, (_, index) => show({ tmdb: freshId() }, `Quasar Chronicles ${index}`)));
    expect(await createCatalogService([], logger).search('quasar', noOwner)).toHaveLength(50);
  });
});

describe('offline catalog sync and refreshAll', () => {
  it('puts the whole offline catalog in the database at start', async () => {
    const file = writeCatalog('demo.json', buildDemoCatalog('2026-11-20'));
    const result = await syncOfflineCatalog(createOfflineProvider(file));
    expect(result.records).toBe(11);
    expect(result.changes).toBeGreaterThan(11);
    expect(await findCatalogItem('game', 'igdb', 9_400_001)).toMatchObject({ title: 'Ember Protocol', releaseDate: '2026-11-20' });
    expect(await syncOfflineCatalog(createOfflineProvider(file))).toEqual({ records: 11, changes: 0 });
  });

  it('picks up an edited file: moved dates, new episodes, new items; keeps data when it breaks', async () => {
    const [tmdb, movieId] = [freshId(), freshId()];
    const content = {
      shows: [{ ids: { tmdb }, title: 'Edited Show', episodes: [{ season: 1, number: 1, title: 'One', air_date: '2026-11-20' }] }],
      movies: [] as unknown[],
    };
    const file = writeCatalog('edited.json', content);
    const offline = createOfflineProvider(file);
    await syncOfflineCatalog(offline);
    const service = createCatalogService([offline], logger);
    const showRow = await findCatalogItem('show', 'tmdb', tmdb);

    content.shows[0]!.episodes = [
      { season: 1, number: 1, title: 'One', air_date: '2026-11-27' },
      { season: 1, number: 2, title: 'Two', air_date: '2026-12-04' },
    ];
    content.movies = [{ ids: { tmdb: movieId }, title: 'Added Later', release_date: null }];
    writeCatalog('edited.json', content);
    const version = await catalogVersion();
    const summary = await service.refreshAll();
    expect(summary).toMatchObject({ changes: 3, failures: [] });
    expect(await catalogVersion()).toBe(version + 1);
    const episodes = await db().episode.findMany({ where: { showId: showRow!.id }, orderBy: { number: 'asc' } });
    expect(episodes.map((entry) => [entry.number, entry.airDate])).toEqual([
      [1, '2026-11-27'],
      [2, '2026-12-04'],
    ]);
    expect(await findCatalogItem('movie', 'tmdb', movieId)).toMatchObject({ title: 'Added Later' });
    expect((await service.refreshAll()).changes).toBe(0);

    warnings.length = 0;
    writeFileSync(file, '{"shows": "oops"}');
    const broken = await service.refreshAll();
    expect(broken.changes).toBe(0);
    expect(broken.failures).toEqual([{ provider: 'offline', message: `catalog file ${file}: shows: expected an array of shows` }]);
    expect(warnings).toHaveLength(1);
    expect(await db().episode.count({ where: { showId: showRow!.id } })).toBe(2);
    expect(await catalogVersion()).toBe(version + 1);
  });

  it('refreshes stored items from providers that cannot list themselves', async () => {
    const tvdb = freshId();
    await storeCatalogRecords([show({ tvdb }, 'Old Title')]);
    const { provider, calls } = memoryProvider('memory', [show({ tvdb }, 'New Title', [{ season: 2, number: 1, title: null, airDate: null }])]);
    const summary = await createCatalogService([provider], logger).refreshAll();
    expect(calls).toEqual([`refresh ${summary.items}`]);
    expect(summary.items).toBe(await db().show.count() + (await db().movie.count()) + (await db().game.count()));
    expect(await findCatalogItem('show', 'tvdb', tvdb)).toMatchObject({ title: 'New Title' });
  });
});
