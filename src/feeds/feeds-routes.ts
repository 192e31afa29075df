import type { z } from 'zod';
import { createFeedBodies } from '../http/feed-bodies.ts';
import { queryParameter } from '../http/rest-input.ts';
import type { OpenApiOperation, RestHandler, RestRoute } from '../http/rest-route.ts';
import type { AuthenticatedAccount } from '../graphql/context.ts';
import { prepareOperation, runOperation, type PreparedOperation } from '../graphql/run-operation.ts';
import { listLimits } from '../limits.ts';
import { error, etag, ifNoneMatch, jsonContent, notModified, queryParameterSpec, ref } from '../openapi/operation-parts.ts';
import { feedCacheKey } from './feeds-service.ts';
import { airingSchema, homeAssistantSummarySchema, releasesSchema, repeatedLimit, summaryLimitSchema, summarySchema, widgetSchema } from './feeds-rest-schemas.ts';
import { presentHomeAssistantSummary } from './home-assistant-summary.ts';
import { presentEpisode, presentFeedItem, presentSummary, type GraphQLSummary } from './present-feeds.ts';

/**
 * The feed paths of the machine API: the summary and its narrower views. Each runs a named
 * operation on the GraphQL schema and reshapes the result into the machine API's JSON; none
 * implements a rule of its own. Answers are kept per account under the feed cache key, with
 * their ETags (http/feed-bodies.ts).
 */

/** Accounts whose serialized summary is kept in memory (a few hundred KB each at most). */
const summaryCacheCapacity = 500;

/**
 * Accounts whose narrow feed bodies (releases, airing, widget: each up to a summary's size) are
 * kept, per feed: fewer than the summary's, since few accounts poll them and each adds to RSS.
 */
const narrowFeedCacheCapacity = 100;

const feedItemFields = `
  fragment FeedItemFields on FeedItem {
    kind id title airDate poster
    ... on EpisodeFeedItem { show showId episode season number episodeTitle }
  }`;

/** Every feed list whole, up to the cap that bounds a response (docs/configuration.md "Limits"). */
const all = `(first: ${listLimits.feedItems.max})`;

/** `$first`: `?limit=`, else every item; the account's profile decides the shape (docs/api.md "Summary"). */
const summaryOperation = `
  query MachineSummary($first: Int!) {
    summary {
      generatedAt
      counts { upNext airingToday airingWeek unwatchedEpisodes }
      next { ...FeedItemFields }
      upNext(first: $first) { ...FeedItemFields }
      today(first: $first) { ...FeedItemFields }
      week(first: $first) { ...FeedItemFields }
      releasing${all} { ...FeedItemFields }
    }
  }
  ${feedItemFields}`;

/** The narrower feeds (kept for older widgets) are selections of the same summary. */
const releasesOperation = `query MachineReleases { summary { releasing${all} { ...FeedItemFields } } } ${feedItemFields}`;
const airingOperation = `
  query MachineAiring {
    summary { counts { airingToday airingWeek } next { ...FeedItemFields } today${all} { ...FeedItemFields } week${all} { ...FeedItemFields } }
  }
  ${feedItemFields}`;
const widgetOperation = `query MachineWidget { summary { generatedAt upNext${all} { ...FeedItemFields } week${all} { ...FeedItemFields } } } ${feedItemFields}`;

const feed = (summary: string, schema: z.ZodType, description?: string): OpenApiOperation => ({
  summary,
  tag: 'Feeds',
  ...(description ? { description } : {}),
  parameters: [ifNoneMatch],
  responses: { 200: { description: summary, content: jsonContent(schema), headers: etag }, 304: notModified },
});

/**
 * A narrow feed: runs its operation and answers its summary, reshaped by `present`, from its own
 * cache of bodies per account.
 */
