import { z } from 'zod';
import { wholeNumberParameter } from '../http/rest-input.ts';
import { listLimits } from '../limits.ts';
import { countSchema as count, dateSchema as date, itemIdSchema as itemId, posterSchema as poster, timestampSchema as timestamp } from '../openapi/common-schemas.ts';

/** What the feed routes take and answer (feeds-routes.ts), as zod schemas: see openapi/common-schemas.ts. */

const limitMessage = `limit must be a whole number from 0 to ${listLimits.feedItems.max}`;

/** `?limit=` of the summary. */
export const summaryLimitSchema = wholeNumberParameter(listLimits.feedItems.max, limitMessage).meta({
  description: `Cuts \`upNext\`, \`today\` and \`week\` to their first N items (a whole number from 0 to ${listLimits.feedItems.max}, given once); \`counts\` keep the totals and \`releasing\` is never cut.`,
  examples: ['25'],
});

/** Today's message for a repeated `limit`. */
export const repeatedLimit = `limit may be given once; ${limitMessage}`;

export const episodeFeedItemSchema = z
  .strictObject({
    kind: z.literal('episode'),
    id: itemId,
    title: z.string().meta({ description: "The show's title." }),
    show: z.string(),
    show_id: itemId,
    episode: z.string().regex(/^S\d{2,}E\d{2,}$/).meta({ description: 'S01E02; two digits at least.', examples: ['S01E02'] }),
    season: count,
    number: count,
    episode_title: z.string().nullable(),
    air_date: date,
    poster,
  })
  .meta({ id: 'EpisodeFeedItem' });

export const titleFeedItemSchema = z
  .strictObject({ kind: z.enum(['movie', 'game']), id: itemId, title: z.string(), air_date: date, poster })
  .meta({ id: 'TitleFeedItem', description: 'A movie or a game.' });

export const feedItemSchema = z.union([episodeFeedItemSchema, titleFeedItemSchema]).meta({ id: 'FeedItem' });

const summaryCounts = z.strictObject({ upNext: count, airingToday: count, airingWeek: count, unwatchedEpisodes: count });

export const summarySchema = z
  .strictObject({
    generatedAt: timestamp,
    counts: summaryCounts,
    next: episodeFeedItemSchema.nullable(),
    upNext: z.array(episodeFeedItemSchema),
    today: z.array(episodeFeedItemSchema),
    week: z.array(episodeFeedItemSchema),
    releasing: z.array(feedItemSchema),
  })
  .meta({ id: 'Summary', description: 'The consolidated feed (the `full` summary profile).' });

export const leanEpisodeSchema = z
  .strictObject({ id: itemId, show_id: itemId, show: z.string(), episode: z.string(), episode_title: z.string().nullable(), air_date: date })
  .meta({ id: 'LeanEpisode', description: 'An episode as the home-assistant profile answers it; texts cut to a JSON cost of 255.' });

export const leanReleaseSchema = z
  .strictObject({ kind: z.enum(['episode', 'movie', 'game']), id: itemId, title: z.string(), air_date: date })
  .meta({ id: 'LeanRelease', description: 'A releasing item as the home-assistant profile answers it; an episode’s title is its show’s and its code.' });

export const homeAssistantSummarySchema = z
  .strictObject({
    generatedAt: timestamp,
    counts: summaryCounts,
    next: leanEpisodeSchema.nullable(),
    upNext: z.array(leanEpisodeSchema),
    today: z.array(leanEpisodeSchema),
    week: z.array(leanEpisodeSchema),
    releasing: z.array(leanReleaseSchema),
  })
  .meta({ id: 'HomeAssistantSummary', description: 'The summary under the `home-assistant` profile: lists of at most 25, lean items.' });

export const releasesSchema = z.strictObject({ items: z.array(feedItemSchema) }).meta({ id: 'Releases', description: "The summary's `releasing` (older widgets)." });

export const airingSchema = z
  .strictObject({
    counts: z.strictObject({ today: count, week: count }),
    next: episodeFeedItemSchema.nullable(),
    today: z.array(episodeFeedItemSchema),
    week: z.array(episodeFeedItemSchema),
  })
  .meta({ id: 'Airing' });

export const widgetSchema = z
  .strictObject({ generatedAt: timestamp, watchlist: z.array(episodeFeedItemSchema), week: z.array(episodeFeedItemSchema) })
  .meta({ id: 'Widget', description: '`watchlist` holds the up-next items.' });
