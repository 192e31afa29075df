import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCatalogItem, storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { CatalogFileError, createOfflineProvider } from '../../src/catalog/offline-catalog.ts';
import type { CatalogEpisode, CatalogMovie, CatalogShow, ExternalIds } from '../../src/catalog/provider.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';

await useTestDatabase();

/** Every test uses its own id range, so tests never see each other's rows. */
let nextId = 1000;
const freshId = () => (nextId += 1);

function show(ids: ExternalIds, episodes: CatalogEpisode[] = [], title = `Show ${Object.values(ids).join('/')}`): CatalogShow {
  return { kind: 'show', ids, title, poster: null, overview: null, episodes };
}
const episode = (season: number, number: number, airDate: string | null, title: string | null = `Episode ${number}`) => ({
  season,
  number,
  title,
  airDate,
});
const movie = (tmdb: number, releaseDate: string | null, title = `Movie ${tmdb}`): CatalogMovie => ({
  kind: 'movie',
  ids: { tmdb },
  title,
  poster: null,
  overview: null,
  releaseDate,
});

async function catalogVersion(): Promise<number> {
  return (await db().serverState.findUnique({ where: { id: 1 } }))?.catalogVersion ?? 0;
}
async function episodesOf(showId: number) {
  return db().episode.findMany({ where: { showId }, orderBy: [{ season: 'asc' }, { number: 'asc' }] });
}

