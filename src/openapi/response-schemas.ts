import { z } from 'zod';
import { availableImportSources } from '../imports/sources/import-sources.ts';
import { exportDocumentSchema } from '../imports/sources/parse-airdate.ts';

/**
 * What the REST paths answer, as zod schemas. The presenters are typed with them (`z.input<…>`
 * as their return type), the OpenAPI document is generated from them, and the test suite checks
 * every REST response it sees against that document (test/support/openapi-check.ts). Objects are
 * strict: a field the document does not name is a violation, so the document stays complete.
 */

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).meta({ description: 'A calendar date, YYYY-MM-DD, in the account’s time zone.', examples: ['2026-11-21'] });
const itemId = z.int().min(1).meta({ description: 'The id the write endpoints take for this kind.' });
const poster = z.string().nullable().meta({ description: 'Poster image URL, or null.' });
const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC with milliseconds.', examples: ['2026-11-21T08:00:00.000Z'] });
const count = z.int().min(0);

export const errorSchema = z.strictObject({ error: z.string() }).meta({ id: 'Error', description: 'Every failure: exactly one member, the message.' });

export const okSchema = z.strictObject({ ok: z.literal(true) }).meta({ id: 'Ok', description: 'A write that succeeded.' });

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

export const importSourceSchema = z.enum(availableImportSources as [string, ...string[]]).meta({ id: 'ImportSource' });

export const importReportSchema = z
  .strictObject({
    ok: z.literal(true),
    dryRun: z.literal(true).optional().meta({ description: 'Present with `?dryRun=true`: nothing was written.' }),
    imported: z.strictObject({ shows: count, episodes: count, movies: count, games: count, history: count }),
    skipped: z.array(z.strictObject({ file: z.string(), item: z.string(), reason: z.string() })),
    notes: z
      .array(z.strictObject({ file: z.string(), note: z.string() }))
      .meta({ description: "How each file was read: the time zone of its times without one, what its only date stands for (IMDb's Date Rated, Letterboxd's \"marked seen\" dates)." }),
    unmatched: z.array(
      z.strictObject({
        file: z.string(),
        kind: z.enum(['show', 'episode', 'movie', 'game']),
        title: z.string(),
        ids: z.strictObject({
          tmdb: z.int().optional(),
          tvdb: z.int().optional(),
          igdb: z.int().optional(),
          imdb: z.string().optional(),
          giantbomb: z.int().optional(),
        }),
        year: z.int().optional(),
        sourceId: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'ImportReport' });

export const exportSchema = exportDocumentSchema.meta({
  id: 'Export',
  description: 'The whole library (docs/export-format.md): the same schema `POST /api/import/airdate` reads it back with.',
});

export const healthSchema = okSchema;

export const readinessSchema = z
  .strictObject({ ok: z.literal(true), database: z.literal('ok'), scheduler: z.literal('ok') })
  .meta({ id: 'Readiness' });
