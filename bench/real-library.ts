import { writeFileSync } from 'node:fs';
import { db } from '../src/db/client.ts';
import { accountVersionBumps, bumpCatalogVersion } from '../src/db/stale-versions.ts';
import { addDays, type LocalDate } from '../src/time/dates.ts';

/**
 * A library the size of the largest real ones (issue 33, measured from two real Trakt exports and a
 * Grouvee export imported together): 517 followed shows with 25,410 episodes — one of 2,700
 * episodes in seasons of up to 400, one of 440 in 21 seasons — 2,762 films, 431 games, 12,230
 * history entries (the exports had 12,060) and 327 shows up next (329). Seeding it takes 15–50 s
 * on SQLite on a loaded two-core machine. Deterministic for a given
 * `today` (a seeded generator, no Math.random), so a benchmark's figures compare across runs.
 *
 * `buildRealCatalog` gives the catalog as an offline catalog file (spec/offline-catalog.md), so a
 * server pointed at it (AIRDATE_CATALOG_FILE) can search and refresh the same items;
 * `seedRealLibrary` stores those items and an account's library, watch states and history directly
 * (createMany in chunks: seconds, not the minutes an import through the pages takes).
 *
 * What it holds on purpose, for the pages to be tried on:
 * - the 2,700-episode show ("Tides of the Grand Line") watched only in its latest aired episodes:
 *   more than 2,600 aired episodes before them unwatched — a show with holes;
 * - a 440-episode show ("Grey Harbor General") watched through season 14 of 21;
 * - two shows titled "The Office" (2001, 14 episodes; 2005, 201 episodes) and titles starting with
 *   "The", so that search relevance and the year matter;
 * - shows fully watched, shows not started, a few archived, and specials (season 0) on some shows
 *   but not all;
 * - films watched (some twice), to watch, and releasing in the coming months, with titles that
 *   repeat across years (remakes);
 * - games on each of Grouvee's shelves (`shelf`: played, playing, backlog, wish list, dropped).
 */

/** Sizes of the real library (issue 33's import of two Trakt exports and a Grouvee export). */
export const realLibrarySize = { shows: 517, episodes: 25_410, movies: 2_762, games: 431 } as const;

export type GameShelf = 'played' | 'playing' | 'backlog' | 'wishlist' | 'dropped';

export interface RealShow {
  ids: { tmdb: number; tvdb: number };
  title: string;
  poster: string;
  overview: string;
  episodes: { season: number; number: number; title: string; air_date: LocalDate | null; runtime: number }[];
}

export interface RealMovie {
  ids: { tmdb: number };
  title: string;
  poster: string;
  overview: string;
  release_date: LocalDate | null;
  runtime: number;
}

export interface RealGame {
  ids: { igdb: number };
  title: string;
  poster: string;
  overview: string;
  release_date: LocalDate | null;
  /** The Grouvee shelf the game sits on (not part of the catalog file: written out by `catalogFile`). */
  shelf: GameShelf;
}

export interface RealCatalog {
  today: LocalDate;
  shows: RealShow[];
  movies: RealMovie[];
  games: RealGame[];
  /** The two shows with a name: the 2,700-episode one and the 440-episode one (indexes in `shows`). */
  bigShow: number;
  longShow: number;
}

/** Mulberry32: a small seeded generator, so the library is the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const adjectives = ['Silent', 'Crimson', 'Hollow', 'Northern', 'Broken', 'Golden', 'Quiet', 'Electric', 'Paper', 'Iron', 'Velvet', 'Distant', 'Burning', 'Glass', 'Midnight', 'Salt', 'Wild', 'Copper', 'Last', 'Lost', 'Bright', 'Hidden', 'Frozen', 'Scarlet', 'Emerald', 'Lonely', 'Restless', 'Sunken', 'Silver', 'Winter'];
const nouns = ['Harbor', 'Signal', 'Orchard', 'Frontier', 'Kingdom', 'Ledger', 'Lantern', 'Station', 'Garden', 'Empire', 'Tide', 'Circuit', 'Meridian', 'Archive', 'Valley', 'Crossing', 'Engine', 'Parish', 'Canyon', 'District', 'Horizon', 'Harvest', 'Island', 'Tower', 'Academy', 'Manor', 'Republic', 'Avenue', 'Voyage', 'Colony'];
const suffixes = ['', '', '', ': Origins', ' Unit', ' Files', ' Chronicles', ' Project', ' Society', ' Club'];

/** A title from the word lists; "The " before about half, as real titles run. */
function makeTitle(random: () => number, used: Set<string>): string {
  for (;;) {
    const title = `${random() < 0.5 ? 'The ' : ''}${adjectives[Math.floor(random() * adjectives.length)]} ${nouns[Math.floor(random() * nouns.length)]}${suffixes[Math.floor(random() * suffixes.length)]}`;
    if (!used.has(title)) {
      used.add(title);
      return title;
    }
  }
}

