import type { z } from 'zod';
import type { episodeFeedItemSchema, feedItemSchema, summarySchema } from './feeds-rest-schemas.ts';

/** Feed items as the summary operation returns them (GraphQL names). */
export interface GraphQLFeedItem {
  kind: string;
  id: number;
  title: string;
  airDate: string;
  poster: string | null;
  show?: string;
  showId?: number;
  episode?: string;
  season?: number;
  number?: number;
  episodeTitle?: string | null;
}

/** One feed item in the machine API's field names (decisions.md, "Feed semantics"). */
export function presentFeedItem(item: GraphQLFeedItem): z.input<typeof feedItemSchema> {
  const kind = item.kind.toLowerCase();
  if (kind !== 'episode') return { kind: kind as 'movie' | 'game', id: item.id, title: item.title, air_date: item.airDate, poster: item.poster };
  // The operation selects these on every EpisodeFeedItem (non-null in the schema).
  return {
    kind: 'episode',
    id: item.id,
    title: item.title,
    show: item.show!,
    show_id: item.showId!,
    episode: item.episode!,
    season: item.season!,
    number: item.number!,
    episode_title: item.episodeTitle ?? null,
    air_date: item.airDate,
    poster: item.poster,
  };
}

/** The summary as the machine operations select it (each selects a part). */
export interface GraphQLSummary {
  generatedAt: string;
  counts: Record<string, number>;
  next: GraphQLFeedItem | null;
  upNext: GraphQLFeedItem[];
  today: GraphQLFeedItem[];
  week: GraphQLFeedItem[];
  releasing: GraphQLFeedItem[];
}

/** The summary operation's result as the machine API's summary object. */
export function presentSummary(summary: GraphQLSummary): z.input<typeof summarySchema> {
  return {
    generatedAt: summary.generatedAt,
    counts: summary.counts as z.input<typeof summarySchema>['counts'],
    next: summary.next === null ? null : presentEpisode(summary.next),
    upNext: summary.upNext.map(presentEpisode),
    today: summary.today.map(presentEpisode),
    week: summary.week.map(presentEpisode),
    releasing: summary.releasing.map(presentFeedItem),
  };
}

/** An item of a list that holds episodes only (up next, today, week). */
export function presentEpisode(item: GraphQLFeedItem): z.input<typeof episodeFeedItemSchema> {
  return presentFeedItem(item) as z.input<typeof episodeFeedItemSchema>;
}
