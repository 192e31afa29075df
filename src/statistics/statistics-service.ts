import { databaseKind, fastReader } from '../db/client.ts';
import { asEpochMs } from '../db/fast-read.ts';
import { InputError } from '../errors.ts';
import { localDate } from '../time/dates.ts';

/**
 * An account's statistics: what it has watched (episodes, movies) and played (games), counted in
 * SQL over its watch states, in its time zone.
 *
 * What counts: an item's current watched flag (WatchState, watched = true) at the time it was set
 * (`changedAt`: the watch time an import or a mark recorded). An item counts once however often it
 * was marked and unmarked, and an unmarked one not at all, so an undone mark leaves no trace; a
 * mark whose date was recorded as unknown is not counted (it has no time to count at).
 *
 * Hours: the catalog's running time of each watched episode and movie (`runtime`, minutes); the
 * ones without one are counted apart (`withoutRuntime`) rather than guessed.
 *
 * Cost: two queries on PostgreSQL, three on SQLite (the first finds the span of the history), each
 * grouping in the database, whatever the size of the history: the answer is a few thousand rows at
 * most (years × 12 months × 7 weekdays × 3 kinds, and the shows watched in the year).
 */

export type StatisticsKind = 'episode' | 'movie' | 'game';

export interface StatisticsCounts {
  episodes: number;
  movies: number;
  games: number;
  /** Minutes of the episodes and movies with a known runtime. */
  minutes: number;
  /** Episodes and movies counted whose runtime the catalog does not know. */
  withoutRuntime: number;
}

export interface StatisticsPeriod extends StatisticsCounts {
  /** The year; the month 1–12; the ISO weekday 1 (Monday) – 7 (Sunday). */
  key: number;
}

export interface StatisticsShow {
  showId: number;
  title: string;
  poster: string | null;
  episodes: number;
  minutes: number;
  withoutRuntime: number;
}

export interface AccountStatistics {
  timeZone: string;
  /** Every year with something watched, newest first. */
  years: StatisticsPeriod[];
  /** Everything, all years. */
  total: StatisticsCounts;
  /** The year reviewed. */
  year: number;
  review: StatisticsCounts;
  /** The year's twelve months, January first. */
  months: StatisticsPeriod[];
  /** The year's seven weekdays, Monday first. */
  weekdays: StatisticsPeriod[];
  /** Shows with episodes watched in the year: most episodes first, then most minutes, then title. */
  shows: StatisticsShow[];
}

/** The years a review may be asked for. */
export const statisticsYears = { min: 1900, max: 2200 } as const;

const emptyCounts = (): StatisticsCounts => ({ episodes: 0, movies: 0, games: 0, minutes: 0, withoutRuntime: 0 });

/** Adds one grouped row (kind, count, minutes, count without runtime) to `counts`. */
function add(counts: StatisticsCounts, kind: unknown, count: unknown, minutes: unknown, missing: unknown): void {
  const items = Number(count);
  if (kind === 'episode') counts.episodes += items;
  else if (kind === 'movie') counts.movies += items;
  else if (kind === 'game') counts.games += items;
  if (kind === 'game') return;
  counts.minutes += Number(minutes ?? 0);
  counts.withoutRuntime += Number(missing ?? 0);
}

/**
 * `account`'s statistics, the review for `year` (default: the latest year with history, else the
 * local current year).
 * @throws InputError for a year outside statisticsYears.
 */
