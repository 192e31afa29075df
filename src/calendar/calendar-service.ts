import { createHmac } from 'node:crypto';
import { secretKey } from '../keys/secret-key.ts';
import { databaseGeneration, fastReader } from '../db/client.ts';
import { asEpochMs } from '../db/fast-read.ts';
import { InputError } from '../errors.ts';
import { yieldToEventLoop } from '../event-loop.ts';
import { addDays, episodeCode, isValidLocalDate, localDate } from '../time/dates.ts';
import type { LocalDate } from '../time/dates.ts';
import { createAccountCache } from '../http/account-cache.ts';

/** What a calendar can hold, in the order `?kinds=` lists them by default. */
export const calendarKinds = ['episode', 'movie', 'game'] as const;
export type CalendarKind = (typeof calendarKinds)[number];

/** Days before and after the account's local today a calendar covers unless told otherwise. */
export const calendarDefaults = { past: 30, future: 365 } as const;

/** Largest `past` or `future`: ten years either way is more than any calendar app shows. */
export const calendarMaxDays = 3650;

/** One all-day event: an episode airing, a movie or a game releasing. */
export interface CalendarEvent {
  /** Stable and opaque: see `calendarUid`. */
  uid: string;
  kind: CalendarKind;
  /** Database id, the one the write endpoints take. */
  id: number;
  /** The show's title for an episode, else the item's. */
  title: string;
  /** The event's one-line text: `Show S01E02 · Episode title`, or the movie's or game's title. */
  summary: string;
  /** A second line for the event's notes. */
  description: string;
  date: LocalDate;
  /** The item's last change (for an episode: its own or its show's, whichever is later). */
  updatedAt: Date;
  poster: string | null;
  show: string | null;
  showId: number | null;
  episode: string | null;
  season: number | null;
  number: number | null;
  episodeTitle: string | null;
}

/** An account's calendar: every event from `from` to `to`, both included. */
export interface AccountCalendar {
  /** `Airdate — <account name>`, the name calendar apps show. */
  name: string;
  from: LocalDate;
  to: LocalDate;
  events: CalendarEvent[];
}

export interface CalendarProps {
  /** With `catalogVersion`, the events of each followed show are kept for the next load (see `showEvents`). */
  account: { id: number; name: string; timezone: string; catalogVersion?: number };
  /** Days back from local today; `calendarDefaults.past` when omitted. */
  past?: number | null;
  /** Days ahead of local today; `calendarDefaults.future` when omitted. */
  future?: number | null;
  /** Kinds to include; all when omitted. */
  kinds?: readonly CalendarKind[] | null;
  /** The instant "today" is taken at; now when omitted. */
  now?: Date;
}

/**
 * Checks a `past` or `future` day count and returns it (the default when omitted).
 * @throws InputError unless it is a whole number from 0 to `calendarMaxDays`.
 */
export function calendarDays(field: 'past' | 'future', value: number | null | undefined): number {
  if (value === null || value === undefined) return calendarDefaults[field];
  if (!Number.isInteger(value) || value < 0 || value > calendarMaxDays) {
    throw new InputError(`${field} must be a whole number of days from 0 to ${calendarMaxDays}`, field);
  }
  return value;
}

/**
 * The event UID of an item in an account's calendar: HMAC-SHA256 under the server's secret key,
 * truncated to 128 bits. The same item keeps its UID forever (clients update the event instead
 * of duplicating it), the database id cannot be read back from it, and the account id is part of
 * the input so that two household members' calendars subscribed in one app never share a UID
 * (some apps then show the event in one calendar only) and cannot be linked by comparing files.
 */
export function calendarUid(accountId: number, kind: CalendarKind, id: number): string {
  const key = secretKey();
  if (key !== uidKey || knownUids.size >= maxKnownUids) {
    knownUids.clear();
    uidKey = key;
  }
  const input = `airdate-calendar-uid:${accountId}:${kind}:${id}`;
  let uid = knownUids.get(input);
  if (uid === undefined) {
    uid = `${createHmac('sha256', key).update(input).digest('hex').slice(0, 32)}@airdate`;
    knownUids.set(input, uid);
  }
  return uid;
}

/**
 * UIDs already computed, by HMAC input, under the key `uidKey`: an HMAC costs ~5 µs and a native
 * context that lives until the next collection, so a 20 000-event calendar spent ~100 ms and
 * tens of MB on them at every render. Bounded: emptied when full (~100 bytes an entry).
 */
const knownUids = new Map<string, string>();
const maxKnownUids = 200_000;
let uidKey: Buffer | undefined;

/**
 * The account's calendar: followed, non-archived shows' episodes (specials included), followed
 * movies and games with a known date between local today − past and local today + future. One
 * query for the titles and one per `showsPerRead` followed shows (plus one for their ids), whatever
 * the size of the catalog. Ordered by date, title, season, number, kind and id, so the same library
 * always gives the same list.
 * @throws InputError for a bad `past` or `future`.
 */