function narrowFeed(name: string, source: string, operation: OpenApiOperation, present: (summary: GraphQLSummary, generatedAt: Date) => unknown): RestRoute {
  return {
    method: 'GET',
    paths: [`/api/machine/${name}`],
    template: `/api/machine/${name}`,
    auth: 'header-or-query',
    operation,
    handler({ schema }) {
      const document: PreparedOperation = prepareOperation(schema, source);
      const bodies = createFeedBodies(name, narrowFeedCacheCapacity);
      const handler: RestHandler = async (request, context) =>
        bodies.answer(request, context.account.id, feedCacheKey(context.account), async (generatedAt) => {
          const data = await runOperation(document, context);
          return Buffer.from(JSON.stringify(present(data.summary as GraphQLSummary, generatedAt)));
        });
      handler.revalidate = (_search, account, ifNoneMatch) => bodies.notModified(account.id, feedCacheKey(account), ifNoneMatch);
      return handler;
    },
  };
}

const summaryRoute: RestRoute = {
  method: 'GET',
  paths: ['/api/machine/summary'],
  template: '/api/machine/summary',
  auth: 'header-or-query',
  operation: {
    summary: 'The consolidated feed',
    tag: 'Feeds',
    description: "Up next, airing today and this week, releasing today or tomorrow, in the account's time zone. The account's summary profile chooses the shape: `full` (Summary) or `home-assistant` (HomeAssistantSummary).",
    parameters: [queryParameterSpec('limit', summaryLimitSchema), ifNoneMatch],
    responses: {
      200: { description: 'The summary.', content: { 'application/json': { schema: { anyOf: [ref(summarySchema), ref(homeAssistantSummarySchema)] } } }, headers: etag },
      304: notModified,
      400: error(`\`limit\` is not a whole number from 0 to ${listLimits.feedItems.max}, or given twice.`),
    },
  },
  handler({ schema }): RestHandler {
    const summary = prepareOperation(schema, summaryOperation);
    /** Serialized summaries under the feed cache key and the limit, with their ETags (feed-bodies.ts). */
    const summaryBodies = createFeedBodies('summary', summaryCacheCapacity);
    /** The kept body's key: every other parameter (the token, a client's own additions) is ignored, as before. */
    const keyOf = (search: URLSearchParams, account: AuthenticatedAccount) => {
      const limit = queryParameter(search, 'limit', summaryLimitSchema, repeatedLimit);
      return { limit, key: `${feedCacheKey(account)}:${limit ?? 'all'}` };
    };
    const handler: RestHandler = async (request, context) => {
      const { limit, key } = keyOf(new URL(request.url).searchParams, context.account);
      return summaryBodies.answer(request, context.account.id, key, async (generatedAt) => {
        const data = await runOperation(summary, context, { first: limit ?? listLimits.feedItems.max });
        // The profile came with the token; changing it bumps the feed version, so the key holds it.
        const present = context.account.summaryProfile === 'home-assistant' ? presentHomeAssistantSummary : presentSummary;
        // The time the body is made, not the resolver's: the cached bytes and their ETag stay one.
        const { generatedAt: _resolved, ...presented } = present(data.summary as GraphQLSummary);
        return Buffer.from(JSON.stringify({ generatedAt: generatedAt.toISOString(), ...presented }));
      });
    };
    handler.revalidate = (search, account, ifNoneMatch) => summaryBodies.notModified(account.id, keyOf(search, account).key, ifNoneMatch);
    return handler;
  },
};

/** The summary and the narrower feeds kept for older widgets. */
export const feedRoutes: readonly RestRoute[] = [
  summaryRoute,
  narrowFeed('releases', releasesOperation, feed('Followed items releasing today or tomorrow', releasesSchema), (summary): z.input<typeof releasesSchema> => ({
    items: summary.releasing.map(presentFeedItem),
  })),
  narrowFeed('airing', airingOperation, feed('Airing today and this week', airingSchema), (summary): z.input<typeof airingSchema> => ({
    counts: { today: summary.counts.airingToday!, week: summary.counts.airingWeek! },
    next: summary.next === null ? null : presentEpisode(summary.next),
    today: summary.today.map(presentEpisode),
    week: summary.week.map(presentEpisode),
  })),
  narrowFeed('widget', widgetOperation, feed('The up-next watch list and this week', widgetSchema), (summary, generatedAt): z.input<typeof widgetSchema> => ({
    generatedAt: generatedAt.toISOString(),
    watchlist: summary.upNext.map(presentEpisode),
    week: summary.week.map(presentEpisode),
  })),
];