export async function loadStatistics(props: { account: { id: number; timezone: string }; year?: number | null; now?: Date }): Promise<AccountStatistics> {
  if (props.year !== undefined && props.year !== null && (!Number.isInteger(props.year) || props.year < statisticsYears.min || props.year > statisticsYears.max)) {
    throw new InputError(`year must be a whole number from ${statisticsYears.min} to ${statisticsYears.max}`, 'year');
  }
  const zone = props.account.timezone;
  const local = databaseKind() === 'postgres' ? postgresLocalTime(zone) : await sqliteLocalTime(props.account.id, zone);
  const reader = fastReader();
  const accountId = props.account.id;

  // The account's watched items with their local time computed once a row (MATERIALIZED: not
  // folded into each use), then its year, month and weekday.
  // A mark recorded with its date unknown (the web app's choice) has no time to count it at: the
  // states its dateless history entries set (same item, same time) are left out.
  const watched = `WITH dateless AS MATERIALIZED (
       SELECT ev."kind" AS kind, COALESCE(ev."episodeId", ev."movieId", ev."gameId") AS item, ev."at" AS at
       FROM "WatchEvent" ev WHERE ev."accountId" = ? AND ev."dateUnknown" = TRUE AND ev."watched" = TRUE),
     base AS MATERIALIZED (
       SELECT w."kind" AS kind, w."episodeId" AS episode, w."movieId" AS movie, ${local.value} AS t
       FROM "WatchState" w WHERE w."accountId" = ? AND w."watched" = TRUE
         AND NOT EXISTS (SELECT 1 FROM dateless d WHERE d.kind = w."kind" AND d.item = COALESCE(w."episodeId", w."movieId", w."gameId") AND d.at = w."changedAt")),
     located AS (SELECT kind, episode, movie, ${local.local} AS lt FROM base),
     watched AS (SELECT kind, episode, movie, ${local.year} AS y, ${local.month} AS mo, ${local.weekday} AS wd FROM located)`;
  const params = [accountId, ...local.params, accountId];
  // The minutes an item adds and whether it lacks a runtime, from its episode or movie row.
  const joins = `FROM watched w LEFT JOIN "Episode" e ON e."id" = w.episode LEFT JOIN "Movie" m ON m."id" = w.movie`;
  const runtime = `COALESCE(e."runtime", m."runtime")`;
  const sums = `COUNT(*), SUM(${runtime}), SUM(CASE WHEN w.kind <> 'game' AND ${runtime} IS NULL THEN 1 ELSE 0 END)`;

  // One pass for the years, months and weekdays: a few thousand rows at most (years × 12 × 7 × 3 kinds).
  const periodRows = await reader.rows(`${watched} SELECT w.y, w.mo, w.wd, w.kind, ${sums} ${joins} GROUP BY w.y, w.mo, w.wd, w.kind`, params);
  const byYear = new Map<number, StatisticsPeriod>();
  const total = emptyCounts();
  for (const [year, , , kind, count, minutes, missing] of periodRows) {
    const key = Number(year);
    const period = byYear.get(key) ?? { key, ...emptyCounts() };
    add(period, kind, count, minutes, missing);
    add(total, kind, count, minutes, missing);
    byYear.set(key, period);
  }
  const years = [...byYear.values()].sort((a, b) => b.key - a.key);
  const year = props.year ?? years[0]?.key ?? Number(localDate(zone, props.now ?? new Date()).slice(0, 4));

  const review = emptyCounts();
  const months = Array.from({ length: 12 }, (_, index) => ({ key: index + 1, ...emptyCounts() }));
  const weekdays = Array.from({ length: 7 }, (_, index) => ({ key: index + 1, ...emptyCounts() }));
  for (const [rowYear, month, weekday, kind, count, minutes, missing] of periodRows) {
    if (Number(rowYear) !== year) continue;
    add(review, kind, count, minutes, missing);
    add(months[Number(month) - 1]!, kind, count, minutes, missing);
    add(weekdays[Number(weekday) - 1]!, kind, count, minutes, missing);
  }

  const showRows = await reader.rows(
    `${watched} SELECT s."id", s."title", s."poster", COUNT(*), SUM(e."runtime"), SUM(CASE WHEN e."runtime" IS NULL THEN 1 ELSE 0 END)
     FROM watched w JOIN "Episode" e ON e."id" = w.episode JOIN "Show" s ON s."id" = e."showId"
     WHERE w.y = ?
     GROUP BY s."id", s."title", s."poster"`,
    [...params, year],
  );
  const shows = showRows
    .map(([id, title, poster, count, minutes, missing]) => ({
      showId: Number(id),
      title: String(title),
      poster: poster === null ? null : String(poster),
      episodes: Number(count),
      minutes: Number(minutes ?? 0),
      withoutRuntime: Number(missing ?? 0),
    }))
    .sort((a, b) => b.episodes - a.episodes || b.minutes - a.minutes || a.title.localeCompare(b.title) || a.showId - b.showId);

  return { timeZone: zone, years, total, year, review, months, weekdays, shows };
}

/**
 * SQL for a watch state's time (`value`, of `w`, with its parameters), its local time (`local`, of that `t`) and the local year,
 * month (1–12) and ISO weekday (1–7) of that value (`lt`).
 */
