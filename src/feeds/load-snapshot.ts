import { db } from '../db/client.ts';
import type { LibrarySnapshot, SnapshotShow, SnapshotTitle } from './types.ts';

interface ShowRow { id: number; title: string; poster: string | null }
interface EpisodeRow {
  showId: number; id: number; season: number; number: number; title: string | null;
  airDate: string | null; watched: boolean | number | null; changedAt: Date | string | null;
}
interface TitleRow {
  kind: 'movie' | 'game'; id: number; title: string; poster: string | null;
  releaseDate: string | null; watched: boolean | number | null;
}

/**
 * Loads what the feed rules need for one account in three queries, whatever the library size:
 * followed non-archived shows, all their episodes with this account's watched flags, and
 * followed movies and games. Archived and unfollowed items are left out here because no feed
 * shows them; the rules check the flags again.
 */
export async function loadSnapshot(accountId: number): Promise<LibrarySnapshot> {
  const client = db();
  const showRows = await client.$queryRaw<ShowRow[]>`
    SELECT s."id", s."title", s."poster"
    FROM "LibraryItem" li JOIN "Show" s ON s."id" = li."showId"
    WHERE li."accountId" = ${accountId} AND li."kind" = 'show' AND li."followed" = TRUE AND li."archived" = FALSE`;
  const episodeRows = await client.$queryRaw<EpisodeRow[]>`
    SELECT e."showId", e."id", e."season", e."number", e."title", e."airDate", ws."watched", ws."changedAt"
    FROM "LibraryItem" li
    JOIN "Episode" e ON e."showId" = li."showId"
    LEFT JOIN "WatchState" ws ON ws."accountId" = li."accountId" AND ws."episodeId" = e."id"
    WHERE li."accountId" = ${accountId} AND li."kind" = 'show' AND li."followed" = TRUE AND li."archived" = FALSE`;
  const titleRows = await client.$queryRaw<TitleRow[]>`
    SELECT 'movie' AS "kind", m."id", m."title", m."poster", m."releaseDate", ws."watched"
    FROM "LibraryItem" li JOIN "Movie" m ON m."id" = li."movieId"
    LEFT JOIN "WatchState" ws ON ws."accountId" = li."accountId" AND ws."movieId" = m."id"
    WHERE li."accountId" = ${accountId} AND li."followed" = TRUE
    UNION ALL
    SELECT 'game' AS "kind", g."id", g."title", g."poster", g."releaseDate", ws."watched"
    FROM "LibraryItem" li JOIN "Game" g ON g."id" = li."gameId"
    LEFT JOIN "WatchState" ws ON ws."accountId" = li."accountId" AND ws."gameId" = g."id"
    WHERE li."accountId" = ${accountId} AND li."followed" = TRUE`;

  const shows = new Map<number, SnapshotShow>();
  for (const row of showRows) {
    shows.set(row.id, { id: row.id, title: row.title, poster: row.poster, followed: true, archived: false, lastWatchedAt: null, episodes: [] });
  }
  for (const row of episodeRows) {
    const show = shows.get(row.showId);
    if (!show) continue;
    const watched = Boolean(row.watched);
    if (watched && row.changedAt !== null) {
      const changedAt = row.changedAt instanceof Date ? row.changedAt : new Date(row.changedAt);
      if (show.lastWatchedAt === null || changedAt > show.lastWatchedAt) show.lastWatchedAt = changedAt;
    }
    show.episodes.push({ id: row.id, season: row.season, number: row.number, title: row.title, airDate: row.airDate, watched });
  }
  const titles: SnapshotTitle[] = titleRows.map((row) => ({
    kind: row.kind, id: row.id, title: row.title, poster: row.poster, followed: true,
    releaseDate: row.releaseDate, watched: Boolean(row.watched),
  }));
  return { shows: [...shows.values()], titles };
}
