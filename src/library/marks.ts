import { db } from '../db/client.ts';
import { accountVersionBumps } from '../db/stale-versions.ts';
import { itemColumn, type WatchKind } from '../db/fast-write.ts';
import { episodesVisibleTo, visibleTo } from '../db/catalog-visibility.ts';
import { hasAired } from '../feeds/rules.ts';
import { localDate, type LocalDate } from '../time/dates.ts';
import { bulkWrites, maxIntColumn, transactionTimes } from '../limits.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { insertRows, insertRowsReturning, updateRows } from '../db/bulk-sql.ts';
import { bulkWriteTurns } from './bulk-writes.ts';
import { InputError, NotFoundError } from '../errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Marks made from the web app: several items at once (a season, "everything up to here", a list
 * of ids) with the date the person chose, and undoing marks by their history entries. Each request
 * is one transaction over the account's own rows, bounded in size; a real change writes the state,
 * one history entry per item and the account's feed version bump (stale-versions.ts), so feed
 * caches and kept snapshots see it like any toggle. The single-item toggle of the machine API stays
 * on the fast writer (library.ts).
 */

/** What date a mark records: the moment of marking, the item's air or release date, or none. */
export type MarkDate = 'now' | 'airDate' | 'unknown';

/** Most items one bulk request may change (a show's every episode fits; a longer one goes by seasons). */
export const markLimits = { items: 5_000, undo: 5_000 } as const;

/** One item to mark: its kind, id and air or release date (for an AIR_DATE mark). */
interface MarkTarget {
  kind: WatchKind;
  id: number;
  airDate: LocalDate | null;
}

export interface MarkResult {
  /** Items whose state changed (the others already had it). */
  changed: number;
  /** The ids of the items that changed, in the order asked. */
  itemIds: number[];
  /** The history entries written, one per changed item: what undoMarks takes back. */
  historyIds: number[];
  /**
   * The account's feed version this write made (null when nothing changed): a live stream's event
   * carrying it is this write's own echo, so the tab that made it need not read again.
   */
  feedVersion: number | null;
}

/** The instant an air date stands for in the history: noon UTC of that day (as imports date a day-only mark). */
export function airDateInstant(date: LocalDate): Date {
  return new Date(`${date}T12:00:00.000Z`);
}

function checkId(id: number, field: string): void {
  if (!Number.isInteger(id) || id < 1 || id > maxIntColumn) throw new InputError(`${field} must be a positive integer up to ${maxIntColumn}`, field);
}

/**
 * `work` in one transaction (all or nothing); for a bulk write, in the account's turn (bulk-writes.ts:
 * one at a time per account, a few waiting, the rest refused with 429). `bulkOf`: the account whose
 * turn to take, null for a request of at most bulkWrites.smallItems items.
 */
function inTransaction<T>(bulkOf: number | null, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  const run = () => db().$transaction(work, { maxWait: transactionTimes.sqliteWaitMs, timeout: 60_000 });
  return bulkOf === null ? run() : bulkWriteTurns.run(bulkOf, run);
}

/** The account whose bulk-write turn a request of `count` items takes (inTransaction), or null when it is small. */
const bulkOf = (accountId: number, count: number): number | null => (count > bulkWrites.smallItems ? accountId : null);

/**
 * Sets `watched` on every target inside `tx`: the ones already in that state are left alone; each
 * other gets its state row (created on the first watch) and one history entry dated as `date`
 * asks (an unmark is dated now). Bumps the feed version once when anything changed. The targets go
 * prismaListValues at a time (slices), each slice's statements within every driver's bound on a
 * statement's parameters (SQLite's refused 996 ids), all in the caller's one transaction.
 */
async function applyMarks(tx: Prisma.TransactionClient, accountId: number, targets: MarkTarget[], watched: boolean, date: MarkDate, source: string): Promise<MarkResult> {
  const now = new Date();
  const changedIds: number[] = [];
  const historyIds: number[] = [];
  const byKind = new Map<WatchKind, MarkTarget[]>();
  for (const target of targets) {
    const list = byKind.get(target.kind);
    if (list) list.push(target);
    else byKind.set(target.kind, [target]);
  }
  for (const [kind, all] of byKind) {
    for (const items of chunks(all, prismaListValues)) {
      const changed = await markSlice(tx, accountId, kind, items, watched, date, source, now);
      changedIds.push(...changed.itemIds);
      historyIds.push(...changed.historyIds);
    }
  }
  const feedVersion = changedIds.length > 0 ? (await tx.account.update({ where: { id: accountId }, data: { ...accountVersionBumps({ watches: true }), updatedAt: now }, select: { feedVersion: true } })).feedVersion : null;
  return { changed: changedIds.length, itemIds: changedIds, historyIds, feedVersion };
}

