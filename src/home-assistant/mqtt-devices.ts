import { randomBytes } from 'node:crypto';
import { db } from '../db/client.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { getFeeds } from '../feeds/feeds-service.ts';
import { homeAssistantStatus } from '../notifications/releases.ts';
import { episodeCode, localDate } from '../time/dates.ts';
import type { LastWatched, SensorInput } from './mqtt-entities.ts';

/**
 * The MqttDevice rows: what the broker holds of each account, and the claims that make each change
 * published once. Every process that publishes reads the same rows; a process moves a row forward
 * (published, the state key, the last event told) with a compare-and-set UPDATE and publishes only
 * when its UPDATE changed the row, so with several processes on one PostgreSQL database exactly one
 * of them publishes each change. A process that dies between its claim and its publish leaves that
 * one change unpublished until the next (or the next connect, which publishes everything again).
 */

/** One device and what its account is now. */
export interface DeviceView {
  accountId: number;
  deviceId: string;
  published: boolean;
  stateKey: string;
  lastWatchEventId: number;
  lastNotificationId: number;
  /** Null when the account was removed. */
  account: { optedIn: boolean; timezone: string; feedVersion: number } | null;
}

/** Creates the rows of opted-in accounts that have none. */
export async function createMissingDevices(): Promise<void> {
  const missing = await db().$queryRaw<{ id: number | bigint }[]>`
    SELECT a."id" FROM "Account" a WHERE a."homeAssistantMqtt" = true AND NOT EXISTS (SELECT 1 FROM "MqttDevice" d WHERE d."accountId" = a."id")`;
  for (const row of missing) {
    const accountId = Number(row.id);
    try {
      // Its event ids are set when it is first published (claimPublish).
      await db().mqttDevice.create({ data: { accountId, deviceId: randomBytes(8).toString('hex') } });
    } catch (error) {
      // Another process inserted it first: the primary key keeps one.
      if (!isUniqueViolation(error)) throw error;
    }
  }
}

/** Every device with its account's state. */
export async function readDevices(): Promise<DeviceView[]> {
  const devices = await db().mqttDevice.findMany({ orderBy: { accountId: 'asc' } });
  if (devices.length === 0) return [];
  const accounts = await db().account.findMany({
    where: { id: { in: devices.map((device) => device.accountId) } },
    select: { id: true, homeAssistantMqtt: true, timezone: true, feedVersion: true },
  });
  const byId = new Map(accounts.map((account) => [account.id, account]));
  return devices.map((device) => {
    const account = byId.get(device.accountId);
    return {
      accountId: device.accountId,
      deviceId: device.deviceId,
      published: device.published,
      stateKey: device.stateKey,
      lastWatchEventId: device.lastWatchEventId,
      lastNotificationId: device.lastNotificationId,
      account: account ? { optedIn: account.homeAssistantMqtt, timezone: account.timezone, feedVersion: account.feedVersion } : null,
    };
  });
}

export async function catalogVersion(): Promise<number> {
  const state = await db().serverState.findUnique({ where: { id: 1 }, select: { catalogVersion: true } });
  return state?.catalogVersion ?? 0;
}

/** What the account's states are at now: its feed and catalog versions and its local date. */
export function stateKeyOf(account: { timezone: string; feedVersion: number }, catalog: number, now = new Date()): string {
  return `${account.feedVersion}:${catalog}:${localDate(account.timezone, now)}`;
}

/** Claims publishing the device's configs (it was not published): true when this call did. */
export async function claimPublish(accountId: number, stateKey: string): Promise<boolean> {
  // Opted in again: its events start from now, not from when it opted out.
  const [watch, notification] = await Promise.all([
    db().watchEvent.aggregate({ where: { accountId }, _max: { id: true } }),
    db().notification.aggregate({ where: { accountId }, _max: { id: true } }),
  ]);
  const { count } = await db().mqttDevice.updateMany({
    where: { accountId, published: false },
    data: { published: true, stateKey, lastWatchEventId: watch._max.id ?? 0, lastNotificationId: notification._max.id ?? 0 },
  });
  return count === 1;
}

/** The published devices' accounts that have release notifications not yet told (one query for all). */
export async function accountsWithNewReleases(): Promise<Set<number>> {
  const rows = await db().$queryRaw<{ accountId: number | bigint }[]>`
    SELECT DISTINCT n."accountId" AS "accountId" FROM "Notification" n JOIN "MqttDevice" d ON d."accountId" = n."accountId"
    WHERE d."published" = true AND n."id" > d."lastNotificationId" AND n."status" = ${homeAssistantStatus}`;
  return new Set(rows.map((row) => Number(row.accountId)));
}

/** Claims removing the device's entities (it was published): true when this call did. */
export async function claimRemoval(accountId: number): Promise<boolean> {
  const { count } = await db().mqttDevice.updateMany({ where: { accountId, published: true }, data: { published: false, stateKey: '' } });
  return count === 1;
}

