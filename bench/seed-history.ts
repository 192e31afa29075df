import { db, fastReader } from '../src/db/client.ts';
import { insertRows } from '../src/db/bulk-sql.ts';

/**
 * A library with a long watch history, for the export benchmark and the large round-trip test.
 * With the defaults: 1 000 shows of 60 episodes (52 touched each), 4 000 movies, 1 000 games and
 * exactly 100 000 history entries, with watched states matching each item's last entry. Catalog
 * rows go in with Prisma (a few thousand), episodes, states and history through the import's
 * bulk INSERT (`insertAll`): createMany takes most of a minute for those.
 */
export interface HistoryLibrarySize {
  shows: number;
  episodesPerShow: number;
  /** Episodes per show that get history (the rest are never watched). */
  touchedPerShow: number;
  movies: number;
  games: number;
}

export const defaultHistorySize: HistoryLibrarySize = { shows: 1_000, episodesPerShow: 60, touchedPerShow: 52, movies: 4_000, games: 1_000 };

/** Entries per touched item, in a repeating cycle: watched; watched, unwatched; and back again. */
const episodeCycle = [3, 2, 1, 1];
const titleCycle = [1, 2, 3, 2];

type Kind = 'episode' | 'movie' | 'game';
const itemColumns = (kind: Kind, id: number) => [kind === 'episode' ? id : null, kind === 'movie' ? id : null, kind === 'game' ? id : null];

/**
 * Seeds the library into `accountId` on the open database. External ids
 * start at `firstExternalId` and use 2 × (shows + movies + games) values from there. Returns the
 * number of history entries written.
 */
export async function seedHistoryLibrary(accountId: number, firstExternalId: number, size: HistoryLibrarySize = defaultHistorySize): Promise<number> {
  const client = db();
  const now = new Date();
  const start = Date.UTC(2020, 0, 1);
  let minute = 0;
  const events: (string | number | boolean | Date | null)[][] = [];
  const states: (string | number | boolean | Date | null)[][] = [];
  /** Appends `count` alternating entries (watched first) and the matching current state. */
  const touch = (kind: Kind, id: number, count: number) => {
    let at = new Date(start);
    for (let entry = 0; entry < count; entry += 1) {
      minute += 1;
      at = new Date(start + minute * 60_000 + (minute % 1000));
      events.push([accountId, kind, ...itemColumns(kind, id), entry % 2 === 0, at, 'api']);
    }
    states.push([accountId, kind, ...itemColumns(kind, id), count % 2 === 1, at]);
  };

  const shows = await client.show.createManyAndReturn({
    data: Array.from({ length: size.shows }, (_, index) => ({
      tmdbId: firstExternalId + index,
      tvdbId: index % 2 === 0 ? firstExternalId + size.shows + size.movies + size.games + index : null,
      title: `History Show ${index}`,
      poster: `https://images.example/history-${index}.jpg`,
      overview: index % 3 === 0 ? `Overview of show ${index}.` : null,
    })),
    select: { id: true },
  });
  const episodeRows = shows.flatMap((show) =>
    Array.from({ length: size.episodesPerShow }, (_, position) => [
      show.id, 1 + Math.floor(position / 20), 1 + (position % 20), `Episode ${position + 1}`,
      `2021-${String(1 + (position % 12)).padStart(2, '0')}-${String(1 + (position % 28)).padStart(2, '0')}`, now, now,
    ]),
  );
  await insertAll('Episode', ['showId', 'season', 'number', 'title', 'airDate', 'createdAt', 'updatedAt'], episodeRows);
  const stored = await fastReader().rows(
    `SELECT e."id", e."season", e."number" FROM "Episode" e JOIN "Show" s ON s."id" = e."showId"
     WHERE s."tmdbId" >= ? AND s."tmdbId" < ? ORDER BY s."tmdbId", e."season", e."number"`,
    [firstExternalId, firstExternalId + size.shows],
  );
  stored.forEach(([id, season, number], index) => {
    const position = (Number(season) - 1) * 20 + Number(number) - 1;
    if (position < size.touchedPerShow) touch('episode', Number(id), episodeCycle[index % episodeCycle.length]!);
  });
  await client.libraryItem.createMany({
    data: shows.map((show, index) => ({ accountId, kind: 'show', showId: show.id, followed: true, archived: index % 10 === 0, followExplicit: true, archiveExplicit: index % 10 === 0 })),
  });

  for (const kind of ['movie', 'game'] as const) {
    const count = kind === 'movie' ? size.movies : size.games;
    const offset = firstExternalId + size.shows + (kind === 'movie' ? 0 : size.movies);
    const rows = Array.from({ length: count }, (_, index) => ({ title: `History ${kind} ${index}`, releaseDate: index % 5 === 0 ? null : '2022-06-01' }));
    const created = kind === 'movie'
      ? await client.movie.createManyAndReturn({ data: rows.map((row, index) => ({ ...row, tmdbId: offset + index })), select: { id: true } })
      : await client.game.createManyAndReturn({ data: rows.map((row, index) => ({ ...row, igdbId: offset + index })), select: { id: true } });
    created.forEach((row, index) => touch(kind, row.id, kind === 'movie' ? titleCycle[index % titleCycle.length]! : 1));
    await client.libraryItem.createMany({
      data: created.map((row, index) => ({ accountId, kind, ...(kind === 'movie' ? { movieId: row.id } : { gameId: row.id }), followed: index % 7 !== 0, followExplicit: true })),
    });
  }
  await insertAll('WatchState', ['accountId', 'kind', 'episodeId', 'movieId', 'gameId', 'watched', 'changedAt'], states);
  await insertAll('WatchEvent', ['accountId', 'kind', 'episodeId', 'movieId', 'gameId', 'watched', 'at', 'source'], events);
  return events.length;
}

/**
 * Inserts `rows` with the import's bulk INSERT (bulk-sql.ts: one JSON parameter per statement, dates
 * as Prisma writes them), in one transaction: Prisma's createMany costs ~100 µs a row (60 000
 * episodes: 10 s).
 */
function insertAll(table: string, columns: string[], rows: unknown[][]): Promise<number> {
  return db().$transaction((tx) => insertRows(tx, table, columns, rows), { timeout: 120_000 });
}
