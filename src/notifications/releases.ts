import { db } from '../db/client.ts';
import { addDays, episodeCode, localDate } from '../time/dates.ts';
import type { LocalDate } from '../time/dates.ts';
import { newWebhookId } from '../webhooks/sign.ts';
import type { WatchKind } from '../library/library.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';

/** Releases missed while no check ran (server down) are still notified this many days later. */
export const catchUpDays = 3;

/** The JSON body of a release notification (machine API §6 plus decisions.md's extra fields). */
export interface ReleasePayload {
  type: WatchKind;
  title: string;
  subtitle: string;
  poster: string | null;
  item_key: string;
  id: number;
  air_date: string;
  show_id?: number;
}

export interface ReleasedItem {
  itemKey: string;
  kind: WatchKind;
  releaseDate: LocalDate;
  payload: ReleasePayload;
}

/**
 * Whether the account's releases are announced: by its webhook while active, or as Home Assistant
 * events over MQTT (src/home-assistant tells the notifications recorded here; without a webhook
 * their delivery is `cancelled`, having nowhere to go).
 */
function announcesReleases(account: { webhookUrl: string | null; webhookDisabledAt: Date | null; homeAssistantMqtt: boolean }): boolean {
  return (account.webhookUrl !== null && account.webhookDisabledAt === null) || account.homeAssistantMqtt;
}

/** `episode:12`, the stable key of an item (the notification tag receivers may group by). */
export const itemKeyOf = (kind: WatchKind, id: number): string => `${kind}:${id}`;

/**
 * The followed, non-archived, unwatched items of an account that released (in the account's time
 * zone) between `catchUpDays` ago and today, that it has not been notified about, and that had not
 * yet released when it followed them. Empty when the account announces no releases (no active
 * webhook, no Home Assistant over MQTT).
 *
 * "Already released when followed" compares calendar days: an item releasing on the day it was
 * followed is notified (a new user following today's episode then syncing gets it), one released on
 * an earlier day is not.
 */
export async function findNewReleases(props: { accountId: number; now: Date }): Promise<ReleasedItem[]> {
  const account = await db().account.findUnique({
    where: { id: props.accountId },
    select: { timezone: true, webhookUrl: true, webhookDisabledAt: true, homeAssistantMqtt: true },
  });
  if (!account || !announcesReleases(account)) return [];
  const today = localDate(account.timezone, props.now);
  const window = { gte: addDays(today, -catchUpDays), lte: today };
  const rows = await db().libraryItem.findMany({
    where: {
      accountId: props.accountId,
      followed: true,
      archived: false,
      followedAt: { not: null },
      OR: [{ show: { episodes: { some: { airDate: window } } } }, { movie: { releaseDate: window } }, { game: { releaseDate: window } }],
    },
    select: {
      followedAt: true,
      show: {
        select: {
          id: true,
          title: true,
          poster: true,
          episodes: { where: { airDate: window }, select: { id: true, season: true, number: true, title: true, airDate: true } },
        },
      },
      movie: { select: { id: true, title: true, poster: true, releaseDate: true } },
      game: { select: { id: true, title: true, poster: true, releaseDate: true } },
    },
  });

  const candidates: ReleasedItem[] = [];
  for (const row of rows) {
    const followedOn = localDate(account.timezone, row.followedAt!);
    const released = (date: string | null): date is string => date !== null && date >= followedOn;
    if (row.show) {
      for (const episode of row.show.episodes) {
        if (!released(episode.airDate)) continue;
        const code = episodeCode(episode.season, episode.number);
        candidates.push(release('episode', episode.id, episode.airDate, {
          title: row.show.title,
          subtitle: episode.title ? `${code} · ${episode.title}` : code,
          poster: row.show.poster,
          show_id: row.show.id,
        }));
      }
    }
    for (const [kind, title] of [['movie', row.movie], ['game', row.game]] as const) {
      if (!title || !released(title.releaseDate)) continue;
      const label = kind === 'movie' ? 'Movie' : 'Game';
      candidates.push(release(kind, title.id, title.releaseDate, {
        title: title.title,
        subtitle: `${label} · ${title.releaseDate.slice(0, 4)}`,
        poster: title.poster,
      }));
    }
  }
  if (candidates.length === 0) return [];
  return withoutWatchedOrNotified(props.accountId, candidates);
}

function release(
  kind: WatchKind,
  id: number,
  releaseDate: LocalDate,
  fields: Pick<ReleasePayload, 'title' | 'subtitle' | 'poster'> & { show_id?: number },
): ReleasedItem {
  const itemKey = itemKeyOf(kind, id);
  const payload: ReleasePayload = { type: kind, title: fields.title, subtitle: fields.subtitle, poster: fields.poster, item_key: itemKey, id, air_date: releaseDate };
  if (fields.show_id !== undefined) payload.show_id = fields.show_id;
  return { itemKey, kind, releaseDate, payload };
}

