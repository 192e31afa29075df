/**
 * Plain data the feed rules work on. The loader (src/feeds/load-snapshot.ts) fills it from the
 * database; the rules (src/feeds/rules.ts) never touch the database.
 */

import type { LocalDate } from '../time/dates.ts';

export interface SnapshotEpisode {
  id: number;
  season: number;
  number: number;
  title: string | null;
  /** null while the air date is unknown: never in a date feed, never "aired". */
  airDate: LocalDate | null;
  watched: boolean;
}

/**
 * Which episode up next offers for a show: the earliest aired unwatched one after the furthest
 * watched (`after-last-watched`, decisions.md's rule and the default), or the earliest aired
 * unwatched one of all (`first-unwatched`: a show with holes offers its first hole).
 */
export const upNextRules = ['after-last-watched', 'first-unwatched'] as const;
export type UpNextRule = (typeof upNextRules)[number];

export interface SnapshotShow {
  id: number;
  title: string;
  poster: string | null;
  followed: boolean;
  archived: boolean;
  /** Most recent time one of its episodes was marked watched by this account, or null. */
  lastWatchedAt: Date | null;
  /** The account's rule for this show (its own, or the account's); `after-last-watched` when absent. */
  upNextRule?: UpNextRule;
  episodes: SnapshotEpisode[];
}

/** A movie or a game in the account's library. */
export interface SnapshotTitle {
  kind: 'movie' | 'game';
  id: number;
  title: string;
  poster: string | null;
  followed: boolean;
  releaseDate: LocalDate | null;
  watched: boolean;
}

export interface LibrarySnapshot {
  shows: SnapshotShow[];
  titles: SnapshotTitle[];
}

/**
 * Fields every feed item carries (decisions.md, "Feed semantics"), named as the GraphQL schema
 * names them; the REST facade renames them to the machine API's `air_date`, `show_id`, `episode_title`.
 */
interface FeedItemBase {
  id: number;
  title: string;
  airDate: LocalDate;
  poster: string | null;
}

export interface EpisodeFeedItem extends FeedItemBase {
  kind: 'episode';
  show: string;
  showId: number;
  /** `S01E02`; numbers are padded to two digits at least (`S01E100` stays as is). */
  episode: string;
  season: number;
  number: number;
  episodeTitle: string | null;
}

export interface TitleFeedItem extends FeedItemBase {
  kind: 'movie' | 'game';
}

export type FeedItem = EpisodeFeedItem | TitleFeedItem;

export interface SummaryCounts {
  upNext: number;
  airingToday: number;
  airingWeek: number;
  unwatchedEpisodes: number;
}

/** The summary feed without `generatedAt`, which the caller stamps. */
export interface Feeds {
  counts: SummaryCounts;
  next: EpisodeFeedItem | null;
  upNext: EpisodeFeedItem[];
  today: EpisodeFeedItem[];
  week: EpisodeFeedItem[];
  releasing: FeedItem[];
}