describe('storeCatalogRecords', () => {
  it('stores the same new item from several writers at once as one row (a lost insert race is run again)', async () => {
    const [tmdb, movieId] = [freshId(), freshId()];
    const records = () => [show({ tmdb }, [episode(1, 1, '2026-03-01'), episode(1, 2, '2026-03-08')]), movie(movieId, '2026-04-01')];
    const results = await Promise.all(Array.from({ length: 6 }, () => storeCatalogRecords(records())));
    expect(new Set(results.map((result) => result.items.map((item) => item.databaseId).join()))).toHaveProperty('size', 1);
    const [stored] = await db().show.findMany({ where: { tmdbId: tmdb } });
    expect(await episodesOf(stored!.id)).toHaveLength(2);
    expect(await db().movie.count({ where: { tmdbId: movieId } })).toBe(1);
  });

  it('creates items with their episodes, returns their database ids and bumps the catalog version', async () => {
    const [tmdb, tvdb, movieId] = [freshId(), freshId(), freshId()];
    const before = await catalogVersion();
    const stored = await storeCatalogRecords([
      show({ tmdb, tvdb }, [episode(1, 1, '2026-11-20'), episode(0, 1, null)]),
      movie(movieId, '2026-12-01'),
    ]);
    expect(stored.items).toEqual([
      { kind: 'show', databaseId: expect.any(Number), ids: { tmdb, tvdb } },
      { kind: 'movie', databaseId: expect.any(Number), ids: { tmdb: movieId } },
    ]);
    expect(stored.changes).toBe(4);
    expect(await catalogVersion()).toBe(before + 1);
    const row = await findCatalogItem('show', 'tvdb', tvdb);
    expect(row).toMatchObject({ kind: 'show', id: stored.items[0]!.databaseId, tmdbId: tmdb, tvdbId: tvdb });
    expect((await episodesOf(row!.id)).map((entry) => [entry.season, entry.number, entry.airDate])).toEqual([
      [0, 1, null],
      [1, 1, '2026-11-20'],
    ]);
    // tmdb numbers shows and movies separately: the same number is another item.
    expect(await findCatalogItem('movie', 'tmdb', tmdb)).toBeNull();
    expect(await findCatalogItem('movie', 'tmdb', movieId)).toMatchObject({ releaseDate: '2026-12-01' });
    expect(await findCatalogItem('show', 'igdb', tmdb)).toBeNull();
  });

  it('matches an existing item by any shared id and gives it the ids it lacked', async () => {
    const [tmdb, tvdb] = [freshId(), freshId()];
    const first = await storeCatalogRecords([show({ tvdb }, [episode(1, 1, '2026-01-01')], 'Known by TheTVDB')]);
    const second = await storeCatalogRecords([show({ tmdb, tvdb }, [episode(1, 2, '2026-01-08')], 'Known by both')]);
    const databaseId = first.items[0]!.databaseId;
    expect(second.items[0]).toEqual({ kind: 'show', databaseId, ids: { tmdb, tvdb } });
    expect(await findCatalogItem('show', 'tmdb', tmdb)).toMatchObject({ id: databaseId, tvdbId: tvdb, title: 'Known by both' });
    expect(await db().show.count({ where: { OR: [{ tmdbId: tmdb }, { tvdbId: tvdb }] } })).toBe(1);
    expect((await episodesOf(databaseId)).map((entry) => entry.number)).toEqual([1, 2]);

    // And the other way round: later records known by tmdb only still land on the same row.
    const third = await storeCatalogRecords([show({ tmdb }, [], 'Known by both')]);
    expect(third.items[0]!.databaseId).toBe(databaseId);
    expect(third.changes).toBe(0);
  });

  it('matches episodes by (show, season, number): dates move, new ones appear, missing ones stay', async () => {
    const tmdb = freshId();
    const { items } = await storeCatalogRecords([
      show({ tmdb }, [episode(1, 1, '2026-11-01'), episode(1, 2, '2026-11-08'), episode(1, 3, null)]),
    ]);
    const showId = items[0]!.databaseId;
    const [one, two, three] = await episodesOf(showId);
    const before = await catalogVersion();

    const result = await storeCatalogRecords([
      // Episode 1 left out, episode 2 postponed, episode 3 dated and renamed, episode 4 and a special announced.
      show({ tmdb }, [episode(1, 2, '2026-11-15'), episode(1, 3, '2026-11-22', 'Finale'), episode(1, 4, '2026-11-29'), episode(0, 1, '2026-11-30')]),
    ]);
    expect(result.changes).toBe(4);
    expect(await catalogVersion()).toBe(before + 1);
    const after = await episodesOf(showId);
    expect(after.map((entry) => [entry.id, entry.season, entry.number, entry.title, entry.airDate])).toEqual([
      [expect.any(Number), 0, 1, 'Episode 1', '2026-11-30'],
      [one!.id, 1, 1, 'Episode 1', '2026-11-01'],
      [two!.id, 1, 2, 'Episode 2', '2026-11-15'],
      [three!.id, 1, 3, 'Finale', '2026-11-22'],
      [expect.any(Number), 1, 4, 'Episode 4', '2026-11-29'],
    ]);
    expect(after.find((entry) => entry.number === 1 && entry.season === 1)!.updatedAt).toEqual(one!.updatedAt);
  });

  it('writes nothing at all when the data has not changed', async () => {
    const [tmdb, tvdb, movieId, gameId] = [freshId(), freshId(), freshId(), freshId()];
    const records = [
      { ...show({ tmdb, tvdb }, [episode(1, 1, '2026-11-01'), episode(1, 2, null, null)]), poster: 'https://images.example/a.jpg', overview: 'Text' },
      movie(movieId, null),
      { kind: 'game' as const, ids: { igdb: gameId }, title: 'A Game', poster: null, overview: null, releaseDate: '2027-03-01' },
    ];
    await storeCatalogRecords(records);
    const version = await catalogVersion();
    const rows = {
      show: await db().show.findUniqueOrThrow({ where: { tmdbId: tmdb } }),
      movie: await db().movie.findUniqueOrThrow({ where: { tmdbId: movieId } }),
      game: await db().game.findUniqueOrThrow({ where: { igdbId: gameId } }),
    };
    const episodes = await episodesOf(rows.show.id);

    await new Promise((resolve) => setTimeout(resolve, 5)); // an updatedAt rewrite would now differ
    const again = await storeCatalogRecords(structuredClone(records));
    expect(again.changes).toBe(0);
    expect(again.items.map((item) => item.databaseId)).toEqual([rows.show.id, rows.movie.id, rows.game.id]);
    expect(await catalogVersion()).toBe(version);
    expect(await db().show.findUniqueOrThrow({ where: { id: rows.show.id } })).toEqual(rows.show);
    expect(await db().movie.findUniqueOrThrow({ where: { id: rows.movie.id } })).toEqual(rows.movie);
    expect(await db().game.findUniqueOrThrow({ where: { id: rows.game.id } })).toEqual(rows.game);
    expect(await episodesOf(rows.show.id)).toEqual(episodes);
  });

  it('updates titles, posters and release dates that changed, with one version bump for the batch', async () => {
    const movieId = freshId();
    await storeCatalogRecords([movie(movieId, null, 'Working Title')]);
    const before = await catalogVersion();
    const changed = { ...movie(movieId, '2027-02-14', 'Final Title'), poster: 'https://images.example/final.jpg' };
    expect((await storeCatalogRecords([changed])).changes).toBe(1);
    expect(await findCatalogItem('movie', 'tmdb', movieId)).toMatchObject({
      title: 'Final Title',
      poster: 'https://images.example/final.jpg',
      releaseDate: '2027-02-14',
    });
    expect(await catalogVersion()).toBe(before + 1);
  });

  it('keeps the first match when ids point at two different items, and never replaces a stored id', async () => {
    const [tmdbA, tvdbB, tvdbA, tmdbOther] = [freshId(), freshId(), freshId(), freshId()];
    const { items } = await storeCatalogRecords([show({ tmdb: tmdbA }, [], 'A'), show({ tvdb: tvdbB }, [], 'B')]);
    const [rowA, rowB] = items.map((item) => item.databaseId);

    // tmdb says A, tvdb says B: A wins (tmdb is matched first), B keeps its tvdb id.
    const conflict = await storeCatalogRecords([show({ tmdb: tmdbA, tvdb: tvdbB }, [episode(1, 1, null)], 'A renamed')]);
    expect(conflict.items[0]).toEqual({ kind: 'show', databaseId: rowA, ids: { tmdb: tmdbA } });
    expect(await findCatalogItem('show', 'tvdb', tvdbB)).toMatchObject({ id: rowB, title: 'B', tmdbId: null });
    expect(await findCatalogItem('show', 'tmdb', tmdbA)).toMatchObject({ id: rowA, title: 'A renamed', tvdbId: null });

    // A gains a tvdb id; a record pairing that tvdb id with another tmdb id does not move A's tmdb id.
    await storeCatalogRecords([show({ tmdb: tmdbA, tvdb: tvdbA }, [], 'A renamed')]);
    const other = await storeCatalogRecords([show({ tmdb: tmdbOther, tvdb: tvdbA }, [], 'A again')]);
    expect(other.items[0]).toEqual({ kind: 'show', databaseId: rowA, ids: { tmdb: tmdbA, tvdb: tvdbA } });
    expect(await findCatalogItem('show', 'tmdb', tmdbOther)).toBeNull();
  });

  it('merges records of one batch that share an id into one item', async () => {
    const [tmdb, tvdb] = [freshId(), freshId()];
    const { items } = await storeCatalogRecords([
      show({ tvdb }, [episode(1, 1, '2026-05-01')], 'From TheTVDB'),
      show({ tmdb, tvdb }, [episode(1, 2, '2026-05-08')], 'From TMDB'),
    ]);
    expect(items[0]!.databaseId).toBe(items[1]!.databaseId);
    expect(await findCatalogItem('show', 'tvdb', tvdb)).toMatchObject({ tmdbId: tmdb, title: 'From TMDB' });
    expect((await episodesOf(items[0]!.databaseId)).map((entry) => entry.number)).toEqual([1, 2]);
  });

  it('refuses a record without any id of its kind, writing nothing', async () => {
    const before = await catalogVersion();
    const orphan = { kind: 'movie' as const, ids: { tvdb: freshId() }, title: 'No tmdb', poster: null, overview: null, releaseDate: null };
    await expect(storeCatalogRecords([movie(freshId(), null), orphan])).rejects.toThrow('has none of the ids tmdb');
    expect(await catalogVersion()).toBe(before);
  });

  it('keeps stored data when the offline file becomes invalid', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'airdate-store-'));
    const file = path.join(folder, 'catalog.json');
    const tmdb = freshId();
    const content = { shows: [{ ids: { tmdb }, title: 'Offline Show', episodes: [{ season: 1, number: 1, title: 'One', air_date: '2026-11-20' }] }] };
    writeFileSync(file, JSON.stringify(content));
    const provider = createOfflineProvider(file);
    await storeCatalogRecords(await provider.listAll());
    const version = await catalogVersion();

    writeFileSync(file, JSON.stringify({ shows: [{ ...content.shows[0], episodes: [], title: '' }] }));
    await expect(provider.refresh([{ kind: 'show', ids: { tmdb } }]).then(storeCatalogRecords)).rejects.toBeInstanceOf(CatalogFileError);
    const row = await findCatalogItem('show', 'tmdb', tmdb);
    expect(row?.title).toBe('Offline Show');
    expect(await episodesOf(row!.id)).toHaveLength(1);
    expect(await catalogVersion()).toBe(version);
    rmSync(folder, { recursive: true, force: true });
  });

  // Performance, measured on the development container (SQLite file, WAL, synchronous=FULL), 500
  // shows × 50 episodes: first store ≈ 4.2 s (Prisma's createMany costs ≈ 0.1 ms a row), unchanged
  // re-store ≈ 0.13 s (three reads, no writes), one air date changed ≈ 0.2 s, every air date
  // changed ≈ 13 s (one UPDATE per changed episode). Kept as a behaviour test (batched writes must be
  // complete and idempotent), not as a timer that would flake on slow machines.
  it('stores a large catalog in batches and re-stores it without writing', async () => {
    const base = 5_000_000;
    const shows = Array.from({ length: 500 }, (_, index) =>
      show(
        { tmdb: base + index, tvdb: base + index },
        Array.from({ length: 50 }, (_unused, number) => episode(1 + Math.floor(number / 10), number + 1, `2026-01-${String(1 + (number % 28)).padStart(2, '0')}`)),
      ),
    );
    const first = await storeCatalogRecords(shows);
    expect(first.changes).toBe(500 + 500 * 50);
    expect(new Set(first.items.map((item) => item.databaseId)).size).toBe(500);
    const version = await catalogVersion();
    const again = await storeCatalogRecords(shows);
    expect(again.changes).toBe(0);
    expect(again.items).toEqual(first.items);
    expect(await catalogVersion()).toBe(version);
    expect(await db().episode.count({ where: { show: { tmdbId: { gte: base } } } })).toBe(500 * 50);
  });
});