async function withoutWatchedOrNotified(accountId: number, candidates: ReleasedItem[]): Promise<ReleasedItem[]> {
  const idsOf = (kind: WatchKind) => candidates.filter((item) => item.kind === kind).map((item) => item.payload.id);
  const [watched, notified] = await Promise.all([
    db().watchState.findMany({
      where: {
        accountId,
        watched: true,
        OR: [{ episodeId: { in: idsOf('episode') } }, { movieId: { in: idsOf('movie') } }, { gameId: { in: idsOf('game') } }],
      },
      select: { kind: true, episodeId: true, movieId: true, gameId: true },
    }),
    db().notification.findMany({
      where: { accountId, itemKey: { in: candidates.map((item) => item.itemKey) } },
      select: { itemKey: true },
    }),
  ]);
  const skip = new Set(notified.map((row) => row.itemKey));
  for (const row of watched) skip.add(itemKeyOf(row.kind as WatchKind, (row.episodeId ?? row.movieId ?? row.gameId)!));
  return candidates.filter((item) => !skip.has(item.itemKey));
}

/**
 * Records a notification row for each of the account's new releases and returns the ids of the
 * rows this call created. The (account, item) unique index makes this safe to run from several
 * processes at once: a row another process recorded first is simply not returned here.
 */
export async function recordReleaseNotifications(props: { accountId: number; now: Date }): Promise<number[]> {
  const releases = await findNewReleases(props);
  const created: number[] = [];
  for (const item of releases) {
    try {
      const row = await db().notification.create({
        data: {
          accountId: props.accountId,
          itemKey: item.itemKey,
          kind: item.kind,
          webhookId: newWebhookId(),
          payload: JSON.stringify(item.payload),
          releaseDate: item.releaseDate,
          nextAttemptAt: props.now,
        },
        select: { id: true },
      });
      created.push(row.id);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return created;
}

/**
 * Accounts that may have something to notify at `now`: an active webhook (or Home Assistant over MQTT) and a followed,
 * non-archived item released within the catch-up window in some time zone (UTC dates widened by a
 * day each way cover every zone) that it has not watched and not been notified about. The
 * per-account check then decides exactly, in its own zone. Accounts whose releases are all
 * notified or watched are left out, so the 30-minute check does not queue the same accounts again
 * and again.
 */
export async function findAccountsToCheck(now: Date): Promise<number[]> {
  const utcToday = localDate('UTC', now);
  const from = addDays(utcToday, -catchUpDays - 1);
  const to = addDays(utcToday, 1);
  const rows = await db().$queryRaw<{ accountId: number | bigint }[]>`
    SELECT DISTINCT l."accountId" AS "accountId"
    FROM "LibraryItem" l JOIN "Account" a ON a."id" = l."accountId"
    WHERE l."followed" = true AND l."archived" = false
      AND ((a."webhookUrl" IS NOT NULL AND a."webhookDisabledAt" IS NULL) OR a."homeAssistantMqtt" = true)
      AND (EXISTS (SELECT 1 FROM "Episode" e WHERE e."showId" = l."showId" AND e."airDate" >= ${from} AND e."airDate" <= ${to}
            AND NOT EXISTS (SELECT 1 FROM "Notification" n WHERE n."accountId" = l."accountId" AND n."itemKey" = 'episode:' || e."id")
            AND NOT EXISTS (SELECT 1 FROM "WatchState" w WHERE w."accountId" = l."accountId" AND w."episodeId" = e."id" AND w."watched" = true))
        OR EXISTS (SELECT 1 FROM "Movie" m WHERE m."id" = l."movieId" AND m."releaseDate" >= ${from} AND m."releaseDate" <= ${to}
            AND NOT EXISTS (SELECT 1 FROM "Notification" n WHERE n."accountId" = l."accountId" AND n."itemKey" = 'movie:' || m."id")
            AND NOT EXISTS (SELECT 1 FROM "WatchState" w WHERE w."accountId" = l."accountId" AND w."movieId" = m."id" AND w."watched" = true))
        OR EXISTS (SELECT 1 FROM "Game" g WHERE g."id" = l."gameId" AND g."releaseDate" >= ${from} AND g."releaseDate" <= ${to}
            AND NOT EXISTS (SELECT 1 FROM "Notification" n WHERE n."accountId" = l."accountId" AND n."itemKey" = 'game:' || g."id")
            AND NOT EXISTS (SELECT 1 FROM "WatchState" w WHERE w."accountId" = l."accountId" AND w."gameId" = g."id" AND w."watched" = true)))
    ORDER BY l."accountId"`;
  return rows.map((row) => Number(row.accountId));
}