export async function loadCalendar(props: CalendarProps): Promise<AccountCalendar> {
  const past = calendarDays('past', props.past);
  const future = calendarDays('future', props.future);
  const kinds = new Set<CalendarKind>(props.kinds ?? calendarKinds);
  const today = localDate(props.account.timezone, props.now ?? new Date());
  const from = addDays(today, -past);
  const to = addDays(today, future);
  const accountId = props.account.id;

  const events: CalendarEvent[] = [];
  if (kinds.has('episode')) events.push(...(await loadEpisodes(accountId, from, to, props.account.catalogVersion)));
  const titleKinds = (['movie', 'game'] as const).filter((kind) => kinds.has(kind));
  if (titleKinds.length > 0) events.push(...(await loadTitles(accountId, titleKinds, from, to)));
  return { name: `Airdate — ${props.account.name}`, from, to, events: await sortInSlices(events) };
}

/**
 * Followed shows whose episodes one query reads. SQLite answers a query in one synchronous call:
 * the episodes of 500 shows over 20 years (25 000 rows) took 35-45 ms in one piece, during which
 * no other request moved; 100 shows' take ~8 ms.
 */
export const showsPerRead = 100;

/** The show-id placeholders of an episode read: always `showsPerRead` (one statement, prepared once). */
const showIdParams = Array.from({ length: showsPerRead }, () => '?').join(', ');

/**
 * Each account's episode events by show, for one catalog version and date range: a follow or
 * archive change (which changes the calendar) then reads only the shows it adds, not the 500 the
 * account already had (issue 14: ~50 ms of a re-render was reading and building those). What a
 * show's events hold — its episodes, titles, dates, the account's UIDs — changes only with the
 * catalog, whose version every catalog write bumps, so a kept list is never stale; which shows
 * take part is read every time.
 */
const showEvents = createAccountCache<Map<number, CalendarEvent[]>>(100);

async function loadEpisodes(accountId: number, from: LocalDate, to: LocalDate, catalogVersion: number | undefined): Promise<CalendarEvent[]> {
  const showIds = (
    await fastReader().rows(
      `SELECT li."showId" FROM "LibraryItem" li
       WHERE li."accountId" = ? AND li."kind" = 'show' AND li."followed" = TRUE AND li."archived" = FALSE AND li."showId" IS NOT NULL
       ORDER BY li."showId"`,
      [accountId],
    )
  ).map(([id]) => Number(id));
  // The database is in the key too: another one opened later (a test's) has other shows under the same ids.
  const key = `${databaseGeneration()}:${catalogVersion}:${from}:${to}`;
  const kept = catalogVersion === undefined ? undefined : showEvents.get(accountId, key);
  const byShow = new Map<number, CalendarEvent[]>();
  const missing: number[] = [];
  for (const showId of showIds) {
    const events = kept?.get(showId);
    if (events === undefined) missing.push(showId);
    else byShow.set(showId, events);
  }
  for (const showId of missing) byShow.set(showId, []);
  for (let start = 0; start < missing.length; start += showsPerRead) {
    const batch = missing.slice(start, start + showsPerRead);
    // The last batch repeats an id to fill the placeholders (IN ignores the repeats).
    while (batch.length < showsPerRead) batch.push(batch[0]!);
    for (const event of await readEpisodes(accountId, batch, from, to)) byShow.get(event.showId!)!.push(event);
  }
  // Only the shows of this load are kept: an unfollowed show's events go with it.
  if (catalogVersion !== undefined) showEvents.set(accountId, key, byShow);
  return [...byShow.values()].flat();
}

async function readEpisodes(accountId: number, showIds: number[], from: LocalDate, to: LocalDate): Promise<CalendarEvent[]> {
  // Timestamps cast to text: the same on both databases, and PostgreSQL's driver would otherwise
  // read Prisma's zone-less UTC timestamps in the server process's zone.
  const rows = await fastReader().rows(
    `SELECT e."id", e."season", e."number", e."title", e."airDate", CAST(e."updatedAt" AS TEXT),
            s."id", s."title", s."poster", CAST(s."updatedAt" AS TEXT)
     FROM "Show" s JOIN "Episode" e ON e."showId" = s."id"
     WHERE s."id" IN (${showIdParams}) AND e."airDate" >= ? AND e."airDate" <= ?`,
    [...showIds, from, to],
  );
  return mapInSlices(rows, ([id, season, number, title, airDate, updatedAt, showId, showTitle, poster, showUpdatedAt]) => {
    if (!isValidLocalDate(String(airDate))) return undefined;
    const show = String(showTitle);
    const code = episodeCode(Number(season), Number(number));
    const episodeTitle = title === null ? null : String(title);
    const event: CalendarEvent = {
      uid: calendarUid(accountId, 'episode', Number(id)),
      kind: 'episode',
      id: Number(id),
      title: show,
      summary: `${show} ${code}${episodeTitle ? ` · ${episodeTitle}` : ''}`,
      description: Number(season) === 0 ? `Special ${Number(number)} of ${show}` : `Season ${Number(season)}, episode ${Number(number)} of ${show}`,
      date: String(airDate),
      // The summary carries the show's title, so renaming the show changes the event too.
      updatedAt: new Date(Math.max(asEpochMs(updatedAt), asEpochMs(showUpdatedAt))),
      poster: poster as string | null,
      show,
      showId: Number(showId),
      episode: code,
      season: Number(season),
      number: Number(number),
      episodeTitle,
    };
    return event;
  });
}

