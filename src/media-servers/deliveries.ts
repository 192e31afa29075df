import type { CatalogService } from '../catalog/catalog-service.ts';
import { db } from '../db/client.ts';
import { itemColumn } from '../db/fast-write.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { setWatched } from '../library/library.ts';
import { mediaServerLimits } from '../limits.ts';
import { isHistoryTime } from '../value-bounds.ts';
import type { Connection } from './connections.ts';
import { matchEvent, type MatchedItem, type MatchRule } from './match-event.ts';
import { unusedIdsText, type MediaEvent, type MediaServerSource } from './sources/media-event.ts';

/**
 * What a delivery does, and the answer the server gets (every delivery is answered with what came
 * of it, and all but progress events are kept in the account's log):
 * - progress (start, pause, resume, progress): `ignored` at once, with no database read or write
 *   besides the token's lookup, and not logged (a busy server sends several a second);
 * - a repeat of an event the server identifies (the same event id): `duplicate`, saying when the
 *   first came and what it was answered; logged, nothing recorded again;
 * - a Jellyfin or Emby stop before the end: `ignored` and logged, "stopped at 12 %: not counted";
 * - a user the connection does not count, an event that is not a play, a manual mark while manual
 *   marks do not count, an item of no tracked kind: `ignored`, with why;
 * - played (or marked played): matched (match-event.ts) and recorded through the library's write
 *   path (library.ts setWatched, the fast writer behind POST /api/machine/watched: the feed
 *   version moves, feeds and notifications see it), history source `media-server:<source>`; an
 *   item watched less than mediaServerLimits.duplicateWindowMs ago, or watched already, is a
 *   `duplicate` and nothing is written; nothing matched: `unmatched` with the ids seen (those
 *   matching cannot use, such as AniDB's, named with why), kept and
 *   retried when the catalog learns them (retryUnmatchedDeliveries); the catalog requests its
 *   matching may cause are charged to the connection's budget (match-event.ts), and a delivery
 *   past it is unmatched for now, its answer says so, and it is kept for the same retry;
 * - marked unplayed: removes the watch only when its latest history entry was recorded by this
 *   source (`removed`), else `ignored`.
 */

export type DeliveryResult = 'matched' | 'duplicate' | 'removed' | 'unmatched' | 'ignored';

export interface AnsweredItem {
  kind: MatchedItem['kind'];
  title: string;
  season?: number;
  episode?: number;
  /** False: watched already, or within the duplicate window. */
  recorded: boolean;
}

export interface DeliveryAnswer {
  ok: true;
  result: DeliveryResult;
  /** The server's own event name. */
  event: string;
  /** The server's user, when the event names one. */
  user?: string;
  /** Why nothing (or not everything) was recorded. */
  reason?: string;
  /** What was matched: matched, duplicate, removed. */
  items?: AnsweredItem[];
  /** What the event named, for an unmatched one: kind, ids, show, season and episode. */
  seen?: Record<string, unknown>;
}

/** History source of the watches a connection records. */
export const historySource = (source: MediaServerSource) => `media-server:${source}`;

export interface DeliveryProps {
  connection: Connection;
  event: MediaEvent;
  catalog?: CatalogService;
  now?: Date;
}

export async function handleDelivery(props: DeliveryProps): Promise<DeliveryAnswer> {
  const { connection, event } = props;
  const base = { ok: true as const, event: event.event, ...(event.user === undefined ? {} : { user: event.user }) };
  if (event.action === 'progress') return { ...base, result: 'ignored', reason: 'progress event: only a play to the end is recorded' };
  const now = props.now ?? new Date();
  if (event.eventKey !== undefined) {
    const repeat = await repeated(connection, event, base, now);
    if (repeat) return repeat;
  }
  const outcome = await decide(props, now);
  const answer: DeliveryAnswer = { ...base, ...outcome.answer };
  try {
    await logDelivery(connection, event, now, answer, outcome, event.eventKey);
  } catch (error) {
    // The same event delivered twice at once: the other delivery's row stands, and this one is its repeat.
    if (!isUniqueViolation(error)) throw error;
    const repeat = await repeated(connection, event, base, now);
    if (repeat) return repeat;
    throw error;
  }
  await pruneLog(connection.accountId);
  return answer;
}