/** applyMarks for one slice of items of one kind (at most prismaListValues): the ids changed and the history entries written. */
async function markSlice(tx: Prisma.TransactionClient, accountId: number, kind: WatchKind, items: MarkTarget[], watched: boolean, date: MarkDate, source: string, now: Date): Promise<{ itemIds: number[]; historyIds: number[] }> {
  const column = itemColumn[kind];
  const ids = items.map((item) => item.id);
  const stateFields = { id: true, episodeId: true, movieId: true, gameId: true } as const;
  // As the fast writer does it (fast-write-postgres.ts), so that concurrent writers of the same
  // items stay exact: the flip is conditional (re-checked on the row a concurrent writer left),
  // and a state another writer created meanwhile makes the creation a no-op that changed nothing.
  const flipped = await tx.watchState.updateManyAndReturn({ where: { accountId, [column]: { in: ids }, watched: !watched }, data: { watched, changedAt: now }, select: stateFields });
  /** The state row of each item changed here. */
  const changedHere = new Map(flipped.map((state) => [state[column]!, state.id]));
  if (watched) {
    const existing = await tx.watchState.findMany({ where: { accountId, [column]: { in: ids } }, select: stateFields });
    const known = new Set(existing.map((state) => state[column]!));
    const fresh = items.filter((item) => !known.has(item.id));
    if (fresh.length > 0) {
      // One statement, the rows one JSON parameter (bulk-sql.ts): Prisma's createMany cost ~0.2 ms
      // a row here. A state another writer created meanwhile (PostgreSQL) is skipped: not changed here.
      const created = await insertRowsReturning<Record<string, number>>(tx, 'WatchState', [column, 'watched', 'changedAt'], fresh.map((item) => [item.id, watched, now]), ['id', column], {
        shared: { accountId, kind },
        skipConflicts: true,
      });
      for (const state of created) changedHere.set(state[column]!, state.id!);
    }
  }
  const changing = items.filter((item) => changedHere.has(item.id));
  if (changing.length === 0) return { itemIds: [], historyIds: [] };
  const events = await insertRowsReturning<Record<string, number>>(
    tx,
    'WatchEvent',
    [column, 'watched', 'at', 'dateUnknown'],
    changing.map((item) => {
      const dated = watched && date === 'airDate' && item.airDate !== null;
      return [item.id, watched, dated ? airDateInstant(item.airDate!) : now, watched && (date === 'unknown' || (date === 'airDate' && item.airDate === null))];
    }),
    ['id', column],
    { shared: { accountId, kind, source } },
  );
  // RETURNING gives no order: each entry goes with its item, in the order asked.
  const eventOf = new Map(events.map((event) => [event[column]!, event.id!]));
  if (watched && date === 'airDate') {
    // The state carries the time of the watch it stands for, as an import's does (statistics
    // count by it): an air-date mark dates each item's state by its air date, in one statement.
    const dated = changing.filter((item) => item.airDate !== null).map((item) => [changedHere.get(item.id)!, airDateInstant(item.airDate!)]);
    await updateRows(tx, 'WatchState', 'id', ['changedAt'], dated);
  }
  return { itemIds: changing.map((item) => item.id), historyIds: changing.map((item) => eventOf.get(item.id)!) };
}

export interface MarkEpisodesProps {
  accountId: number;
  /** The account's time zone: "aired" is on or before its local today. */
  timeZone: string;
  showId: number;
  /** Only this season (0: the specials). */
  season?: number;
  /** Every episode up to and including this one (by season and number; specials only when `includeSpecials`). */
  upToEpisodeId?: number;
  /** Specials (season 0) are left out unless asked for or `season` is 0. */
  includeSpecials?: boolean;
  watched: boolean;
  date?: MarkDate;
  source?: string;
  /** The local today (tests); the account's by default. */
  today?: LocalDate;
}

/**
 * Marks a show's episodes watched or unwatched in bulk: the whole show, one season, or everything
 * up to an episode. A watched mark takes only the episodes that have aired (on or before the
 * account's today; an unknown air date has not aired); an unmark takes them all. The show need
 * not be followed (marking never follows).
 */