describe('storeCatalogRecords with the ids export files carry', () => {
  it('matches by imdb, tvdb (movies) and giantbomb, keeps them on new rows, and stores episode ids without moving one', async () => {
    const [tmdb, tvdb, other] = [freshId(), freshId(), freshId()];
    const imdb = `tt${freshId()}`;
    const first = await storeCatalogRecords([
      show({ tmdb, imdb }, [{ ...episode(1, 1, '2020-01-01'), ids: { tvdb: tvdb, imdb: `tt${tvdb}` } }, episode(1, 2, null)]),
      { kind: 'movie', ids: { tmdb: other, tvdb: other, imdb: `tt${other}` }, title: 'Film', poster: null, overview: null, releaseDate: null },
      { kind: 'game', ids: { igdb: other, giantbomb: other }, title: 'Game', poster: null, overview: null, releaseDate: null },
    ]);
    const [showRow, movieRow, gameRow] = first.items;
    expect(showRow!.ids).toEqual({ tmdb, imdb });
    expect((await db().movie.findUniqueOrThrow({ where: { id: movieRow!.databaseId } })).imdbId).toBe(`tt${other}`);
    expect((await db().game.findUniqueOrThrow({ where: { id: gameRow!.databaseId } })).giantbombId).toBe(other);

    // Another catalog's record of the same show, known here by its imdb id only: same row, gains tvdb.
    const showTvdb = freshId();
    const second = await storeCatalogRecords([
      show({ tvdb: showTvdb, imdb }, [
        { ...episode(1, 1, '2020-01-01'), ids: { tvdb: freshId(), tmdb: tvdb } }, // a different tvdb id: the stored one stays
        { ...episode(1, 2, null), ids: { tvdb } }, // episode 1's id: not moved to episode 2
      ], 'Another title'),
      { kind: 'movie', ids: { tmdb: freshId(), tvdb: other }, title: 'Film', poster: null, overview: null, releaseDate: null },
    ]);
    expect(second.items[0]!.databaseId).toBe(showRow!.databaseId);
    expect(second.items[0]!.ids).toEqual({ tmdb, tvdb: showTvdb, imdb });
    expect(second.items[1]!.databaseId).toBe(movieRow!.databaseId);
    const episodes = await episodesOf(showRow!.databaseId);
    expect(episodes.map((row) => [row.number, row.tvdbId, row.tmdbId, row.imdbId])).toEqual([
      [1, tvdb, tvdb, `tt${tvdb}`],
      [2, null, null, null],
    ]);
    // Storing the same again writes nothing.
    const version = await catalogVersion();
    const again = await storeCatalogRecords([show({ tmdb, tvdb: showTvdb, imdb }, [{ ...episode(1, 1, '2020-01-01'), ids: { tvdb, tmdb: tvdb, imdb: `tt${tvdb}` } }, episode(1, 2, null)], 'Another title')]);
    expect(again.changes).toBe(0);
    expect(await catalogVersion()).toBe(version);
  });
});
