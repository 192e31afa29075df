import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { loadOfflineCatalog } from '../../src/catalog/offline-catalog.ts';
import type { CatalogMovie, CatalogShow } from '../../src/catalog/provider.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { unique } from '../support/factories.ts';

// Runtimes (minutes) of episodes and movies: read from the offline file, stored, changed by a
// record that says another, kept by one that does not say (a search result), cleared by null.
await useTestDatabase();

const movieRuntime = async (id: number) => (await db().movie.findUniqueOrThrow({ where: { id } })).runtime;
const episodeRuntimes = async (showId: number) => (await db().episode.findMany({ where: { showId }, orderBy: { number: 'asc' } })).map((episode) => episode.runtime);

describe('catalog runtimes', () => {
  it('come from the offline file and are kept when a record does not say them', async () => {
    const tmdb = unique();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'airdate-runtime-')), 'catalog.json');
    writeFileSync(
      file,
      JSON.stringify({
        shows: [{ ids: { tmdb }, title: 'Timed Show', episodes: [{ season: 1, number: 1, air_date: null, runtime: 42 }, { season: 1, number: 2, air_date: null }, { season: 1, number: 3, air_date: null, runtime: null }] }],
        movies: [{ ids: { tmdb }, title: 'Timed Film', release_date: null, runtime: 133 }],
        games: [{ ids: { igdb: tmdb }, title: 'A Game', release_date: null, runtime: 600 }],
      }),
    );
    const { records } = await loadOfflineCatalog(file);
    const show = records[0] as CatalogShow;
    expect(show.episodes.map((episode) => episode.runtime)).toEqual([42, undefined, null]);
    expect((records[1] as CatalogMovie).runtime).toBe(133);
    // Games have no runtime: the key is not read.
    expect(records[2]).not.toHaveProperty('runtime');

    const { items } = await storeCatalogRecords(records);
    const [showId, movieId] = [items[0]!.databaseId, items[1]!.databaseId];
    expect(await episodeRuntimes(showId)).toEqual([42, null, null]);
    expect(await movieRuntime(movieId)).toBe(133);

    // A search result (no runtime) keeps the stored ones; a record with one changes it.
    const searched: CatalogMovie = { kind: 'movie', ids: { tmdb }, title: 'Timed Film', poster: null, overview: null, releaseDate: null };
    const shallowShow: CatalogShow = { ...show, episodes: [{ season: 1, number: 1, title: null, airDate: null }, { season: 1, number: 2, title: null, airDate: null, runtime: 50 }] };
    await storeCatalogRecords([searched, shallowShow]);
    expect(await movieRuntime(movieId)).toBe(133);
    expect(await episodeRuntimes(showId)).toEqual([42, 50, null]);

    // null: no longer known.
    const { changes } = await storeCatalogRecords([{ ...searched, runtime: null }, { ...show, episodes: [{ season: 1, number: 1, title: null, airDate: null, runtime: null }] }]);
    expect(changes).toBe(2);
    expect(await movieRuntime(movieId)).toBeNull();
    expect(await episodeRuntimes(showId)).toEqual([null, 50, null]);
  });
});