/**
 * A repeat of an event the server identifies (its event key is logged already): answered
 * `duplicate` naming when the first came and what it was answered, and logged (without the key,
 * which the first delivery's row holds); nothing is recorded again. undefined: not a repeat.
 */
async function repeated(connection: Connection, event: MediaEvent, base: Pick<DeliveryAnswer, 'ok' | 'event' | 'user'>, now: Date): Promise<DeliveryAnswer | undefined> {
  const earlier = await db().mediaServerDelivery.findUnique({ where: { accountId_eventKey: { accountId: connection.accountId, eventKey: event.eventKey! } }, select: { at: true, result: true } });
  if (!earlier) return undefined;
  const reason = `a repeat of the event delivered at ${earlier.at.toISOString()} (answered ${earlier.result} then): counted once, nothing recorded again`;
  const answer: DeliveryAnswer = { ...base, result: 'duplicate', reason };
  await logDelivery(connection, event, now, answer, { detail: reason }, undefined);
  await pruneLog(connection.accountId);
  return answer;
}

/** The delivery's row in the account's log (with the event kept for retry when it is pending). */
async function logDelivery(connection: Connection, event: MediaEvent, now: Date, answer: DeliveryAnswer, outcome: Pick<Outcome, 'detail' | 'pending'>, eventKey: string | undefined): Promise<void> {
  await db().mediaServerDelivery.create({
    data: {
      accountId: connection.accountId,
      source: connection.source,
      at: now,
      event: event.event.slice(0, 200),
      serverUser: event.user ?? null,
      result: answer.result,
      detail: outcome.detail,
      answer: JSON.stringify(answer),
      eventKey: eventKey ?? null,
      pending: outcome.pending ? JSON.stringify(event) : null,
    },
  });
}

interface Outcome {
  answer: Omit<DeliveryAnswer, 'ok' | 'event' | 'user'>;
  /** The log's sentence. */
  detail: string;
  /** Kept for retry (unmatched plays). */
  pending?: true;
}

const ignored = (reason: string): Outcome => ({ answer: { result: 'ignored', reason }, detail: reason });

async function decide({ connection, event, catalog }: DeliveryProps, now: Date): Promise<Outcome> {
  if (event.action === 'other') return ignored(`event ${event.event} is not a play`);
  if (connection.users.length > 0) {
    const counted = new Set(connection.users.map((user) => user.toLocaleLowerCase()));
    if (event.user === undefined) return ignored('the event names no user, and only listed users count');
    if (!counted.has(event.user.toLocaleLowerCase())) return ignored(`user ${event.user} is not among the users that count`);
  }
  const manual = event.action === 'marked-played' || event.action === 'marked-unplayed';
  // The generic body's `unplayed` is a request of its own, not a mark on a server's screen.
  if (manual && event.source !== 'generic' && !connection.manualMarks) return ignored('a manual mark on the server, and manual marks do not count for this connection');
  if (event.kind === undefined) return ignored('not an episode or film');
  if (event.action === 'stopped') {
    const reason = `stopped ${event.stoppedAt === undefined ? 'before the end' : `at ${event.stoppedAt} %`}: not counted (only a play to the end is recorded)`;
    return { answer: { result: 'ignored', reason }, detail: `${eventLabel(event)} ${reason}` };
  }
  const match = await matchEvent(event, { accountId: connection.accountId, catalog, budget: catalogBudget(catalog, connection.accountId, connection.source) });
  if (match.items.length === 0) {
    const unused = event.unusedIds === undefined ? '' : `; ids seen and not used: ${unusedIdsText(event.unusedIds)}`;
    const reason = ('reason' in match ? match.reason : 'nothing matched') + unused;
    if (event.action === 'marked-unplayed') return ignored(`unplayed, but ${reason}`);
    return { answer: { result: 'unmatched', reason, seen: seenOf(event) }, detail: reason, pending: true };
  }
  const rule = 'rule' in match ? match.rule : 'item ids';
  if (event.action === 'marked-unplayed') return unplay(connection, match.items, now);
  return record(connection.accountId, connection.source, match.items, rule, watchTime(event, now), now);
}

