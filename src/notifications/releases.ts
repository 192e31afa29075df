import { db } from '../db/client.ts';
import { addDays, episodeCode, localDate } from '../time/dates.ts';
import type { LocalDate } from '../time/dates.ts';
import { newWebhookId } from '../webhooks/sign.ts';
import type { WatchKind } from '../library/library.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { webhookChannelKind } from '../accounts/webhook-setting.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { storedChannelEvents } from './channel-events.ts';
import { storedMessage } from './channel-outcomes.ts';
import { writeNotification } from './notification-text.ts';
import { episodeEvent, releaseMessages } from './release-messages.ts';
import { mutedShowIds } from './show-mutes.ts';
import type { ReleasedEntry } from './release-messages.ts';

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
  /** The signed webhook's body. */
  payload: ReleasePayload;
  /** What the channels' messages are written from (release-messages.ts). */
  entry: ReleasedEntry;
}

/** `episode:12`, the stable key of an item (the notification tag receivers may group by). */
export const itemKeyOf = (kind: WatchKind, id: number): string => `${kind}:${id}`;

/**
 * The followed, non-archived, unwatched items of an account (but the episodes of shows it muted) that released (in the account's time
 * zone) between `catchUpDays` ago and today, that it has not been notified about, and that had not
 * yet released when it followed them. Empty when the account announces no releases (no channel
 * turned on, no Home Assistant over MQTT).
 *
 * "Already released when followed" compares calendar days: an item releasing on the day it was
 * followed is notified (a new user following today's episode then syncing gets it), one released on
 * an earlier day is not.
 */
