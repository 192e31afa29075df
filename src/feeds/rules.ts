/**
 * The feed rules of decisions.md ("Feed semantics") as pure functions over a LibrarySnapshot.
 * `today` is always the account's local date (see dates.ts `localDate`); nothing here reads a clock.
 *
 * Orderings, so that every list is deterministic:
 * - titles compare with one shared `Intl.Collator('en')` (dictionary order: "apple" before "Zebra"),
 *   fixed for a given Node/ICU build; ids break whatever ties remain;
 * - today/week: airDate, show title, season, number, show id, episode id;
 * - releasing: airDate, title, kind (episode < game < movie), season, number, id;
 * - upNext: most recent watch activity first, then the rest (never watched) by airDate, title,
 *   show id.
 */
import { addDays, episodeCode, type LocalDate } from '../time/dates.ts';
import type {
  EpisodeFeedItem,
  FeedItem,
  Feeds,
  LibrarySnapshot,
  SnapshotEpisode,
  SnapshotShow,
  SnapshotTitle,
  TitleFeedItem,
  UpNextRule,
} from './types.ts';
import { upNextRules } from './types.ts';

/** A stored up-next rule; the default (decisions.md's) for anything else, such as a value a later version wrote. */
export function storedUpNextRule(stored: unknown): UpNextRule {
  return (upNextRules as readonly unknown[]).includes(stored) ? (stored as UpNextRule) : 'after-last-watched';
}

/** The date bounds the feeds are cut from, derived once per computation. */
export interface FeedWindow {
  today: LocalDate;
  tomorrow: LocalDate;
  /** Last day of the week list: today + 6, so seven calendar days with today. */
  weekEnd: LocalDate;
}

/** What a show contributes to up next and to the unwatched count. */
export interface ShowProgress {
  /** The episode to watch next (by the show's up-next rule), or null. */
  upNext: SnapshotEpisode | null;
  /** Aired, unwatched, non-special episodes, skipped ones included. */
  unwatchedEpisodes: number;
  /** Aired, unwatched, non-special episodes numbered before the furthest watched one: the holes. */
  skippedEpisodes: number;
  /** The first of them, or null when there are none. */
  firstSkipped: SnapshotEpisode | null;
}

/** Lists `scanShow` appends dated items to; an omitted list is skipped and costs nothing. */
export interface DatedEpisodeSink {
  week?: EpisodeFeedItem[];
  releasing?: FeedItem[];
}

const titleCollator = new Intl.Collator('en');

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reading order of a show's episodes; the id only settles duplicated numbers. */
function compareEpisodeNumbers(a: SnapshotEpisode, b: SnapshotEpisode): number {
  return a.season - b.season || a.number - b.number || a.id - b.id;
}

/** The today, tomorrow and week bounds for the account-local date `today`. */
export function feedWindow(today: LocalDate): FeedWindow {
  return { today, tomorrow: addDays(today, 1), weekEnd: addDays(today, 6) };
}

/** Only followed, non-archived shows take part in any feed or count. */
export function isActiveShow(show: SnapshotShow): boolean {
  return show.followed && !show.archived;
}

/** An episode has aired on or before `today`; an unknown date has never aired. */
export function hasAired(airDate: LocalDate | null, today: LocalDate): boolean {
  return airDate !== null && airDate <= today;
}

/** The feed item for an episode, with its show's title and poster; keys in serialization order. */
export function episodeItem(show: SnapshotShow, episode: SnapshotEpisode, airDate: LocalDate): EpisodeFeedItem {
  return {
    kind: 'episode',
    id: episode.id,
    title: show.title,
    show: show.title,
    showId: show.id,
    episode: episodeCode(episode.season, episode.number),
    season: episode.season,
    number: episode.number,
    episodeTitle: episode.title,
    airDate: airDate,
    poster: show.poster,
  };
}

/** The feed item for a movie or a game; keys in serialization order. */
export function titleItem(title: SnapshotTitle, releaseDate: LocalDate): TitleFeedItem {
  return { kind: title.kind, id: title.id, title: title.title, airDate: releaseDate, poster: title.poster };
}

/**
 * The earliest aired unwatched non-special episode numbered after `last`, and how many aired
 * unwatched non-special ones come before it (skipped): the rare second pass.
 */
function afterLastWatched(show: SnapshotShow, last: SnapshotEpisode, today: LocalDate): { first: SnapshotEpisode | null; skipped: number } {
  let first: SnapshotEpisode | null = null;
  let skipped = 0;
  for (const episode of show.episodes) {
    if (episode.season === 0 || episode.watched || !hasAired(episode.airDate, today)) continue;
    if (compareEpisodeNumbers(episode, last) <= 0) {
      skipped += 1;
      continue;
    }
    if (first === null || compareEpisodeNumbers(episode, first) < 0) first = episode;
  }
  return { first, skipped };
}

