import { z } from 'zod';
import { episodeIdsSchema, expected, externalIdSchema, idsSchema, imdbIdSchema, localDateSchema, uniqueIds } from '../catalog/catalog-file-schema.ts';
import { exportFormat, exportVersion } from './export-format.ts';

/**
 * The export document (docs/export-format.md) as a zod schema: what `POST /api/import/airdate`
 * reads (imports/sources/parse-airdate.ts) and what the OpenAPI document says `GET /api/export`
 * answers. Items may carry extra fields (a later minor change stays readable); `ids` may not,
 * because a typo there would silently lose the item.
 */

/** One entry of an item's history, oldest first once read. */
interface WatchedAt {
  watched: boolean;
  at: Date;
}

const text = (what: string) => z.string({ error: expected(what) });
const nullableText = text('a string or null').nullish().transform((value) => value ?? null);
const date = localDateSchema
  .nullish()
  .transform((value) => value ?? null);
const flag = z.boolean({ error: expected('true or false') });

const historySchema = z
  .array(
    z.object(
      {
        watched: flag,
        at: z.iso.datetime({ offset: true, error: expected('an ISO 8601 timestamp such as 2026-01-31T20:00:00.000Z') }).transform((at) => new Date(at)),
      },
      { error: expected('a history entry {watched, at}') },
    ),
    { error: expected('an array of history entries') },
  )
  .default([])
  // Oldest first, whatever order the file has them in (sort is stable for equal times).
  .transform((entries): WatchedAt[] => entries.sort((a, b) => a.at.getTime() - b.at.getTime()));

const episodeSchema = z.object(
  {
    season: z.int({ error: expected('an integer ≥ 0') }).min(0, { error: 'expected an integer ≥ 0' }),
    number: z.int({ error: expected('an integer ≥ 0') }).min(0, { error: 'expected an integer ≥ 0' }),
    title: nullableText,
    airDate: date,
    // Exports before the episode ids have none; they are optional.
    ids: episodeIdsSchema().optional(),
    watched: flag.optional(),
    history: historySchema,
  },
  { error: expected('an episode object') },
);

const itemFields = { title: text('a non-empty string').min(1, { error: 'expected a non-empty string' }), poster: nullableText, overview: nullableText, followed: flag.optional() };

const showSchema = z
  .object({ ids: idsSchema({ tmdb: externalIdSchema.optional(), tvdb: externalIdSchema.optional(), imdb: imdbIdSchema.optional() }), ...itemFields, archived: flag.optional(), episodes: z.array(episodeSchema, { error: expected('an array of episodes') }).default([]) }, { error: expected('a show object') })
  .superRefine((show, context) => {
    const seen = new Map<string, number>();
    show.episodes.forEach((episode, index) => {
      const first = seen.get(`${episode.season}:${episode.number}`);
      if (first === undefined) seen.set(`${episode.season}:${episode.number}`, index);
      else context.addIssue({ code: 'custom', path: ['episodes', index], message: `duplicate of episodes[${first}] (season ${episode.season}, number ${episode.number})` });
    });
  });

const titleSchema = (kind: 'movie' | 'game') =>
  z.object(
    {
      ids:
        kind === 'movie'
          ? idsSchema({ tmdb: externalIdSchema.optional(), tvdb: externalIdSchema.optional(), imdb: imdbIdSchema.optional() })
          : idsSchema({ igdb: externalIdSchema.optional(), giantbomb: externalIdSchema.optional() }),
      ...itemFields, releaseDate: date, watched: flag.optional(), history: historySchema },
    { error: expected(`a ${kind} object`) },
  );

const list = <T extends z.ZodType>(item: T, what: string) => z.array(item, { error: expected(`an array of ${what}`) }).default([]);

/** An Airdate export file, as POST /api/import/airdate reads it. */
// `format` and `version` come first: zod reports issues in key order, so a file from another
// service is named as such before anything inside it.
export const exportSchema = z
  .object(
    {
      format: z.literal(exportFormat, { error: (issue) => `${issue.input === undefined ? 'missing' : `"${String(issue.input)}"`}: expected "${exportFormat}" (is this an Airdate export?)` }),
      version: z.literal(exportVersion, { error: (issue) => `expected ${exportVersion}, the version this server reads (the file says ${JSON.stringify(issue.input) ?? 'nothing'})` }),
      exportedAt: z.iso.datetime({ offset: true, error: expected('an ISO 8601 timestamp') }).optional(),
      shows: list(showSchema, 'shows'),
      movies: list(titleSchema('movie'), 'movies'),
      games: list(titleSchema('game'), 'games'),
    },
    { error: expected('a JSON object (an Airdate export)') },
  )
  .superRefine((file, context) => {
    uniqueIds(file.shows, context, 'shows');
    uniqueIds(file.movies, context, 'movies');
    uniqueIds(file.games, context, 'games');
  });

/**
 * The export as `GET /api/export` writes it (src/export/export-format.ts): what this parser reads,
 * with the head every download has. The OpenAPI document describes the export with it, so the
 * export and its import cannot drift apart unnoticed (the suite checks every download against it).
 */
export const exportDocumentSchema = exportSchema.safeExtend({
  exportedAt: z.iso.datetime({ offset: true }),
  account: z.strictObject({ name: z.string(), timezone: z.string(), webhookUrl: z.string().nullable() }),
});