export async function markEpisodes(props: MarkEpisodesProps): Promise<MarkResult> {
  checkId(props.showId, 'showId');
  if (props.upToEpisodeId !== undefined) checkId(props.upToEpisodeId, 'upToEpisodeId');
  if (props.season !== undefined && (!Number.isInteger(props.season) || props.season < 0 || props.season > maxIntColumn)) throw new InputError('season must be 0 or a positive integer', 'season');
  const today = props.today ?? localDate(props.timeZone, new Date());
  return inTransaction(props.accountId, async (tx) => {
    const show = await tx.show.findFirst({ where: { id: props.showId, ...visibleTo(props.accountId) }, select: { id: true } });
    if (!show) throw new NotFoundError(`show ${props.showId} not found`);
    const episodes = await tx.episode.findMany({
      where: { showId: props.showId, ...(props.season === undefined ? {} : { season: props.season }) },
      select: { id: true, season: true, number: true, airDate: true },
      orderBy: [{ season: 'asc' }, { number: 'asc' }],
    });
    let chosen = episodes;
    if (props.upToEpisodeId !== undefined) {
      const last = episodes.find((episode) => episode.id === props.upToEpisodeId);
      if (!last) throw new NotFoundError(`episode ${props.upToEpisodeId} is not an episode of show ${props.showId}${props.season === undefined ? '' : ` season ${props.season}`}`);
      // Specials sort first (season 0) but air between seasons: "up to" a regular episode means the regular seasons up to it.
      chosen = episodes.filter((episode) => (episode.season === 0 ? last.season === 0 && episode.number <= last.number : last.season !== 0 && (episode.season < last.season || (episode.season === last.season && episode.number <= last.number))));
    }
    const withSpecials = props.includeSpecials === true || props.season === 0 || (props.upToEpisodeId !== undefined && chosen.every((episode) => episode.season === 0));
    chosen = chosen.filter((episode) => withSpecials || episode.season !== 0);
    if (props.watched) chosen = chosen.filter((episode) => hasAired(episode.airDate, today));
    if (chosen.length > markLimits.items) throw new InputError(`that is ${chosen.length} episodes, more than ${markLimits.items} at once; mark a season at a time`, 'showId');
    return applyMarks(tx, props.accountId, chosen.map((episode) => ({ kind: 'episode', id: episode.id, airDate: episode.airDate })), props.watched, props.date ?? 'now', props.source ?? 'graphql');
  });
}

export interface MarkItemsProps {
  accountId: number;
  kind: WatchKind;
  ids: number[];
  watched: boolean;
  date?: MarkDate;
  source?: string;
}

/**
 * Marks the given episodes, movies or games (each as asked, aired or not: the person picked them)
 * in one transaction. An id that names no item is a 404 and nothing is written.
 */
export async function markItems(props: MarkItemsProps): Promise<MarkResult> {
  if (props.ids.length === 0) throw new InputError('ids must name at least one item', 'ids');
  if (props.ids.length > markLimits.items) throw new InputError(`ids may name at most ${markLimits.items} items`, 'ids');
  props.ids.forEach((id) => checkId(id, 'ids'));
  const ids = [...new Set(props.ids)];
  return inTransaction(bulkOf(props.accountId, ids.length), async (tx) => {
    const found = new Map<number, string | null>();
    for (const part of chunks(ids, prismaListValues)) {
      const rows: { id: number; airDate: string | null }[] =
        props.kind === 'episode'
          ? await tx.episode.findMany({ where: { id: { in: part }, ...episodesVisibleTo(props.accountId) }, select: { id: true, airDate: true } })
          : (props.kind === 'movie'
              ? await tx.movie.findMany({ where: { id: { in: part }, ...visibleTo(props.accountId) }, select: { id: true, releaseDate: true } })
              : await tx.game.findMany({ where: { id: { in: part }, ...visibleTo(props.accountId) }, select: { id: true, releaseDate: true } })
            ).map((row) => ({ id: row.id, airDate: row.releaseDate }));
      for (const row of rows) found.set(row.id, row.airDate);
    }
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new NotFoundError(`${props.kind} ${missing} not found`);
    return applyMarks(tx, props.accountId, ids.map((id) => ({ kind: props.kind, id, airDate: found.get(id) ?? null })), props.watched, props.date ?? 'now', props.source ?? 'graphql');
  });
}

/**
 * Undoes marks by their history entries (the account's own; another's id is NOT_FOUND and nothing
 * changes): each entry is removed, and its item's state becomes what its latest remaining entry
 * says — or, with none left, the opposite of the removed entry (the state before it).
 * Answers how many items' states changed. Set-based: a few statements per prismaListValues
 * entries and items, whatever their number, in one transaction.
 */