/**
 * The catalog budget of an account's connection to `source` (one per account and source, so the
 * delivery and its retries share it): the catalog requests its deliveries may cause
 * (CatalogService.budget, AIRDATE_CATALOG_REQUESTS_PER_HOUR).
 */
function catalogBudget(catalog: CatalogService | undefined, accountId: number, source: MediaServerSource) {
  return catalog?.budget(`media-server:${accountId}:${source}`, `the ${source} connection of account ${accountId}`);
}

/** What the event named, as the answer and the log show it. */
function seenOf(event: MediaEvent): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({ kind: event.kind, title: event.title, ids: event.ids, unusedIds: event.unusedIds, show: event.show, season: event.season, episode: event.episode, episodeEnd: event.episodeEnd }).filter(([, value]) => value !== undefined),
  );
}

/** The server's time of the event when it is a plausible history time, else the delivery's. */
function watchTime(event: MediaEvent, now: Date): Date {
  return event.at !== undefined && isHistoryTime(event.at, now.getTime()) && event.at.getTime() <= now.getTime() ? event.at : now;
}

const label = (item: Pick<MatchedItem, 'title' | 'season' | 'episode'>) =>
  item.season !== undefined && item.episode !== undefined ? `${item.title} S${String(item.season).padStart(2, '0')}E${String(item.episode).padStart(2, '0')}` : item.title;

/** The item an event names, as the log says it (the show and episode number, else the title). */
const eventLabel = (event: MediaEvent) =>
  event.kind === 'episode' && event.show?.title !== undefined ? label({ title: event.show.title, season: event.season, episode: event.episode }) : (event.title ?? `the ${event.kind ?? 'item'}`);

/** Records `items` watched (each once within the duplicate window); the outcome says which were new. */
async function record(accountId: number, source: MediaServerSource, items: MatchedItem[], rule: MatchRule, at: Date, now: Date): Promise<Outcome> {
  const answered: AnsweredItem[] = [];
  for (const item of items) {
    const recent = await db().watchEvent.findFirst({
      where: { accountId, [itemColumn[item.kind]]: item.id, watched: true, at: { gte: new Date(now.getTime() - mediaServerLimits.duplicateWindowMs) } },
      select: { id: true },
    });
    const recorded = recent ? false : (await setWatched({ accountId, kind: item.kind, id: item.id, watched: true, source: historySource(source), at })).changed;
    answered.push({ kind: item.kind, title: item.title, ...(item.season === undefined ? {} : { season: item.season, episode: item.episode }), recorded });
  }
  const names = items.map(label).join(', ');
  if (answered.some((item) => item.recorded)) {
    const skipped = answered.filter((item) => !item.recorded).length;
    return { answer: { result: 'matched', items: answered }, detail: `recorded ${names} (by ${rule})${skipped > 0 ? `; ${skipped} already watched` : ''}` };
  }
  const reason = 'watched already, or within the duplicate window';
  return { answer: { result: 'duplicate', reason, items: answered }, detail: `${names}: ${reason}` };
}

/** Removes the watches this source recorded (the item's latest history entry is its watch). */
async function unplay(connection: Connection, items: MatchedItem[], now: Date): Promise<Outcome> {
  const answered: AnsweredItem[] = [];
  const ours = historySource(connection.source);
  for (const item of items) {
    const latest = await db().watchEvent.findFirst({
      where: { accountId: connection.accountId, [itemColumn[item.kind]]: item.id },
      orderBy: { id: 'desc' },
      select: { watched: true, source: true },
    });
    const removable = latest?.watched === true && latest.source === ours;
    const changed = removable ? (await setWatched({ accountId: connection.accountId, kind: item.kind, id: item.id, watched: false, source: ours, at: now })).changed : false;
    answered.push({ kind: item.kind, title: item.title, ...(item.season === undefined ? {} : { season: item.season, episode: item.episode }), recorded: changed });
  }
  const names = items.map(label).join(', ');
  if (answered.some((item) => item.recorded)) return { answer: { result: 'removed', items: answered }, detail: `removed the watch of ${names}` };
  const reason = `unplayed, but the watch of ${names} was not recorded by ${connection.source}`;
  return { answer: { result: 'ignored', reason, items: answered }, detail: reason };
}

/**
 * Keeps the log bounded: the newest mediaServerLimits.logKept deliveries, and of the older ones
 * only those still waiting for the catalog, at most pendingKept of them.
 */