/** Splits `total` episodes into seasons of about `perSeason` (the last one takes the rest). */
function seasonsOf(total: number, perSeason: number): number[] {
  const seasons: number[] = [];
  for (let left = total; left > 0; left -= perSeason) seasons.push(Math.min(perSeason, left));
  return seasons;
}

/** Episode counts of the 517 shows: the two long ones, a few long runners, the rest 6–80; 25,410 in all. */
function showSizes(random: () => number): number[] {
  const fixed = [2_700, 440, 201, 14, 1_100, 780, 400, 350, 300, 250, 230, 200];
  const sizes = [...fixed];
  while (sizes.length < realLibrarySize.shows) sizes.push(6 + Math.floor(random() * 40));
  // Bring the sum to the real total by growing (or shrinking) the ordinary shows one episode at a time.
  let sum = sizes.reduce((total, size) => total + size, 0);
  for (let index = fixed.length; sum !== realLibrarySize.episodes; index = index + 1 >= sizes.length ? fixed.length : index + 1) {
    const step = sum < realLibrarySize.episodes ? 1 : -1;
    if (step < 0 && sizes[index]! <= 6) continue;
    sizes[index]! += step;
    sum += step;
  }
  return sizes;
}

/** The catalog of the real library around `today` (episodes mostly aired, some coming, films and games releasing later too). */
export function buildRealCatalog(today: LocalDate, options: { idBase?: number } = {}): RealCatalog {
  const random = seededRandom(33);
  const idBase = options.idBase ?? 7_000_000;
  const used = new Set<string>(['The Office', 'Tides of the Grand Line', 'Grey Harbor General']);
  const poster = (kind: string, index: number) => `https://images.example/real/${kind}-${index}.jpg`;

  const sizes = showSizes(random);
  const shows: RealShow[] = sizes.map((size, index) => {
    const named: Record<number, string> = { 0: 'Tides of the Grand Line', 1: 'Grey Harbor General', 2: 'The Office', 3: 'The Office' };
    const title = named[index] ?? makeTitle(random, used);
    // Some shows have three specials (season 0), counted in their size; most have none.
    const hasSpecials = index % 9 === 4 && size >= 12;
    const regular = hasSpecials ? size - 3 : size;
    // Seasons: the 2,700-episode show in seasons up to 400 long; long runners ~22 an season; the rest 8–13.
    const seasons = index === 0 ? [400, 400, 350, 300, 250, 200, 150, 150, 130, 120, 100, 100, 50] : index === 1 ? seasonsOf(440, 21) : index === 2 ? seasonsOf(201, 24) : index === 3 ? [6, 6, 2] : seasonsOf(regular, regular > 150 ? 22 : 8 + Math.floor(random() * 6));
    if (seasons.reduce((total, count) => total + count, 0) !== regular) throw new Error(`show ${index}: seasons do not add up to ${regular}`);
    // When it started: the 2001 and 2005 Offices by their real years; the rest so that the show's
    // last episode airs from a year ago to a few months ahead (weekly; the long anime twice a week).
    const interval = index === 0 ? 3 : 7;
    const lastOffset = index === 2 ? -6_000 : index === 3 ? -8_000 : Math.floor(random() * 500) - 380;
    const firstOffset = lastOffset - (regular - 1) * interval;
    const episodes: RealShow['episodes'] = [];
    let position = 0;
    seasons.forEach((count, seasonIndex) => {
      for (let number = 1; number <= count; number += 1, position += 1) {
        const offset = firstOffset + position * interval;
        // A few far-future episodes have no date yet, as catalogs list announced ones.
        const airDate = offset > 120 ? null : addDays(today, offset);
        episodes.push({ season: seasonIndex + 1, number, title: `Episode ${number}`, air_date: airDate, runtime: index === 0 ? 24 : 30 + (index % 4) * 10 });
      }
    });
    if (hasSpecials) for (let number = 1; number <= 3; number += 1) episodes.push({ season: 0, number, title: `Special ${number}`, air_date: addDays(today, firstOffset + number * 60), runtime: 45 });
    return { ids: { tmdb: idBase + index, tvdb: idBase + 500_000 + index }, title, poster: poster('show', index), overview: `${title}: a show of ${size} episodes.`, episodes };
  });

  const remakes = ['The Thing', 'Little Women', 'Dune', 'The Office Party'];
  const movies: RealMovie[] = Array.from({ length: realLibrarySize.movies }, (_, index) => {
    const title = index < remakes.length * 3 ? remakes[index % remakes.length]! : makeTitle(random, used);
    // Mostly released over the last 60 years; the last 62 release over the coming months.
    const offset = index >= realLibrarySize.movies - 62 ? 3 + (index % 180) : -Math.floor(random() * 60 * 365) - 1;
    return { ids: { tmdb: idBase + 100_000 + index }, title, poster: poster('movie', index), overview: `${title}, a film.`, release_date: addDays(today, offset), runtime: 85 + Math.floor(random() * 80) };
  });

  const shelves: [GameShelf, number][] = [['played', 200], ['playing', 25], ['backlog', 120], ['wishlist', 70], ['dropped', 16]];
  const shelfOf = shelves.flatMap(([shelf, count]) => Array.from({ length: count }, () => shelf));
  const games: RealGame[] = Array.from({ length: realLibrarySize.games }, (_, index) => {
    const title = makeTitle(random, used);
    const shelf = shelfOf[index]!;
    const offset = shelf === 'wishlist' && index % 3 === 0 ? 10 + index : -Math.floor(random() * 25 * 365) - 1;
    return { ids: { igdb: idBase + 200_000 + index }, title, poster: poster('game', index), overview: `${title}, a game.`, release_date: addDays(today, offset), shelf };
  });

  return { today, shows, movies, games, bigShow: 0, longShow: 1 };
}

