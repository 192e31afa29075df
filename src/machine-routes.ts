import type { GraphQLSchema } from 'graphql';
import { okResponse } from './http/responses.ts';
import { readJsonBody } from './http/read-json.ts';
import type { Logger } from './log.ts';
import type { GraphQLContext } from './graphql/context.ts';
import { followBodySchema, parseInput, queryParameter, repeatedLimit, summaryLimitSchema, syncBodySchema, watchedBodySchema } from './openapi/request-schemas.ts';
import { prepareOperation, runOperation, throwIfError, type PreparedOperation } from './graphql/run-operation.ts';
import { presentEpisode, presentFeedItem, presentSummary, type GraphQLSummary } from './feeds/present-feeds.ts';
import type { z } from 'zod';
import type { airingSchema, releasesSchema, widgetSchema } from './openapi/response-schemas.ts';
import { createFeedBodies } from './http/feed-bodies.ts';
import { feedCacheKey } from './feeds/feeds-service.ts';
import { listLimits } from './limits.ts';
import { presentHomeAssistantSummary } from './feeds/home-assistant-summary.ts';

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

/** Every feed list whole, up to the cap that bounds a response (README "Limits"). */
const all = `(first: ${listLimits.feedItems.max})`;

/** `$first`: `?limit=`, else every item; the account's profile decides the shape (README "Summary"). */
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

const writeResultFields = `__typename ... on Error { message code }`;
const watchedOperation = `mutation MachineWatched($input: SetWatchedInput!) { setWatched(input: $input) { ${writeResultFields} } }`;
const followOperation = `mutation MachineFollow($input: SetFollowInput!) { setFollow(input: $input) { ${writeResultFields} } }`;
const syncOperation = `mutation MachineSync { sync { ok } }`;

export interface MachineRouteProps {
  schema: GraphQLSchema;
  logger: Logger;
  maxJsonBytes: number;
}

/** A machine endpoint: gets the request and the authenticated GraphQL context. */
export type MachineHandler = (request: Request, context: GraphQLContext) => Promise<Response>;

/**
 * The machine endpoints. Each runs a named operation on the GraphQL schema and reshapes the
 * result into the machine API's JSON; none of them implements a rule of its own.
 */
export function createMachineHandlers(props: MachineRouteProps) {
  const { schema, logger, maxJsonBytes } = props;
  const summary = prepareOperation(schema, summaryOperation);
  const watched = prepareOperation(schema, watchedOperation);
  const follow = prepareOperation(schema, followOperation);
  const releases = prepareOperation(schema, releasesOperation);
  const airing = prepareOperation(schema, airingOperation);
  const widget = prepareOperation(schema, widgetOperation);
  const sync = prepareOperation(schema, syncOperation);

  /**
   * Runs a read operation and answers its summary, reshaped by `present`, from the feed cache:
   * each narrow feed keeps its latest body and ETag per account under the feed cache key.
   */
  const feedHandler = (name: string, document: PreparedOperation, present: (summary: GraphQLSummary, generatedAt: Date) => unknown): MachineHandler => {
    const bodies = createFeedBodies(name, narrowFeedCacheCapacity);
    return async (request, context) =>
      bodies.answer(request, context.account.id, feedCacheKey(context.account), async (generatedAt) => {
        const data = await runOperation(document, context, logger);
        return Buffer.from(JSON.stringify(present(data.summary as GraphQLSummary, generatedAt)));
      });
  };

  /** Answers a write mutation's result union: success → {"ok":true}, error → its status. */
  const writeResponse = (result: unknown): Response => {
    throwIfError(result, 'request failed');
    return okResponse();
  };

  /** Serialized summaries under the feed cache key and the limit, with their ETags (feed-bodies.ts). */
  const summaryBodies = createFeedBodies('summary', summaryCacheCapacity);

  const handlers = {
    summary: (async (request, context) => {
      // Every other parameter (the token, a client's own additions) is ignored, as before.
      const limit = queryParameter(new URL(request.url).searchParams, 'limit', summaryLimitSchema, repeatedLimit);
      const key = `${feedCacheKey(context.account)}:${limit ?? 'all'}`;
      return summaryBodies.answer(request, context.account.id, key, async (generatedAt) => {
        const data = await runOperation(summary, context, logger, { first: limit ?? listLimits.feedItems.max });
        // The profile came with the token; changing it bumps the feed version, so the key holds it.
        const present = context.account.summaryProfile === 'home-assistant' ? presentHomeAssistantSummary : presentSummary;
        // The time the body is made, not the resolver's: the cached bytes and their ETag stay one.
        const { generatedAt: _resolved, ...presented } = present(data.summary as GraphQLSummary);
        return Buffer.from(JSON.stringify({ generatedAt: generatedAt.toISOString(), ...presented }));
      });
    }) satisfies MachineHandler,

    releases: feedHandler('releases', releases, (summary): z.input<typeof releasesSchema> => ({ items: summary.releasing.map(presentFeedItem) })),

    airing: feedHandler('airing', airing, (summary): z.input<typeof airingSchema> => ({
      counts: { today: summary.counts.airingToday!, week: summary.counts.airingWeek! },
      next: summary.next === null ? null : presentEpisode(summary.next),
      today: summary.today.map(presentEpisode),
      week: summary.week.map(presentEpisode),
    })),

    widget: feedHandler('widget', widget, (summary, generatedAt): z.input<typeof widgetSchema> => ({
      generatedAt: generatedAt.toISOString(),
      watchlist: summary.upNext.map(presentEpisode),
      week: summary.week.map(presentEpisode),
    })),

    watched: (async (request, context) => {
      const body = parseInput(watchedBodySchema, await readJsonBody(request, maxJsonBytes));
      const input = { ...body, kind: body.kind.toUpperCase() };
      const data = await runOperation(watched, context, logger, { input });
      return writeResponse(data.setWatched);
    }) satisfies MachineHandler,

    follow: (async (request, context) => {
      const body = parseInput(followBodySchema, await readJsonBody(request, maxJsonBytes));
      const input = { ...body, kind: body.kind.toUpperCase() };
      const data = await runOperation(follow, context, logger, { input });
      return writeResponse(data.setFollow);
    }) satisfies MachineHandler,

    sync: (async (request, context) => {
      // The body is optional and carries nothing; when one is sent it must still be a JSON object.
      const body = await readJsonBody(request, maxJsonBytes, { allowEmpty: true });
      if (body !== undefined) parseInput(syncBodySchema, body);
      await runOperation(sync, context, logger);
      return okResponse();
    }) satisfies MachineHandler,
  };
  return handlers;
}