async function pruneLog(accountId: number): Promise<void> {
  const cut = await db().mediaServerDelivery.findFirst({ where: { accountId }, orderBy: { id: 'desc' }, skip: mediaServerLimits.logKept, select: { id: true } });
  if (!cut) return;
  await db().mediaServerDelivery.deleteMany({ where: { accountId, id: { lte: cut.id }, pending: null } });
  const pendingCut = await db().mediaServerDelivery.findFirst({
    where: { accountId, pending: { not: null } },
    orderBy: { id: 'desc' },
    skip: mediaServerLimits.pendingKept,
    select: { id: true },
  });
  if (pendingCut) await db().mediaServerDelivery.deleteMany({ where: { accountId, id: { lte: pendingCut.id }, pending: { not: null } } });
}

export interface RetrySummary {
  tried: number;
  matched: number;
  failures: number;
}

/**
 * Retries the unmatched deliveries kept for the catalog (of one account, or of every account that
 * has some), the longest untried first, at most mediaServerLimits.retriedPerRun per account: run
 * where pending imports are retried (the account's sync, the periodic catalog refresh), after the
 * catalog was refreshed. A match is recorded as the delivery would have been (at the delivery's
 * time) and the log row says so; the rest get lastTriedAt. Never throws: failures are logged.
 */
export async function retryUnmatchedDeliveries(props: { catalog?: CatalogService; accountId?: number; logger: { warn(message: string): void }; now?: Date }): Promise<RetrySummary> {
  const summary: RetrySummary = { tried: 0, matched: 0, failures: 0 };
  const now = props.now ?? new Date();
  let accounts: number[];
  try {
    accounts =
      props.accountId !== undefined
        ? [props.accountId]
        : (await db().mediaServerDelivery.findMany({ where: { pending: { not: null } }, distinct: ['accountId'], select: { accountId: true } })).map((row) => row.accountId);
  } catch (error) {
    props.logger.warn(`media server deliveries: listing the accounts failed: ${(error as Error).message}`);
    return { ...summary, failures: 1 };
  }
  for (const accountId of accounts) {
    try {
      const rows = await db().mediaServerDelivery.findMany({
        where: { accountId, pending: { not: null } },
        orderBy: [{ lastTriedAt: { sort: 'asc', nulls: 'first' } }, { id: 'asc' }],
        take: mediaServerLimits.retriedPerRun,
      });
      for (const row of rows) {
        // Claimed first: the account's sync and the periodic refresh may retry at once, and only
        // one of them may record the row (the other would find the watch and call it a duplicate).
        const claimed = await db().mediaServerDelivery.updateMany({ where: { id: row.id, pending: { not: null }, lastTriedAt: row.lastTriedAt }, data: { lastTriedAt: now } });
        if (claimed.count === 0) continue;
        summary.tried += 1;
        const event = JSON.parse(row.pending!, (key, value: unknown) => (key === 'at' && typeof value === 'string' ? new Date(value) : value)) as MediaEvent;
        const match = await matchEvent(event, { accountId, catalog: props.catalog, budget: catalogBudget(props.catalog, accountId, row.source as MediaServerSource) });
        if (match.items.length === 0) continue;
        const outcome = await record(accountId, row.source as MediaServerSource, match.items, 'rule' in match ? match.rule : 'item ids', watchTime(event, row.at), now);
        const answer = { ...(JSON.parse(row.answer) as DeliveryAnswer), ...outcome.answer, seen: undefined, reason: outcome.answer.reason };
        // Only while still kept: a retry that read the row after another's claim (the claim only
        // stops those that read before it) finds the watch that one recorded and would log it as a
        // duplicate over that one's match; the first to finish writes the log row.
        const resolved = await db().mediaServerDelivery.updateMany({
          where: { id: row.id, pending: { not: null } },
          data: { result: answer.result, detail: `on retry: ${outcome.detail}`, answer: JSON.stringify(answer), pending: null, lastTriedAt: now },
        });
        if (resolved.count > 0) summary.matched += 1;
      }
    } catch (error) {
      summary.failures += 1;
      props.logger.warn(`media server deliveries: retry of account ${accountId} failed: ${(error as Error).message}`);
    }
  }
  return summary;
}