/** The catalog as an offline catalog file's document (the games' shelves left out: they are the account's, not the catalog's). */
export function catalogFile(catalog: RealCatalog): object {
  return {
    shows: catalog.shows,
    movies: catalog.movies,
    games: catalog.games.map(({ shelf: _shelf, ...game }) => game),
  };
}

/** Writes the catalog to `file` for AIRDATE_CATALOG_FILE. */
export function writeCatalogFile(catalog: RealCatalog, file: string): void {
  writeFileSync(file, JSON.stringify(catalogFile(catalog)));
}

/** Rows per createMany: well within SQLite's bound on parameters per statement. */
const chunkRows = 100;

async function inChunks<T>(rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += chunkRows) await write(rows.slice(start, start + chunkRows));
}

/** What `seedRealLibrary` stored: database ids, and counts to print beside a benchmark's figures. */
export interface SeededRealLibrary {
  showIds: number[];
  movieIds: number[];
  gameIds: number[];
  /** The database id of the 2,700-episode show and of the 440-episode one. */
  bigShowId: number;
  longShowId: number;
  counts: { shows: number; episodes: number; movies: number; games: number; history: number; watchedEpisodes: number; upNextShows: number };
}

/**
 * Stores `catalog`'s items (or finds them, when another account or the catalog file stored them
 * first) and gives `accountId` the real library: every show followed (8 archived), films and games
 * in the library, watch states and one history entry per watch (some films twice), dated over the
 * last years. How far each show is watched:
 * - the 2,700-episode show: only its last 12 aired episodes (the holes);
 * - the 440-episode show: seasons 1–14;
 * - 180 shows fully watched up to today, 37 not started (8 of them archived);
 * - the others: watched up to a point before their last aired episode (something up next).
 */