interface LocalTime {
  value: string;
  params: unknown[];
  /** The local time from `value` (`t`). */
  local: string;
  year: string;
  month: string;
  weekday: string;
}

/** PostgreSQL knows the zones itself: the stored UTC time read in the account's zone. */
function postgresLocalTime(zone: string): LocalTime {
  return {
    value: `(w."changedAt" AT TIME ZONE 'UTC' AT TIME ZONE CAST(? AS text))`,
    params: [zone],
    local: 't',
    year: 'CAST(EXTRACT(YEAR FROM lt) AS INTEGER)',
    month: 'CAST(EXTRACT(MONTH FROM lt) AS INTEGER)',
    weekday: 'CAST(EXTRACT(ISODOW FROM lt) AS INTEGER)',
  };
}

/**
 * SQLite knows no time zones: the stored time (ISO text, or epoch milliseconds) as epoch seconds,
 * plus the zone's UTC offset at that instant, chosen by a CASE over the offset changes between the
 * account's first and last watch (two a year where daylight saving is kept; none elsewhere).
 */
async function sqliteLocalTime(accountId: number, zone: string): Promise<LocalTime> {
  const [range] = await fastReader().rows(`SELECT MIN(w."changedAt"), MAX(w."changedAt") FROM "WatchState" w WHERE w."accountId" = ? AND w."watched" = TRUE`, [accountId]);
  const first = range?.[0] == null ? Date.now() : asEpochMs(range[0]);
  const last = range?.[1] == null ? Date.now() : asEpochMs(range[1]);
  const spans = offsetSpans(zone, first - 86_400_000, last + 86_400_000);
  const epoch = `(CASE WHEN typeof(w."changedAt") IN ('integer', 'real') THEN CAST(w."changedAt" / 1000 AS INTEGER) ELSE CAST(strftime('%s', w."changedAt") AS INTEGER) END)`;
  const offset = spans.length === 1 ? String(spans[0]!.offset) : `(CASE ${spans.slice(0, -1).map((span) => `WHEN t < ${span.until} THEN ${span.offset}`).join(' ')} ELSE ${spans.at(-1)!.offset} END)`;
  return {
    // The epoch read once a row (the materialized step), the offset's CASE then compares integers.
    value: epoch,
    params: [],
    local: `t + ${offset}`,
    year: `CAST(strftime('%Y', lt, 'unixepoch') AS INTEGER)`,
    month: `CAST(strftime('%m', lt, 'unixepoch') AS INTEGER)`,
    // %w is 0 for Sunday; ISO has 7.
    weekday: `((CAST(strftime('%w', lt, 'unixepoch') AS INTEGER) + 6) % 7 + 1)`,
  };
}

/** The UTC offset of `zone` at `ms`, in seconds. */
export function zoneOffsetSeconds(zone: string, ms: number): number {
  const parts = offsetFormat(zone).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((item) => item.type === type)?.value);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 1000);
}

const formats = new Map<string, Intl.DateTimeFormat>();
function offsetFormat(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    if (formats.size > 1_000) formats.clear();
    formats.set(zone, format);
  }
  return format;
}

/**
 * The zone's offsets from `from` to `to` (epoch ms): spans of one offset each, `until` the epoch
 * second the next begins. Sampled every six days (no zone changes its offset twice in a week),
 * each change then found to the second by bisection.
 */
export function offsetSpans(zone: string, from: number, to: number): { offset: number; until: number }[] {
  const step = 6 * 86_400_000;
  const spans: { offset: number; until: number }[] = [];
  let at = from;
  let offset = zoneOffsetSeconds(zone, at);
  while (at < to) {
    const next = Math.min(at + step, to);
    const nextOffset = zoneOffsetSeconds(zone, next);
    if (nextOffset !== offset) {
      // In whole seconds: offset(low) is the old offset, offset(high) the new one.
      let low = Math.floor(at / 1000);
      let high = Math.ceil(next / 1000);
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        if (zoneOffsetSeconds(zone, middle * 1000) === offset) low = middle;
        else high = middle;
      }
      spans.push({ offset, until: high });
      offset = nextOffset;
    }
    at = next;
  }
  spans.push({ offset, until: Math.ceil(to / 1000) });
  return spans;
}