/**
 * One pass over a show's episodes (follow state is the caller's concern): finds its up-next
 * episode and unwatched count, and appends its episodes dated inside the window to `sink`
 * (week: today..weekEnd, releasing: unwatched today..tomorrow; specials included, they air too).
 * Up next, by the show's rule (`upNextRule`): the earliest aired unwatched non-special episode
 * after the highest watched non-special one (a show whose only unwatched episodes were skipped has
 * none), or the earliest aired unwatched non-special episode of all. Either way the skipped ones
 * (aired, unwatched, before the highest watched) are counted.
 */
export function scanShow(show: SnapshotShow, window: FeedWindow, sink: DatedEpisodeSink = {}): ShowProgress {
  const { today, tomorrow, weekEnd } = window;
  let lastWatched: SnapshotEpisode | null = null;
  let firstUnwatched: SnapshotEpisode | null = null;
  let unwatchedEpisodes = 0;
  for (const episode of show.episodes) {
    const airDate = episode.airDate;
    if (airDate !== null && airDate >= today && airDate <= weekEnd) {
      const releasing = !episode.watched && airDate <= tomorrow;
      // Build the item only when a list wants it; the week and releasing lists share it.
      if (sink.week !== undefined || (releasing && sink.releasing !== undefined)) {
        const item = episodeItem(show, episode, airDate);
        sink.week?.push(item);
        if (releasing) sink.releasing?.push(item);
      }
    }
    if (episode.season === 0) continue; // specials never count toward progress
    if (episode.watched) {
      if (lastWatched === null || compareEpisodeNumbers(episode, lastWatched) > 0) lastWatched = episode;
    } else if (hasAired(airDate, today)) {
      unwatchedEpisodes += 1;
      if (firstUnwatched === null || compareEpisodeNumbers(episode, firstUnwatched) < 0) firstUnwatched = episode;
    }
  }
  // Only when episodes before the last watched one were skipped must we look again past it.
  if (firstUnwatched !== null && lastWatched !== null && compareEpisodeNumbers(firstUnwatched, lastWatched) < 0) {
    const after = afterLastWatched(show, lastWatched, today);
    const upNext = show.upNextRule === 'first-unwatched' ? firstUnwatched : after.first;
    return { upNext, unwatchedEpisodes, skippedEpisodes: after.skipped, firstSkipped: firstUnwatched };
  }
  return { upNext: firstUnwatched, unwatchedEpisodes, skippedEpisodes: 0, firstSkipped: null };
}

export interface UpNextEntry {
  item: EpisodeFeedItem;
  /** Milliseconds of the show's last watch, or -Infinity when never watched, so it sorts last. */
  activity: number;
}

function upNextEntry(show: SnapshotShow, episode: SnapshotEpisode): UpNextEntry {
  const time = show.lastWatchedAt?.getTime() ?? Number.NaN;
  // upNext episodes have aired, so their date is known.
  const item = episodeItem(show, episode, episode.airDate as LocalDate);
  return { item, activity: Number.isFinite(time) ? time : Number.NEGATIVE_INFINITY };
}

function sortUpNext(entries: UpNextEntry[]): EpisodeFeedItem[] {
  entries.sort(
    (a, b) =>
      b.activity - a.activity ||
      compareText(a.item.airDate, b.item.airDate) ||
      titleCollator.compare(a.item.title, b.item.title) ||
      a.item.showId - b.item.showId,
  );
  return entries.map((entry) => entry.item);
}

function compareDated(a: EpisodeFeedItem, b: EpisodeFeedItem): number {
  return (
    compareText(a.airDate, b.airDate) ||
    titleCollator.compare(a.title, b.title) ||
    a.season - b.season ||
    a.number - b.number ||
    a.showId - b.showId ||
    a.id - b.id
  );
}

function compareReleasing(a: FeedItem, b: FeedItem): number {
  const byDateTitleKind =
    compareText(a.airDate, b.airDate) || titleCollator.compare(a.title, b.title) || compareText(a.kind, b.kind);
  if (byDateTitleKind !== 0) return byDateTitleKind;
  if (a.kind === 'episode' && b.kind === 'episode') {
    return a.season - b.season || a.number - b.number || a.id - b.id;
  }
  return a.id - b.id;
}

/** Appends the followed, unwatched movies and games releasing today or tomorrow. */
function collectReleasingTitles(titles: SnapshotTitle[], window: FeedWindow, releasing: FeedItem[]): void {
  for (const title of titles) {
    const date = title.releaseDate;
    if (!title.followed || title.watched || date === null) continue;
    if (date >= window.today && date <= window.tomorrow) releasing.push(titleItem(title, date));
  }
}

