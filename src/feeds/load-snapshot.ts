import { asBoolean, asEpochMs } from '../db/fast-read.ts';
import { fastReader } from '../db/client.ts';
import { episodesOfShows } from './episode-cache.ts';
import { storedUpNextRule } from './rules.ts';
import type { LibrarySnapshot, SnapshotShow, SnapshotTitle } from './types.ts';

/** A snapshot with what keeping it up to date needs: when each watched episode was marked watched. */
export interface LoadedSnapshot {
  snapshot: LibrarySnapshot;
  /** Episode id → its WatchState.changedAt as the driver returned it (asEpochMs reads either form). */
  watchedAt: Map<number, unknown>;
}

/**
 * Loads what the feed rules need for one account: its followed non-archived shows (with the
 * up-next rule of each: its own or the account's), its watched
 * episodes, its followed movies and games (three small queries), and the shows' episodes from
 * the shared catalog cache (one more query only for shows not cached at this catalog version).
 * Archived and unfollowed items are left out because no feed shows them; the rules check the
 * flags again.
 */
export async function loadSnapshot(accountId: number, catalogVersion: number): Promise<LoadedSnapshot> {
  const reader = fastReader();
  const showRows = await reader.rows(
    `SELECT s."id", s."title", s."poster", COALESCE(li."upNextRule", a."upNextRule")
     FROM "LibraryItem" li JOIN "Show" s ON s."id" = li."showId" JOIN "Account" a ON a."id" = li."accountId"
     WHERE li."accountId" = ? AND li."kind" = 'show' AND li."followed" = TRUE AND li."archived" = FALSE`,
    [accountId],
  );
  const watchedRows = await reader.rows(
    `SELECT "episodeId", "changedAt" FROM "WatchState"
     WHERE "accountId" = ? AND "episodeId" IS NOT NULL AND "watched" = TRUE`,
    [accountId],
  );
  const titleRows = await reader.rows(
    `SELECT 'movie', m."id", m."title", m."poster", m."releaseDate", ws."watched"
     FROM "LibraryItem" li JOIN "Movie" m ON m."id" = li."movieId"
     LEFT JOIN "WatchState" ws ON ws."accountId" = li."accountId" AND ws."movieId" = m."id"
     WHERE li."accountId" = ? AND li."followed" = TRUE
     UNION ALL
     SELECT 'game', g."id", g."title", g."poster", g."releaseDate", ws."watched"
     FROM "LibraryItem" li JOIN "Game" g ON g."id" = li."gameId"
     LEFT JOIN "WatchState" ws ON ws."accountId" = li."accountId" AND ws."gameId" = g."id"
     WHERE li."accountId" = ? AND li."followed" = TRUE`,
    [accountId, accountId],
  );

  const watchedAt = new Map<number, unknown>();
  for (const [episodeId, changedAt] of watchedRows) watchedAt.set(Number(episodeId), changedAt);
  const episodesByShow = await episodesOfShows(showRows.map(([id]) => Number(id)), catalogVersion);

  const shows: SnapshotShow[] = showRows.map(([id, title, poster, rule]) => {
    // One driver returns the same type for every row (ISO text in one format, or Date), so `>`
    // finds the latest without parsing each of thousands of timestamps; only the winner is parsed.
    let latest: unknown;
    const episodes = (episodesByShow.get(Number(id)) ?? []).map((episode) => {
      const changedAt = watchedAt.get(episode.id);
      const watched = changedAt !== undefined;
      if (watched && (latest === undefined || (changedAt as string) > (latest as string))) latest = changedAt;
      // A literal, not a spread: every episode object gets the same shape, which the rules' loops rely on for speed.
      return { id: episode.id, season: episode.season, number: episode.number, title: episode.title, airDate: episode.airDate, watched };
    });
    return {
      id: Number(id), title: String(title), poster: poster as string | null, followed: true, archived: false,
      upNextRule: storedUpNextRule(rule),
      lastWatchedAt: latest === undefined ? null : new Date(asEpochMs(latest)), episodes,
    };
  });
  const titles: SnapshotTitle[] = titleRows.map(([kind, id, title, poster, releaseDate, watched]) => ({
    kind: kind as 'movie' | 'game', id: Number(id), title: String(title), poster: poster as string | null,
    followed: true, releaseDate: releaseDate as string | null, watched: asBoolean(watched),
  }));
  return { snapshot: { shows, titles }, watchedAt };
}