async function loadTitles(accountId: number, kinds: readonly ('movie' | 'game')[], from: LocalDate, to: LocalDate): Promise<CalendarEvent[]> {
  const table = { movie: ['Movie', 'movieId'], game: ['Game', 'gameId'] } as const;
  const selects = kinds.map((kind) => {
    const [name, column] = table[kind];
    return `SELECT '${kind}', t."id", t."title", t."poster", t."releaseDate", CAST(t."updatedAt" AS TEXT)
     FROM "LibraryItem" li JOIN "${name}" t ON t."id" = li."${column}"
     WHERE li."accountId" = ? AND li."followed" = TRUE AND t."releaseDate" >= ? AND t."releaseDate" <= ?`;
  });
  const rows = await fastReader().rows(selects.join('\nUNION ALL\n'), kinds.flatMap(() => [accountId, from, to]));
  return mapInSlices(rows, ([kind, id, title, poster, releaseDate, updatedAt]) => {
    if (!isValidLocalDate(String(releaseDate))) return undefined;
    const itemKind = kind as 'movie' | 'game';
    const event: CalendarEvent = {
      uid: calendarUid(accountId, itemKind, Number(id)),
      kind: itemKind,
      id: Number(id),
      title: String(title),
      summary: String(title),
      description: itemKind === 'movie' ? 'Movie release' : 'Game release',
      date: String(releaseDate),
      updatedAt: new Date(asEpochMs(updatedAt)),
      poster: poster as string | null,
      ...noEpisode,
    };
    return event;
  });
}

/** Rows turned into events per turn of the event loop (each takes an HMAC, ~5 µs). */
const rowsPerSlice = 1_000;

/**
 * The events of `rows` (rows `toEvent` answers undefined for are left out), a slice at a time
 * with a turn of the event loop between slices: a 20 000-event calendar is ~100 ms of work that
 * must not hold every other request up in one piece.
 */
async function mapInSlices(rows: unknown[][], toEvent: (row: unknown[]) => CalendarEvent | undefined): Promise<CalendarEvent[]> {
  const events: CalendarEvent[] = [];
  for (let start = 0; start < rows.length; start += rowsPerSlice) {
    if (start > 0) await yieldToEventLoop();
    for (const row of rows.slice(start, start + rowsPerSlice)) {
      const event = toEvent(row);
      if (event) events.push(event);
    }
  }
  return events;
}

/**
 * `events` in calendar order (compareEvents): grouped by date, the dates in order, each day's
 * events compared in full, with a turn of the event loop every few thousand events. One sort of a
 * 20 000-event calendar with the collator is ~100 ms in one piece; a day rarely holds more than a
 * few dozen events.
 */
async function sortInSlices(events: CalendarEvent[]): Promise<CalendarEvent[]> {
  const byDate = new Map<string, CalendarEvent[]>();
  for (const event of events) {
    const day = byDate.get(event.date);
    if (day) day.push(event);
    else byDate.set(event.date, [event]);
  }
  const sorted: CalendarEvent[] = [];
  let sinceTurn = 0;
  for (const date of [...byDate.keys()].sort()) {
    const day = byDate.get(date)!.sort(compareEvents);
    for (const event of day) sorted.push(event);
    sinceTurn += day.length;
    if (sinceTurn >= rowsPerSlice * 2) {
      sinceTurn = 0;
      await yieldToEventLoop();
    }
  }
  return sorted;
}

const noEpisode = { show: null, showId: null, episode: null, season: null, number: null, episodeTitle: null } as const;

const collator = new Intl.Collator('en');
const kindOrder: Record<CalendarKind, number> = { episode: 0, movie: 1, game: 2 };

function compareEvents(a: CalendarEvent, b: CalendarEvent): number {
  return (
    (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
    collator.compare(a.title, b.title) ||
    (a.season ?? 0) - (b.season ?? 0) ||
    (a.number ?? 0) - (b.number ?? 0) ||
    kindOrder[a.kind] - kindOrder[b.kind] ||
    a.id - b.id
  );
}
