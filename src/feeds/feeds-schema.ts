import type { EpisodeFeedItem, FeedItem, SummaryCounts } from './types.ts';
import { getFeeds } from './feeds-service.ts';
import { fieldCosts, listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { listPage, pagedComplexity, pageOf } from '../graphql/pages.ts';

/** episode, movie or game: the kinds of feed and calendar items. */
export const FeedItemKind = builder.enumType('FeedItemKind', {
  values: {
    EPISODE: { value: 'episode' },
    MOVIE: { value: 'movie' },
    GAME: { value: 'game' },
  } as const,
});

const FeedItemRef = builder.interfaceRef<FeedItem>('FeedItem').implement({
  description: 'An episode, movie or game in a feed.',
  resolveType: (item) => (item.kind === 'episode' ? 'EpisodeFeedItem' : 'TitleFeedItem'),
  fields: (t) => ({
    // Exposed under their own names, so the compiled REST operations read the properties directly.
    kind: t.expose('kind', { type: FeedItemKind }),
    id: t.exposeInt('id', { description: 'Database id, the one the write endpoints take.' }),
    title: t.exposeString('title', { description: "The show's title for an episode, else the item's." }),
    airDate: t.expose('airDate', { type: 'LocalDate' }),
    poster: t.exposeString('poster', { nullable: true }),
  }),
});

const EpisodeFeedItemRef = builder.objectRef<EpisodeFeedItem>('EpisodeFeedItem').implement({
  description: 'An episode in a feed.',
  interfaces: [FeedItemRef],
  fields: (t) => ({
    show: t.exposeString('show'),
    showId: t.exposeInt('showId'),
    episode: t.exposeString('episode', { description: 'S01E02; two digits at least.' }),
    season: t.exposeInt('season'),
    number: t.exposeInt('number'),
    episodeTitle: t.exposeString('episodeTitle', { nullable: true }),
  }),
});

builder.objectRef<FeedItem>('TitleFeedItem').implement({
  description: 'A movie or a game in a feed.',
  interfaces: [FeedItemRef],
  fields: () => ({}),
});

const Counts = builder.objectRef<SummaryCounts>('SummaryCounts').implement({
  fields: (t) => ({
    upNext: t.exposeInt('upNext'),
    airingToday: t.exposeInt('airingToday'),
    airingWeek: t.exposeInt('airingWeek'),
    unwatchedEpisodes: t.exposeInt('unwatchedEpisodes'),
  }),
});

/**
 * The feed lists take `first`: the first `first` items (`counts` always carry the whole totals).
 * The REST feeds ask for the maximum.
 */
const feedList = {
  description: `The first ${listLimits.feedItems.default} items unless first asks for up to ${listLimits.feedItems.max}; counts hold the whole totals.`,
  complexity: pagedComplexity(listLimits.feedItems),
};
const feedFirst = { required: false, description: `How many items: ${listLimits.feedItems.default} when omitted, at most ${listLimits.feedItems.max}.` } as const;
const feedPage = <Item>(items: readonly Item[], args: { first?: number | null }): Item[] => pageOf(items, listPage(args, listLimits.feedItems));

type SummaryShape = Awaited<ReturnType<typeof getFeeds>> & { generatedAt: Date };

const Summary = builder.objectRef<SummaryShape>('Summary').implement({
  description: 'The consolidated feed: the same data as GET /api/machine/summary.',
  fields: (t) => ({
    generatedAt: t.expose('generatedAt', { type: 'DateTime' }),
    date: t.field({ type: 'LocalDate', description: "The account's local date the feed is for.", resolve: (s) => s.date }),
    counts: t.field({ type: Counts, resolve: (s) => s.counts }),
    // Lists that only ever hold episodes say so: clients need no type condition, and no type
    // has to be resolved per item.
    next: t.field({ type: EpisodeFeedItemRef, nullable: true, resolve: (s) => s.next }),
    upNext: t.field({ type: [EpisodeFeedItemRef], ...feedList, args: { first: t.arg.int(feedFirst) }, resolve: (s, args) => feedPage(s.upNext, args) }),
    today: t.field({ type: [EpisodeFeedItemRef], ...feedList, args: { first: t.arg.int(feedFirst) }, resolve: (s, args) => feedPage(s.today, args) }),
    week: t.field({ type: [EpisodeFeedItemRef], ...feedList, args: { first: t.arg.int(feedFirst) }, resolve: (s, args) => feedPage(s.week, args) }),
    releasing: t.field({
      type: [FeedItemRef],
      ...feedList,
      description: `Episodes, movies and games. ${feedList.description}`,
      args: { first: t.arg.int(feedFirst) },
      resolve: (s, args) => feedPage(s.releasing, args),
    }),
  }),
});

builder.queryField('summary', (t) =>
  t.field({
    type: Summary,
    description: "The viewer's consolidated feed, in the viewer's time zone.",
    complexity: fieldCosts.summary,
    resolve: async (_root, _args, context) => ({ ...(await getFeeds(context.account)), generatedAt: new Date() }),
  }),
);
