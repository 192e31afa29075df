import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDemoCatalog } from '../../src/catalog/demo-catalog.ts';
import {
  CatalogFileError,
  createOfflineProvider,
  loadOfflineCatalog,
  parseOfflineCatalog,
  parseOfflineCatalogInTurns,
  type OfflineCatalogFile,
} from '../../src/catalog/offline-catalog.ts';
import type { CatalogRecord, CatalogShow } from '../../src/catalog/provider.ts';
import { createCatalogProviders } from '../../src/catalog/providers.ts';
import { loadConfig } from '../../src/config.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-catalog-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let fileCount = 0;
function writeCatalog(content: unknown, name = `catalog-${++fileCount}.json`): string {
  const file = path.join(folder, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The example from offline-catalog.md, verbatim. */
const specExample = {
  shows: [
    {
      ids: { tmdb: 1399, tvdb: 121361 },
      title: 'Example Show',
      poster: 'https://images.example/poster.jpg',
      overview: 'optional text',
      episodes: [
        { season: 1, number: 1, title: 'Pilot', air_date: '2026-11-20' },
        { season: 0, number: 1, title: 'Behind the scenes', air_date: '2026-11-21' },
      ],
    },
  ],
  movies: [{ ids: { tmdb: 603 }, title: 'Example Movie', release_date: '2026-11-22', poster: null }],
  games: [{ ids: { igdb: 1942 }, title: 'Example Game', release_date: '2026-11-21', poster: null }],
};

describe('loadOfflineCatalog', () => {
  it('reads the example from the specification into provider records', async () => {
    const catalog = await loadOfflineCatalog(writeCatalog(specExample));
    expect(catalog.records).toEqual([
      {
        kind: 'show',
        ids: { tmdb: 1399, tvdb: 121361 },
        title: 'Example Show',
        poster: 'https://images.example/poster.jpg',
        overview: 'optional text',
        episodes: [
          { season: 1, number: 1, title: 'Pilot', airDate: '2026-11-20' },
          { season: 0, number: 1, title: 'Behind the scenes', airDate: '2026-11-21' },
        ],
      },
      { kind: 'movie', ids: { tmdb: 603 }, title: 'Example Movie', poster: null, overview: null, releaseDate: '2026-11-22' },
      { kind: 'game', ids: { igdb: 1942 }, title: 'Example Game', poster: null, overview: null, releaseDate: '2026-11-21' },
    ]);
  });

  it('accepts a file saved with a byte order mark, and leaves out empty sections', async () => {
    const catalog = await loadOfflineCatalog(writeCatalog(`\uFEFF${JSON.stringify({ movies: specExample.movies })}`));
    expect(catalog.records.map((record) => record.title)).toEqual(['Example Movie']);
  });

  it('names the path when the file is missing, a folder, or not JSON', async () => {
    const missing = path.join(folder, 'nowhere.json');
    await expect(loadOfflineCatalog(missing)).rejects.toThrow(`catalog file ${missing}: cannot read: file not found`);
    await expect(loadOfflineCatalog(folder)).rejects.toThrow(`catalog file ${folder}: cannot read: is a directory`);
    const broken = writeCatalog('{"shows": [');
    const error = await loadOfflineCatalog(broken).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CatalogFileError);
    expect((error as CatalogFileError).message).toMatch(new RegExp(`^catalog file ${broken}: not valid JSON \\(`));
  });

  const show = (extra: Record<string, unknown>) => ({ ids: { tmdb: 1 }, title: 'A Show', ...extra });
  const episode = (extra: Record<string, unknown>) => ({ season: 1, number: 1, title: 'Pilot', air_date: '2026-11-20', ...extra });
  const invalidFiles: [string, unknown, string][] = [
    ['a top-level array', [], 'expected a JSON object with shows, movies and games'],
    ['a misspelt section', { show: [] }, 'unknown key "show" (allowed: shows, movies, games)'],
    ['a section that is not an array', { movies: {} }, 'movies: expected an array of movies'],
    ['an item without ids', { shows: [{ title: 'A Show' }] }, 'shows[0].ids: missing, expected an object with tmdb, tvdb, imdb'],
    ['empty ids', { shows: [show({ ids: {} })] }, 'shows[0].ids: expected at least one of tmdb, tvdb'],
    ['an id of the wrong catalog', { movies: [{ ids: { igdb: 5 }, title: 'M', release_date: null }] }, 'movies[0].ids: unknown id "igdb" (allowed: tmdb, tvdb, imdb)'],
    // The ids export files key items by: optional, bounded like the others, never enough alone.
    ['a movie known by imdb only', { movies: [{ ids: { imdb: 'tt0133093' }, title: 'M', release_date: null }] }, 'movies[0].ids: expected at least one of tmdb'],
    ['a game known by giantbomb only', { games: [{ ids: { giantbomb: 12 }, title: 'G', release_date: null }] }, 'games[0].ids: expected at least one of igdb'],
    ['an imdb id without tt', { shows: [show({ ids: { tmdb: 1, imdb: '0944947' } })] }, 'shows[0].ids.imdb: expected an IMDb id (tt followed by 1 to 10 digits)'],
    ['an imdb id as a number', { movies: [{ ids: { tmdb: 2, imdb: 944947 }, title: 'M', release_date: null }] }, 'movies[0].ids.imdb: expected an IMDb id (tt followed by 1 to 10 digits)'],
    ['an imdb id of 11 digits', { shows: [show({ ids: { tmdb: 1, imdb: 'tt12345678901' } })] }, 'shows[0].ids.imdb: expected an IMDb id (tt followed by 1 to 10 digits)'],
    ['a giantbomb id past 32 bits', { games: [{ ids: { igdb: 4, giantbomb: 2 ** 31 }, title: 'G', release_date: null }] }, 'games[0].ids.giantbomb: expected a positive integer up to 2147483647'],
    ['a misspelt episode id', { shows: [show({ episodes: [episode({ ids: { tvbd: 5 } })] })] }, 'shows[0].episodes[0].ids: unknown id "tvbd" (allowed: tvdb, tmdb, imdb)'],
    ['an episode tvdb id of 0', { shows: [show({ episodes: [episode({ ids: { tvdb: 0 } })] })] }, 'shows[0].episodes[0].ids.tvdb: expected a positive integer'],
    ['an episode imdb id that is not one', { shows: [show({ episodes: [episode({ ids: { imdb: 'nm0000001' } })] })] }, 'shows[0].episodes[0].ids.imdb: expected an IMDb id (tt followed by 1 to 10 digits)'],
    ['two movies sharing an imdb id', { movies: [{ ids: { tmdb: 2, imdb: 'tt1' }, title: 'M', release_date: null }, { ids: { tmdb: 3, imdb: 'tt1' }, title: 'N', release_date: null }] }, 'movies[1].ids.imdb: imdb id tt1 is already used by movies[0]'],
    ['two episodes sharing a tvdb id', { shows: [show({ episodes: [episode({ ids: { tvdb: 7 } })] }), show({ ids: { tmdb: 2 }, episodes: [episode({ ids: { tvdb: 7 } })] })] }, 'shows[1].episodes[0].ids.tvdb: episode tvdb id 7 is already used by shows[0].episodes[0]'],
    ['a fractional id', { shows: [show({ ids: { tvdb: 1.5 } })] }, 'shows[0].ids.tvdb: expected a positive integer'],
    ['an id as a string', { games: [{ ids: { igdb: '7' }, title: 'G', release_date: null }] }, 'games[0].ids.igdb: expected a positive integer'],
    ['a zero id', { shows: [show({ ids: { tmdb: 0 } })] }, 'shows[0].ids.tmdb: expected a positive integer'],
    ['a blank title', { shows: [show({ title: '  ' })] }, 'shows[0].title: expected a non-empty string'],
    ['a poster that is not a URL', { shows: [show({ poster: 'poster.jpg' })] }, 'shows[0].poster: expected an http(s) URL or null'],
    ['a negative season', { shows: [show({ episodes: [episode({ season: -1 })] })] }, 'shows[0].episodes[0].season: expected an integer ≥ 0'],
    ['episode number 0', { shows: [show({ episodes: [episode({ number: 0 })] })] }, 'shows[0].episodes[0].number: expected an integer ≥ 1'],
    ['a date in another format', { shows: [show({ episodes: [episode({ air_date: '20/11/2026' })] })] }, 'shows[0].episodes[0].air_date: expected YYYY-MM-DD or null ("20/11/2026" is not a calendar date)'],
    ['a day that does not exist', { movies: [{ ids: { tmdb: 2 }, title: 'M', release_date: '2026-02-30' }] }, 'movies[0].release_date: expected YYYY-MM-DD or null ("2026-02-30" is not a calendar date)'],
    ['a missing air date', { shows: [show({ episodes: [{ season: 1, number: 1 }] })] }, 'shows[0].episodes[0].air_date: missing, expected YYYY-MM-DD or null'],
    ['the same episode twice', { shows: [show({ episodes: [episode({}), episode({ title: 'Again' })] })] }, 'shows[0].episodes[1]: duplicate episode (season 1, number 1 is already episodes[0])'],
    ['two shows sharing an id', { shows: [show({}), show({ ids: { tvdb: 9, tmdb: 1 }, title: 'B' })] }, 'shows[1].ids.tmdb: tmdb id 1 is already used by shows[0]'],
    // The catalog's bounds (src/limits.ts), the same an import or a network catalog is held to.
    ['a title of 501 characters', { shows: [show({ title: 'x'.repeat(501) })] }, 'shows[0].title: expected at most 500 characters'],
    ['an episode title of 501 emoji', { shows: [show({ episodes: [episode({ title: '🎬'.repeat(501) })] })] }, 'shows[0].episodes[0].title: expected at most 500 characters'],
    ['an overview of 10 001 characters', { movies: [{ ids: { tmdb: 2 }, title: 'M', overview: 'o'.repeat(10_001), release_date: null }] }, 'movies[0].overview: expected at most 10000 characters'],
    ['a poster of 1 025 characters', { shows: [show({ poster: `https://img.example/${'p'.repeat(1_005)}` })] }, 'shows[0].poster: expected at most 1024 characters'],
    ['a season past 32 bits', { shows: [show({ episodes: [episode({ season: 2 ** 31 })] })] }, 'shows[0].episodes[0].season: expected an integer up to 2147483647'],
    ['an id past 32 bits', { games: [{ ids: { igdb: 2 ** 31 }, title: 'G', release_date: null }] }, 'games[0].ids.igdb: expected a positive integer up to 2147483647'],
    ['an air date before 1800', { shows: [show({ episodes: [episode({ air_date: '1799-12-31' })] })] }, 'shows[0].episodes[0].air_date: expected a date from 1800-01-01 to 2199-12-31 (1799-12-31 is outside)'],
    ['a release date after 2199', { games: [{ ids: { igdb: 3 }, title: 'G', release_date: '2200-01-01' }] }, 'games[0].release_date: expected a date from 1800-01-01 to 2199-12-31 (2200-01-01 is outside)'],
    ['a runtime of 0 minutes', { shows: [show({ episodes: [episode({ runtime: 0 })] })] }, 'shows[0].episodes[0].runtime: expected minutes from 1 to 20160'],
    ['a runtime past a week', { movies: [{ ids: { tmdb: 2 }, title: 'M', release_date: null, runtime: 20_161 }] }, 'movies[0].runtime: expected minutes from 1 to 20160'],
    ['a runtime in hours', { movies: [{ ids: { tmdb: 2 }, title: 'M', release_date: null, runtime: 1.5 }] }, 'movies[0].runtime: expected a whole number of minutes or null'],
  ];

  it.each(invalidFiles)('refuses %s, naming the path and the problem', async (_case, content, problem) => {
    const file = writeCatalog(content);
    await expect(loadOfflineCatalog(file)).rejects.toThrow(new CatalogFileError(file, problem));
  });

  it('takes every value at its bound', async () => {
    const atBounds = {
      shows: [
        show({
          title: '🎬'.repeat(500),
          poster: `https://img.example/${'p'.repeat(1_004)}`,
          overview: 'é'.repeat(10_000),
          episodes: [episode({ season: 2 ** 31 - 1, number: 2 ** 31 - 1, title: 'x'.repeat(500), air_date: '1800-01-01' })],
        }),
      ],
      movies: [{ ids: { tmdb: 2 ** 31 - 1 }, title: 'M', release_date: '2199-12-31' }],
    };
    const catalog = await loadOfflineCatalog(writeCatalog(atBounds));
    expect(catalog.records.map((record) => [...record.title].length)).toEqual([500, 1]);
  });

  it('an over-long title stops the start, naming the path and the problem, before anything is stored', async () => {
    const file = writeCatalog({ shows: [show({ title: 'x'.repeat(1_000_000) })] });
    const config = loadConfig({ AIRDATE_DATA_DIR: folder, AIRDATE_CATALOG_FILE: file, AIRDATE_LOG_LEVEL: 'silent' });
    // What the server runs once it listens; the database is never opened here, so nothing can be stored.
    await expect(createCatalogProviders(config, { warn: () => {} }).storeOffline()).rejects.toThrow(new CatalogFileError(file, 'shows[0].title: expected at most 500 characters'));
  });

  it('reports the first problem in file order when there are several', async () => {
    const content = {
      shows: [show({}), show({ ids: { tmdb: 2 } }), show({ ids: { tmdb: 3 }, episodes: [episode({}), episode({ number: 2, air_date: 'soon' })] })],
      movies: [{ ids: {}, title: '' }],
    };
    const file = writeCatalog(content);
    await expect(loadOfflineCatalog(file)).rejects.toThrow(
      `catalog file ${file}: shows[2].episodes[1].air_date: expected YYYY-MM-DD or null ("soon" is not a calendar date)`,
    );
  });
});

describe('parseOfflineCatalogInTurns (what loading the file runs)', () => {
  /** A catalog of `count` shows of ten episodes and `count` movies, with one ids clash if asked. */
  const bigCatalog = (count: number, clash = false) => ({
    shows: Array.from({ length: count }, (_, index) => ({
      ids: { tmdb: index + 1 },
      title: `Show ${index}`,
      episodes: Array.from({ length: 10 }, (_, number) => ({ season: 1, number: number + 1, title: `E${number}`, air_date: '2026-01-01', ids: { tvdb: index * 100 + number + 1 } })),
    })),
    movies: Array.from({ length: count }, (_, index) => ({ ids: { tmdb: clash && index === count - 1 ? 1 : index + 1 }, title: `Movie ${index}`, release_date: null })),
  });

  it('gives the records parseOfflineCatalog gives, and lets the event loop run while it checks', async () => {
    const data = bigCatalog(2_000);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const inTurns = await parseOfflineCatalogInTurns(data, 'big.json');
    counting = false;
    // 22 000 items checked in one piece would let no other callback run meanwhile.
    expect(turns).toBeGreaterThan(3);
    expect(inTurns).toEqual(parseOfflineCatalog(data, 'big.json'));
    const demo = buildDemoCatalog('2026-11-20');
    expect(await parseOfflineCatalogInTurns(demo, 'demo')).toEqual(parseOfflineCatalog(demo, 'demo'));
  });

  it('names the first problem as parseOfflineCatalog does: an item, a duplicate id across items, the top level', async () => {
    const broken = bigCatalog(50);
    (broken.shows[30]!.episodes[4] as { air_date: string }).air_date = 'soon';
    const duplicate = bigCatalog(50, true);
    for (const data of [broken, duplicate, { ...bigCatalog(2), extra: [] }, []]) {
      const whole = (() => {
        try {
          parseOfflineCatalog(data, 'f.json');
        } catch (error) {
          return error;
        }
      })();
      expect(whole).toBeInstanceOf(CatalogFileError);
      await expect(parseOfflineCatalogInTurns(data, 'f.json')).rejects.toThrow((whole as Error).message);
    }
  });
});

describe('buildDemoCatalog', () => {
  const today = '2026-11-20';
  const demo = buildDemoCatalog(today);
  // What the CLI writes is what the server reads: go through JSON like the real file does.
  const records = parseOfflineCatalog(JSON.parse(JSON.stringify(demo, null, 2)), 'demo').records;
  const shows = records.filter((record): record is CatalogShow => record.kind === 'show');
  const titles = records.filter((record): record is Exclude<CatalogRecord, CatalogShow> => record.kind !== 'show');
  const episodes = shows.flatMap((item) => item.episodes.map((entry) => ({ show: item.title, ...entry })));

  it('is valid under the offline catalog schema, with 4–5 shows, 3 movies and 3 games', () => {
    expect(shows.length).toBeGreaterThanOrEqual(4);
    expect(shows.length).toBeLessThanOrEqual(5);
    expect(titles.filter((item) => item.kind === 'movie')).toHaveLength(3);
    expect(titles.filter((item) => item.kind === 'game')).toHaveLength(3);
    expect(new Set(records.map((record) => record.title)).size).toBe(records.length);
    for (const record of records) expect(record.poster).toMatch(/^https:\/\/images\.example\//);
  });

  it('has episodes, movies and games on today and tomorrow, and undated ones', () => {
    expect(episodes.some((entry) => entry.airDate === today)).toBe(true);
    expect(episodes.some((entry) => entry.airDate === '2026-11-21')).toBe(true);
    expect(episodes.some((entry) => entry.airDate === null)).toBe(true);
    for (const kind of ['movie', 'game']) {
      const dates = titles.filter((item) => item.kind === kind).map((item) => item.releaseDate);
      expect(dates).toEqual(expect.arrayContaining([today, '2026-11-21', null]));
    }
  });

  it('covers specials, three-digit episode numbers and a show entirely in the future', () => {
    expect(episodes.some((entry) => entry.season === 0)).toBe(true);
    expect(episodes.some((entry) => entry.number > 99)).toBe(true);
    const future = shows.filter((item) => item.episodes.every((entry) => entry.airDate !== null && entry.airDate > today));
    expect(future.length).toBeGreaterThan(0);
    const dated = episodes.flatMap((entry) => (entry.airDate ? [entry.airDate] : [])).sort();
    expect(dated[0]! <= '2026-10-10').toBe(true); // about six weeks back
    expect(dated.at(-1)! >= '2026-12-14').toBe(true); // about four weeks ahead
  });

  it('is the same for the same day and moves with the day, across month and year ends', () => {
    expect(buildDemoCatalog(today)).toEqual(demo);
    const newYear = parseOfflineCatalog(buildDemoCatalog('2026-12-31'), 'demo').records;
    expect(newYear.some((record) => record.kind === 'movie' && record.releaseDate === '2027-01-01')).toBe(true);
    expect(() => buildDemoCatalog('2026-13-01')).toThrow('expected a YYYY-MM-DD date');
  });
});

describe('the ids real export files carry', () => {
  const withIds = {
    shows: [{
      ids: { tmdb: 1399, tvdb: 121361, imdb: 'tt0944947' }, title: 'Example Show', poster: null,
      episodes: [
        { season: 1, number: 1, ids: { tvdb: 3254641, imdb: 'tt1480055', tmdb: 63056 }, title: 'Pilot', air_date: '2011-04-17' },
        { season: 1, number: 2, ids: { tvdb: 3436411 }, title: null, air_date: null },
        { season: 1, number: 3, title: null, air_date: null },
      ],
    }],
    movies: [{ ids: { tmdb: 603, tvdb: 169, imdb: 'tt0133093' }, title: 'Example Movie', release_date: '1999-03-31' }],
    games: [{ ids: { igdb: 1942, giantbomb: 36765 }, title: 'Example Game', release_date: null }],
  };

  it('reads them into the records, and a file without them as before', async () => {
    const { records } = parseOfflineCatalog(withIds, 'ids.json');
    const [show, movie, game] = records as [CatalogShow, CatalogRecord, CatalogRecord];
    expect(show.ids).toEqual({ tmdb: 1399, tvdb: 121361, imdb: 'tt0944947' });
    expect(show.episodes.map((episode) => episode.ids)).toEqual([{ tvdb: 3254641, imdb: 'tt1480055', tmdb: 63056 }, { tvdb: 3436411 }, undefined]);
    expect(movie.ids).toEqual({ tmdb: 603, tvdb: 169, imdb: 'tt0133093' });
    expect(game.ids).toEqual({ igdb: 1942, giantbomb: 36765 });
    expect(parseOfflineCatalog(specExample, 'spec.json').records.map((record) => record.ids)).toEqual([{ tmdb: 1399, tvdb: 121361 }, { tmdb: 603 }, { igdb: 1942 }]);
  });

  it('resolves items by any id and episodes by their own ids to the show', async () => {
    const provider = createOfflineProvider(writeCatalog(withIds));
    expect((await provider.resolveId!({ kind: 'show', source: 'imdb', id: 'tt0944947' }))?.title).toBe('Example Show');
    expect((await provider.resolveId!({ kind: 'movie', source: 'tvdb', id: 169 }))?.title).toBe('Example Movie');
    expect((await provider.resolveId!({ kind: 'game', source: 'giantbomb', id: 36765 }))?.title).toBe('Example Game');
    expect((await provider.resolveId!({ kind: 'episode', source: 'tvdb', id: 3436411 }))?.title).toBe('Example Show');
    expect((await provider.resolveId!({ kind: 'episode', source: 'imdb', id: 'tt1480055' }))?.title).toBe('Example Show');
    expect(await provider.resolveId!({ kind: 'episode', source: 'tvdb', id: 121361 })).toBeNull(); // the show's id, not an episode's
    expect(await provider.resolveId!({ kind: 'show', source: 'giantbomb', id: 36765 })).toBeNull();
  });
});

describe('createOfflineProvider', () => {
  it('looks up by any of its ids and searches titles case-insensitively, by kind', async () => {
    const provider = createOfflineProvider(writeCatalog(specExample));
    expect((await provider.lookup('show', 'tvdb', 121361))?.title).toBe('Example Show');
    expect((await provider.lookup('show', 'tmdb', 1399))?.title).toBe('Example Show');
    expect(await provider.lookup('movie', 'tmdb', 1399)).toBeNull();
    expect(await provider.lookup('game', 'igdb', 1)).toBeNull();
    expect((await provider.search('EXAMPLE')).map((record) => record.kind)).toEqual(['game', 'movie', 'show']);
    expect((await provider.search('ample m', 'movie')).map((record) => record.title)).toEqual(['Example Movie']);
    expect(await provider.search('example', 'movie').then((found) => found.length)).toBe(1);
    expect(await provider.search('nothing like it')).toEqual([]);
  });

  it('re-reads the file on refresh, and keeps serving the last good read when it breaks', async () => {
    const file = writeCatalog(specExample);
    const provider = createOfflineProvider(file);
    expect((await provider.lookup('movie', 'tmdb', 603))?.title).toBe('Example Movie');

    const edited = structuredClone(specExample);
    edited.movies[0]!.title = 'Example Movie: Director’s Cut';
    writeCatalog(edited, path.basename(file));
    const refreshed = await provider.refresh([{ kind: 'movie', ids: { tmdb: 603 } }, { kind: 'movie', ids: { tmdb: 999 } }]);
    expect(refreshed.map((record) => record.title)).toEqual(['Example Movie: Director’s Cut']);
    expect((await provider.lookup('movie', 'tmdb', 603))?.title).toBe('Example Movie: Director’s Cut');

    writeCatalog('{ half written', path.basename(file));
    await expect(provider.refresh([{ kind: 'movie', ids: { tmdb: 603 } }])).rejects.toBeInstanceOf(CatalogFileError);
    await expect(provider.listAll()).rejects.toThrow(`catalog file ${file}: not valid JSON`);
    expect((await provider.lookup('movie', 'tmdb', 603))?.title).toBe('Example Movie: Director’s Cut');
  });

  it('resolveId reads the file again when it changed, so ids added since are found; a broken file keeps the last good read', async () => {
    const file = writeCatalog({ movies: specExample.movies });
    const provider = createOfflineProvider(file);
    expect((await provider.resolveId!({ kind: 'movie', source: 'tmdb', id: 603 }))?.title).toBe('Example Movie');
    expect(await provider.resolveId!({ kind: 'game', source: 'igdb', id: 1942 })).toBeNull();

    // The file grows (pending imports wait for exactly this): no refresh in between.
    writeCatalog(specExample, path.basename(file));
    expect((await provider.resolveId!({ kind: 'game', source: 'igdb', id: 1942 }))?.title).toBe('Example Game');

    writeCatalog('{ "games": [ half written', path.basename(file));
    expect((await provider.resolveId!({ kind: 'game', source: 'igdb', id: 1942 }))?.title).toBe('Example Game');
    expect((await provider.resolveId!({ kind: 'movie', source: 'tmdb', id: 603 }))?.title).toBe('Example Movie');
  });

  it('lists every record of the file', async () => {
    const provider = createOfflineProvider(writeCatalog(buildDemoCatalog('2026-11-20') satisfies OfflineCatalogFile));
    expect((await provider.listAll()).length).toBe(11);
  });
});
