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
export function presentFeedItem(item: GraphQLFeedItem): Record<string, unknown> {
  const kind = item.kind.toLowerCase();
  if (kind !== 'episode') return { kind, id: item.id, title: item.title, air_date: item.airDate, poster: item.poster };
  return {
    kind,
    id: item.id,
    title: item.title,
    show: item.show,
    show_id: item.showId,
    episode: item.episode,
    season: item.season,
    number: item.number,
    episode_title: item.episodeTitle,
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
export function presentSummary(summary: GraphQLSummary): Record<string, unknown> {
  return {
    generatedAt: summary.generatedAt,
    counts: summary.counts,
    next: summary.next === null ? null : presentFeedItem(summary.next),
    upNext: summary.upNext.map(presentFeedItem),
    today: summary.today.map(presentFeedItem),
    week: summary.week.map(presentFeedItem),
    releasing: summary.releasing.map(presentFeedItem),
  };
}