export async function findNewReleases(props: { accountId: number; now: Date }): Promise<ReleasedItem[]> {
  const account = await db().account.findUnique({ where: { id: props.accountId }, select: { timezone: true, homeAssistantMqtt: true } });
  const channel = await db().notificationChannel.findFirst({ where: { accountId: props.accountId, enabled: true }, select: { id: true } });
  if (!account || (!channel && !account.homeAssistantMqtt)) return [];
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

  const muted = await mutedShowIds(props.accountId);
  const seasonEnds = await lastEpisodeNumbers(rows.flatMap((row) => (row.show ? [row.show.id] : [])));
  const candidates: ReleasedItem[] = [];
  for (const row of rows) {
    const followedOn = localDate(account.timezone, row.followedAt!);
    const released = (date: string | null): date is string => date !== null && date >= followedOn;
    if (row.show && !muted.has(row.show.id)) {
      for (const episode of row.show.episodes) {
        if (!released(episode.airDate)) continue;
        const code = episodeCode(episode.season, episode.number);
        const show = { id: row.show.id, title: row.show.title, poster: row.show.poster };
        const lastOfSeason = seasonEnds.get(`${row.show.id}:${episode.season}`) === episode.number;
        candidates.push(release('episode', episode.id, episode.airDate, {
          title: row.show.title,
          subtitle: episode.title ? `${code} · ${episode.title}` : code,
          poster: row.show.poster,
          show_id: row.show.id,
        }, (itemKey) => ({ kind: 'episode', itemKey, show, episode: { season: episode.season, number: episode.number, title: episode.title }, lastOfSeason })));
      }
    }
    for (const [kind, title] of [['movie', row.movie], ['game', row.game]] as const) {
      if (!title || !released(title.releaseDate)) continue;
      const label = kind === 'movie' ? 'Movie' : 'Game';
      const date = title.releaseDate;
      candidates.push(release(kind, title.id, date, {
        title: title.title,
        subtitle: `${label} · ${date.slice(0, 4)}`,
        poster: title.poster,
      }, (itemKey) => ({ kind, itemKey, title: { id: title.id, title: title.title, poster: title.poster }, date })));
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
  entry: (itemKey: string) => ReleasedEntry,
): ReleasedItem {
  const itemKey = itemKeyOf(kind, id);
  const payload: ReleasePayload = { type: kind, title: fields.title, subtitle: fields.subtitle, poster: fields.poster, item_key: itemKey, id, air_date: releaseDate };
  if (fields.show_id !== undefined) payload.show_id = fields.show_id;
  return { itemKey, kind, releaseDate, payload, entry: entry(itemKey) };
}

/** The last episode's number of each season of the shows (`showId:season`), which makes an episode a finale. */
async function lastEpisodeNumbers(showIds: number[]): Promise<Map<string, number>> {
  if (showIds.length === 0) return new Map();
  const seasons = await db().episode.groupBy({ by: ['showId', 'season'], where: { showId: { in: showIds } }, _max: { number: true } });
  return new Map(seasons.map((season) => [`${season.showId}:${season.season}`, season._max.number ?? 0]));
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
 * Records what each of the account's channels is told about its new releases, and returns the ids
 * of the rows to deliver. Each channel turned on gets the messages of the events it chose
 * (release-messages.ts: one show's episodes out at once are one message, whose other items are
 * kept as `grouped`); the signed webhook gets one per item, its body as before. All rows of one
 * check are written in one transaction, so a crash records all or nothing; the (channel, item)
 * unique index makes this safe to run from several processes at once: the check that loses
 * records nothing and returns nothing.
 */
export async function recordReleaseNotifications(props: { accountId: number; now: Date; publicOrigin?: string }): Promise<number[]> {
  const releases = await findNewReleases(props);
  if (releases.length === 0) return [];
  const channels = await db().notificationChannel.findMany({ where: { accountId: props.accountId, enabled: true }, orderBy: { id: 'asc' }, select: { id: true, kind: true, events: true } });
  const rows = channels.flatMap((channel) => rowsFor(channel, releases, { accountId: props.accountId, now: props.now, publicOrigin: props.publicOrigin ?? 'http://localhost' }));
  rows.push(...(await homeAssistantRows(props.accountId, releases)));
  if (rows.length === 0) return [];
  try {
    return await db().$transaction(async (tx) => {
      const created: number[] = [];
      for (const data of rows) {
        const row = await tx.notification.create({ data, select: { id: true, status: true } });
        if (row.status === 'pending') created.push(row.id);
      }
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return [];
    throw error;
  }
}

type NotificationRow = Prisma.NotificationUncheckedCreateInput;

/**
 * Status of the rows Home Assistant over MQTT is told from (src/home-assistant reads them as its
 * release events): one per released item, with the signed webhook's body, belonging to no channel
 * and never delivered by the delivery job. Written in the same transaction as the channels' rows,
 * so an item is recorded once for both.
 */
export const homeAssistantStatus = 'home-assistant';

/** The rows of an account with Home Assistant over MQTT on: one per item; none when it is off. */
async function homeAssistantRows(accountId: number, releases: ReleasedItem[]): Promise<NotificationRow[]> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { homeAssistantMqtt: true } });
  if (!account?.homeAssistantMqtt) return [];
  return releases.map((item) => ({ accountId, channelId: null, itemKey: item.itemKey, kind: item.kind, webhookId: newWebhookId(), payload: JSON.stringify(item.payload), releaseDate: item.releaseDate, status: homeAssistantStatus, nextAttemptAt: null }));
}

/** The rows one channel gets for the releases. */
function rowsFor(channel: { id: number; kind: string; events: string }, releases: ReleasedItem[], context: { accountId: number; now: Date; publicOrigin: string }): NotificationRow[] {
  const events = new Set(storedChannelEvents(channel.events));
  const common = { accountId: context.accountId, channelId: channel.id, nextAttemptAt: context.now };
  const byKey = new Map(releases.map((item) => [item.itemKey, item]));
  if (channel.kind === webhookChannelKind) {
    return releases
      .filter((item) => events.has(item.entry.kind === 'episode' ? episodeEvent(item.entry.episode, item.entry.lastOfSeason) : item.entry.kind === 'movie' ? 'film-released' : 'game-released'))
      .map((item) => ({ ...common, itemKey: item.itemKey, kind: item.kind, webhookId: newWebhookId(), payload: JSON.stringify(item.payload), releaseDate: item.releaseDate }));
  }
  return releaseMessages(releases.map((item) => item.entry), events).flatMap(({ event, itemKeys }) => {
    const [first, ...rest] = itemKeys.map((key) => byKey.get(key)!);
    const text = writeNotification(event, { publicOrigin: context.publicOrigin });
    const told: NotificationRow = { ...common, itemKey: first!.itemKey, kind: event.type, webhookId: newWebhookId(), payload: storedMessage({ ...text, action: null, webhookBody: null }), releaseDate: first!.releaseDate };
    // The other items of a grouped message: kept so that none is told again, never delivered.
    const grouped = rest.map((item): NotificationRow => ({ ...common, itemKey: item.itemKey, kind: event.type, webhookId: newWebhookId(), payload: JSON.stringify({ toldWith: first!.itemKey }), releaseDate: item.releaseDate, status: 'grouped', nextAttemptAt: null }));
    return [told, ...grouped];
  });
}

/**
 * Accounts that may have something to notify at `now`: a channel turned on (or Home Assistant over MQTT) and a followed,
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
    FROM "LibraryItem" l
    WHERE l."followed" = true AND l."archived" = false
      AND (EXISTS (SELECT 1 FROM "NotificationChannel" c WHERE c."accountId" = l."accountId" AND c."enabled" = true)
        OR EXISTS (SELECT 1 FROM "Account" a WHERE a."id" = l."accountId" AND a."homeAssistantMqtt" = true))
      AND (EXISTS (SELECT 1 FROM "Episode" e WHERE e."showId" = l."showId" AND e."airDate" >= ${from} AND e."airDate" <= ${to}
            AND NOT EXISTS (SELECT 1 FROM "MutedShow" ms WHERE ms."accountId" = l."accountId" AND ms."showId" = l."showId")
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