/** The up-next list: one item per active show with an episode to watch next, ordered. */
export function findUpNext(snapshot: LibrarySnapshot, today: LocalDate): EpisodeFeedItem[] {
  const window = feedWindow(today);
  const entries: UpNextEntry[] = [];
  for (const show of snapshot.shows) {
    if (!isActiveShow(show)) continue;
    const { upNext } = scanShow(show, window);
    if (upNext !== null) entries.push(upNextEntry(show, upNext));
  }
  return sortUpNext(entries);
}

/** Aired, unwatched, non-special episodes of active shows. */
export function countUnwatchedEpisodes(snapshot: LibrarySnapshot, today: LocalDate): number {
  const window = feedWindow(today);
  let count = 0;
  for (const show of snapshot.shows) {
    if (isActiveShow(show)) count += scanShow(show, window).unwatchedEpisodes;
  }
  return count;
}

/** Episodes of active shows airing today through today + 6, watched or not, ordered. */
export function airingWeek(snapshot: LibrarySnapshot, today: LocalDate): EpisodeFeedItem[] {
  const window = feedWindow(today);
  const week: EpisodeFeedItem[] = [];
  for (const show of snapshot.shows) {
    if (isActiveShow(show)) scanShow(show, window, { week });
  }
  return week.sort(compareDated);
}

/** Unwatched episodes of active shows and followed unwatched movies and games dated today or tomorrow. */
export function releasingItems(snapshot: LibrarySnapshot, today: LocalDate): FeedItem[] {
  const window = feedWindow(today);
  const releasing: FeedItem[] = [];
  for (const show of snapshot.shows) {
    if (isActiveShow(show)) scanShow(show, window, { releasing });
  }
  collectReleasingTitles(snapshot.titles, window, releasing);
  return releasing.sort(compareReleasing);
}

/** What one show adds to the feeds on one day: kept between computations by a `ShowScans` memo. */
export interface ShowScan {
  today: LocalDate;
  upNext: UpNextEntry | null;
  unwatchedEpisodes: number;
  week: EpisodeFeedItem[];
  releasing: FeedItem[];
}

/**
 * Scans kept per show object. Whoever changes a show in place (src/feeds/snapshot-cache.ts, when
 * it applies a watched toggle) deletes its scan; a scan of another day is made again.
 */
export type ShowScans = WeakMap<SnapshotShow, ShowScan>;

function scanForFeeds(show: SnapshotShow, window: FeedWindow, scans: ShowScans | undefined): ShowScan {
  const kept = scans?.get(show);
  if (kept !== undefined && kept.today === window.today) return kept;
  const week: EpisodeFeedItem[] = [];
  const releasing: FeedItem[] = [];
  const progress = scanShow(show, window, { week, releasing });
  const scan = { today: window.today, upNext: progress.upNext === null ? null : upNextEntry(show, progress.upNext), unwatchedEpisodes: progress.unwatchedEpisodes, week, releasing };
  scans?.set(show, scan);
  return scan;
}

/**
 * Every feed of the summary at once, one pass per show (or its scan kept in `scans`, when given:
 * after a watched toggle only the toggled show is scanned again). The input is never mutated. An
 * episode in several lists (week, today, releasing) is one shared object: treat the result as
 * read-only.
 */
export function computeFeeds(snapshot: LibrarySnapshot, today: LocalDate, scans?: ShowScans): Feeds {
  const window = feedWindow(today);
  const entries: UpNextEntry[] = [];
  const week: EpisodeFeedItem[] = [];
  const releasing: FeedItem[] = [];
  let unwatchedEpisodes = 0;
  for (const show of snapshot.shows) {
    if (!isActiveShow(show)) continue;
    const scan = scanForFeeds(show, window, scans);
    unwatchedEpisodes += scan.unwatchedEpisodes;
    if (scan.upNext !== null) entries.push(scan.upNext);
    for (const item of scan.week) week.push(item);
    for (const item of scan.releasing) releasing.push(item);
  }
  collectReleasingTitles(snapshot.titles, window, releasing);
  const upNext = sortUpNext(entries);
  week.sort(compareDated);
  releasing.sort(compareReleasing);
  // The week is sorted by date first and today is its earliest day, so today's list is its head.
  let todayLength = 0;
  while (todayLength < week.length && week[todayLength]?.airDate === today) todayLength += 1;
  const todayItems = week.slice(0, todayLength);
  return {
    counts: {
      upNext: upNext.length,
      airingToday: todayItems.length,
      airingWeek: week.length,
      unwatchedEpisodes,
    },
    next: upNext[0] ?? null,
    upNext,
    today: todayItems,
    week,
    releasing,
  };
}