/** Gives a claim back (its publish failed): the next round tries again. */
export async function releaseClaim(accountId: number, back: { published: boolean; stateKey: string }, from: { published: boolean; stateKey: string }): Promise<void> {
  await db().mqttDevice.updateMany({ where: { accountId, ...from }, data: back });
}

/** Forgets the device of a removed account, once its entities are gone. */
export async function forgetDevice(accountId: number): Promise<void> {
  await db().mqttDevice.deleteMany({ where: { accountId, published: false } });
}

/** Claims publishing the states at `stateKey` (the device was at `from`): true when this call did. */
export async function claimState(accountId: number, from: string, stateKey: string): Promise<boolean> {
  const { count } = await db().mqttDevice.updateMany({ where: { accountId, published: true, stateKey: from }, data: { stateKey } });
  return count === 1;
}

/** Where the device's watch events stand now (undefined: no device). */
export async function watchCursor(accountId: number): Promise<number | undefined> {
  return (await db().mqttDevice.findUnique({ where: { accountId }, select: { lastWatchEventId: true } }))?.lastWatchEventId;
}

/** Claims telling the events after `from` up to `to`: true when this call did. */
export async function claimEvents(accountId: number, field: 'lastWatchEventId' | 'lastNotificationId', from: number, to: number): Promise<boolean> {
  const { count } = await db().mqttDevice.updateMany({ where: { accountId, [field]: from }, data: { [field]: to } });
  return count === 1;
}

/** What the sensors show for the account now. */
export async function sensorInput(accountId: number, account: { timezone: string; feedVersion: number }, catalog: number, now = new Date()): Promise<SensorInput> {
  const feeds = await getFeeds({ id: accountId, timezone: account.timezone, feedVersion: account.feedVersion, catalogVersion: catalog }, now);
  return { feeds, date: feeds.date, timezone: account.timezone, lastWatched: await lastWatched(accountId) };
}

const titlesOf = {
  episode: { select: { season: true, number: true, title: true, show: { select: { title: true } } } },
  movie: { select: { title: true } },
  game: { select: { title: true } },
} as const;

async function lastWatched(accountId: number): Promise<LastWatched | null> {
  const event = await db().watchEvent.findFirst({
    where: { accountId, watched: true },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    select: { kind: true, episodeId: true, movieId: true, gameId: true, at: true, ...titlesOf },
  });
  return event ? watchedItem(event) : null;
}

type WatchRow = { kind: string; episodeId: number | null; movieId: number | null; gameId: number | null; at: Date } & {
  episode: { season: number; number: number; title: string | null; show: { title: string } } | null;
  movie: { title: string } | null;
  game: { title: string } | null;
};

function watchedItem(event: WatchRow): LastWatched | null {
  if (event.episode) {
    return { kind: 'episode', id: event.episodeId!, title: event.episode.show.title, episode: episodeCode(event.episode.season, event.episode.number), episodeTitle: event.episode.title, at: event.at };
  }
  const title = event.movie ?? event.game;
  if (!title) return null;
  return { kind: event.movie ? 'movie' : 'game', id: (event.movieId ?? event.gameId)!, title: title.title, episode: null, episodeTitle: null, at: event.at };
}

/** Most events told per device and round (a bulk mark of a season tells its first ones; the rest are skipped). */
export const eventsPerRound = 20;

/**
 * The watches after `afterId` worth telling: marked watched from the web app, the API or a media
 * server (imports are history, not news), the latest `eventsPerRound`; and the last id seen.
 */
export async function watchesAfter(accountId: number, afterId: number): Promise<{ lastId: number; watches: LastWatched[] }> {
  const last = await db().watchEvent.aggregate({ where: { accountId, id: { gt: afterId } }, _max: { id: true } });
  const lastId = last._max.id ?? afterId;
  if (lastId === afterId) return { lastId, watches: [] };
  const rows = await db().watchEvent.findMany({
    where: { accountId, id: { gt: afterId, lte: lastId }, watched: true, NOT: { source: { startsWith: 'import:' } } },
    orderBy: { id: 'desc' },
    take: eventsPerRound,
    select: { kind: true, episodeId: true, movieId: true, gameId: true, at: true, ...titlesOf },
  });
  return { lastId, watches: rows.reverse().map(watchedItem).filter((item) => item !== null) };
}

/**
 * The releases recorded for Home Assistant after `afterId` (one row per item, the signed webhook's
 * body: releases.ts, homeAssistantRows): their ids and bodies, oldest first.
 */
export async function releasesAfter(accountId: number, afterId: number): Promise<{ lastId: number; releases: Record<string, unknown>[] }> {
  const rows = await db().notification.findMany({ where: { accountId, id: { gt: afterId }, status: homeAssistantStatus }, orderBy: { id: 'asc' }, take: 200, select: { id: true, payload: true } });
  if (rows.length === 0) return { lastId: afterId, releases: [] };
  return { lastId: rows.at(-1)!.id, releases: rows.slice(-eventsPerRound).map((row) => JSON.parse(row.payload) as Record<string, unknown>) };
}