export async function seedRealLibrary(accountId: number, catalog: RealCatalog): Promise<SeededRealLibrary> {
  const client = db();
  const random = seededRandom(accountId * 7919 + 33);
  const today = catalog.today;
  const now = Date.now();

  const existingShows = new Map((await client.show.findMany({ where: { tmdbId: { in: catalog.shows.map((show) => show.ids.tmdb) } }, select: { id: true, tmdbId: true } })).map((row) => [row.tmdbId!, row.id]));
  const missingShows = catalog.shows.filter((show) => !existingShows.has(show.ids.tmdb));
  await inChunks(missingShows, (chunk) => client.show.createMany({ data: chunk.map((show) => ({ tmdbId: show.ids.tmdb, tvdbId: show.ids.tvdb, title: show.title, poster: show.poster, overview: show.overview })) }));
  const showRows = new Map((await client.show.findMany({ where: { tmdbId: { in: catalog.shows.map((show) => show.ids.tmdb) } }, select: { id: true, tmdbId: true } })).map((row) => [row.tmdbId!, row.id]));
  const showIds = catalog.shows.map((show) => showRows.get(show.ids.tmdb)!);
  const newEpisodes = missingShows.flatMap((show) => show.episodes.map((episode) => ({ showId: showRows.get(show.ids.tmdb)!, season: episode.season, number: episode.number, title: episode.title, airDate: episode.air_date, runtime: episode.runtime })));
  await inChunks(newEpisodes, (chunk) => client.episode.createMany({ data: chunk }));

  for (const kind of ['movie', 'game'] as const) {
    const items = kind === 'movie' ? catalog.movies : catalog.games;
    const idOf = (item: RealMovie | RealGame) => ('tmdb' in item.ids ? item.ids.tmdb : item.ids.igdb);
    const stored = kind === 'movie'
      ? await client.movie.findMany({ where: { tmdbId: { in: items.map(idOf) } }, select: { tmdbId: true } })
      : await client.game.findMany({ where: { igdbId: { in: items.map(idOf) } }, select: { igdbId: true } });
    const known = new Set(stored.map((row) => ('tmdbId' in row ? row.tmdbId : row.igdbId)));
    const missing = items.filter((item) => !known.has(idOf(item)));
    if (kind === 'movie') await inChunks(missing as RealMovie[], (chunk) => client.movie.createMany({ data: chunk.map((movie) => ({ tmdbId: movie.ids.tmdb, title: movie.title, poster: movie.poster, overview: movie.overview, releaseDate: movie.release_date, runtime: movie.runtime })) }));
    else await inChunks(missing as RealGame[], (chunk) => client.game.createMany({ data: chunk.map((game) => ({ igdbId: game.ids.igdb, title: game.title, poster: game.poster, overview: game.overview, releaseDate: game.release_date })) }));
  }
  const movieRows = new Map((await client.movie.findMany({ where: { tmdbId: { in: catalog.movies.map((movie) => movie.ids.tmdb) } }, select: { id: true, tmdbId: true } })).map((row) => [row.tmdbId!, row.id]));
  const gameRows = new Map((await client.game.findMany({ where: { igdbId: { in: catalog.games.map((game) => game.ids.igdb) } }, select: { id: true, igdbId: true } })).map((row) => [row.igdbId!, row.id]));
  const movieIds = catalog.movies.map((movie) => movieRows.get(movie.ids.tmdb)!);
  const gameIds = catalog.games.map((game) => gameRows.get(game.ids.igdb)!);

  // The library: every show followed (the last 8 archived), every film and game in it.
  const followedAt = new Date(now - 400 * 86_400_000);
  await inChunks(showIds.map((showId, index) => ({ accountId, kind: 'show', showId, followed: true, followExplicit: true, followedAt, archived: index >= showIds.length - 8, archiveExplicit: index >= showIds.length - 8 })), (chunk) => client.libraryItem.createMany({ data: chunk }));
  await inChunks(movieIds.map((movieId) => ({ accountId, kind: 'movie', movieId, followed: true, followExplicit: true, followedAt })), (chunk) => client.libraryItem.createMany({ data: chunk }));
  await inChunks(gameIds.map((gameId) => ({ accountId, kind: 'game', gameId, followed: true, followExplicit: true, followedAt })), (chunk) => client.libraryItem.createMany({ data: chunk }));

  // Which episodes are watched, per show (see above), by (season, number) order; specials never.
  const episodeRows = await client.episode.findMany({ where: { showId: { in: showIds } }, select: { id: true, showId: true, season: true, number: true, airDate: true }, orderBy: [{ showId: 'asc' }, { season: 'asc' }, { number: 'asc' }] });
  const byShow = new Map<number, typeof episodeRows>();
  for (const episode of episodeRows) {
    const list = byShow.get(episode.showId) ?? [];
    list.push(episode);
    byShow.set(episode.showId, list);
  }
  const watchedEpisodes: number[] = [];
  let upNextShows = 0;
  showIds.forEach((showId, index) => {
    const aired = (byShow.get(showId) ?? []).filter((episode) => episode.season !== 0 && episode.airDate !== null && episode.airDate <= today);
    let watched: typeof aired;
    if (index === catalog.bigShow) watched = aired.slice(-12);
    else if (index === catalog.longShow) watched = aired.filter((episode) => episode.season <= 14);
    else if (index >= 300 && index < 480) watched = aired;
    else if (index >= 480) watched = [];
    else watched = aired.slice(0, Math.max(1, Math.floor(aired.length * (0.05 + random() * 0.45))));
    if (watched.length > 0 && watched.length < aired.length && index !== catalog.bigShow) upNextShows += 1;
    watchedEpisodes.push(...watched.map((episode) => episode.id));
  });

  // States and history, dated over the last four years in the order watched.
  const span = 4 * 365 * 86_400_000;
  const dated = (position: number, total: number) => new Date(now - span + Math.floor((position / Math.max(1, total)) * span) - 3_600_000);
  const episodeStates = watchedEpisodes.map((episodeId, position) => ({ accountId, kind: 'episode', episodeId, watched: true, changedAt: dated(position, watchedEpisodes.length) }));
  const watchedMovies = movieIds.slice(0, 2_100);
  const rewatched = new Set(watchedMovies.filter((_, index) => index % 14 === 0));
  const movieStates = watchedMovies.map((movieId, position) => ({ accountId, kind: 'movie', movieId, watched: true, changedAt: dated(position, watchedMovies.length) }));
  const playedGames = gameIds.filter((_, index) => catalog.games[index]!.shelf === 'played');
  const gameStates = playedGames.map((gameId, position) => ({ accountId, kind: 'game', gameId, watched: true, changedAt: dated(position, playedGames.length) }));
  await inChunks(episodeStates, (chunk) => client.watchState.createMany({ data: chunk }));
  await inChunks(movieStates, (chunk) => client.watchState.createMany({ data: chunk }));
  await inChunks(gameStates, (chunk) => client.watchState.createMany({ data: chunk }));
  const history = [
    ...episodeStates.map(({ accountId: owner, kind, episodeId, changedAt }) => ({ accountId: owner, kind, episodeId, watched: true, at: changedAt, source: 'import' })),
    ...movieStates.flatMap(({ accountId: owner, kind, movieId, changedAt }) => [
      { accountId: owner, kind, movieId, watched: true, at: changedAt, source: 'import' },
      ...(rewatched.has(movieId) ? [{ accountId: owner, kind, movieId, watched: true, at: new Date(changedAt.getTime() + 200 * 86_400_000), source: 'import' }] : []),
    ]),
    ...gameStates.map(({ accountId: owner, kind, gameId, changedAt }) => ({ accountId: owner, kind, gameId, watched: true, at: changedAt, source: 'import' })),
  ];
  await inChunks(history, (chunk) => client.watchEvent.createMany({ data: chunk }));
  await client.account.update({ where: { id: accountId }, data: accountVersionBumps({ watches: true, library: true, catalog: true }) });
  await bumpCatalogVersion(client);

  return {
    showIds,
    movieIds,
    gameIds,
    bigShowId: showIds[catalog.bigShow]!,
    longShowId: showIds[catalog.longShow]!,
    counts: { shows: showIds.length, episodes: episodeRows.length, movies: movieIds.length, games: gameIds.length, history: history.length, watchedEpisodes: watchedEpisodes.length, upNextShows },
  };
}