export async function undoMarks(props: { accountId: number; historyIds: number[] }): Promise<{ removed: number; changed: number; feedVersion: number }> {
  if (props.historyIds.length === 0) throw new InputError('ids must name at least one history entry', 'ids');
  if (props.historyIds.length > markLimits.undo) throw new InputError(`ids may name at most ${markLimits.undo} history entries`, 'ids');
  props.historyIds.forEach((id) => checkId(id, 'ids'));
  const ids = [...new Set(props.historyIds)];
  const { accountId } = props;
  return inTransaction(bulkOf(accountId, ids.length), async (tx) => {
    const entries: { id: number; kind: string; episodeId: number | null; movieId: number | null; gameId: number | null; watched: boolean }[] = [];
    for (const part of chunks(ids, prismaListValues)) {
      entries.push(...(await tx.watchEvent.findMany({ where: { accountId, id: { in: part } }, select: { id: true, kind: true, episodeId: true, movieId: true, gameId: true, watched: true } })));
    }
    if (entries.length < ids.length) {
      const found = new Set(entries.map((entry) => entry.id));
      throw new NotFoundError(`history entry ${ids.find((id) => !found.has(id))} not found`);
    }
    entries.sort((a, b) => a.id - b.id);
    for (const part of chunks(ids, prismaListValues)) await tx.watchEvent.deleteMany({ where: { accountId, id: { in: part } } });
    // Per item: the earliest removed entry says what the state was before any of them;
    // the latest remaining one (by the order the marks were made) what it is now.
    const before = new Map<WatchKind, Map<number, boolean>>();
    for (const entry of entries) {
      const kind = entry.kind as WatchKind;
      const id = entry[itemColumn[kind]]!;
      const items = before.get(kind) ?? new Map<number, boolean>();
      before.set(kind, items);
      if (!items.has(id)) items.set(id, !entry.watched);
    }
    let changed = 0;
    const now = new Date();
    for (const [kind, items] of before) {
      for (const part of chunks([...items.keys()], prismaListValues)) changed += await undoSlice(tx, accountId, kind, part, items, now);
    }
    const { feedVersion } = await tx.account.update({ where: { id: accountId }, data: { ...accountVersionBumps({ watches: true }), updatedAt: now }, select: { feedVersion: true } });
    return { removed: entries.length, changed, feedVersion };
  });
}

/**
 * undoMarks for one slice of items of one kind (at most prismaListValues), its entries removed:
 * each item's latest remaining entry (one grouped read and one read of those entries), its state
 * (one read), then the states that differ set in one statement and the missing ones created in
 * one. `before` gives the state before the removed entries, for an item with none left. Answers
 * how many states changed.
 */
async function undoSlice(tx: Prisma.TransactionClient, accountId: number, kind: WatchKind, ids: number[], before: Map<number, boolean>, now: Date): Promise<number> {
  const column = itemColumn[kind];
  const latestIds = await tx.watchEvent.groupBy({ by: [column], where: { accountId, [column]: { in: ids } }, _max: { id: true } });
  const latest = await tx.watchEvent.findMany({
    where: { id: { in: latestIds.map((group) => group._max.id!) } },
    select: { episodeId: true, movieId: true, gameId: true, watched: true, at: true },
  });
  const latestOf = new Map(latest.map((entry) => [entry[column]!, entry]));
  const states = await tx.watchState.findMany({ where: { accountId, [column]: { in: ids } }, select: { id: true, episodeId: true, movieId: true, gameId: true, watched: true } });
  const stateOf = new Map(states.map((state) => [state[column]!, state]));
  const updates: [number, boolean, Date][] = [];
  const creates: [number, boolean, Date][] = [];
  for (const id of ids) {
    const entry = latestOf.get(id);
    const watched = entry?.watched ?? before.get(id)!;
    // Back to the latest remaining entry: its time, as that entry set it.
    const changedAt = entry?.at ?? now;
    const state = stateOf.get(id);
    if ((state?.watched ?? false) === watched) continue;
    if (state) updates.push([state.id, watched, changedAt]);
    else creates.push([id, watched, changedAt]);
  }
  let changed = await updateRows(tx, 'WatchState', 'id', ['watched', 'changedAt'], updates);
  // A state a concurrent writer created meanwhile (PostgreSQL) wins: nothing changed for it here.
  changed += await insertRows(tx, 'WatchState', [column, 'watched', 'changedAt'], creates, { shared: { accountId, kind }, skipConflicts: true });
  return changed;
}
