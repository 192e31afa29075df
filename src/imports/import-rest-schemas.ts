import { z } from 'zod';
import { inputLengths } from '../limits.ts';
import { countSchema as count } from '../openapi/common-schemas.ts';
import { canonicalTimeZone } from '../time/dates.ts';
import { importTimeZoneProblem } from './import-upload.ts';
import { availableImportSources } from './sources/import-sources.ts';

/** What the import route takes and answers (import-route.ts), as zod schemas: see openapi/common-schemas.ts. */

/** `?dryRun=` of the imports. */
export const dryRunSchema = z
  .enum(['true', 'false'], { error: 'dryRun must be true or false' })
  .transform((value) => value === 'true')
  .meta({ description: '`true` answers the report the import would give and writes nothing. Given once; absent means false.' });

/**
 * `?timeZone=` of the imports: the IANA zone of times a file writes without one (TV Time's plain
 * date-times), checked before the upload is read; the import service checks it again for GraphQL.
 */
export const importTimeZoneSchema = z
  .string()
  .refine((zone) => zone.length <= inputLengths.timezone && canonicalTimeZone(zone.trim()) !== null, { error: (issue) => importTimeZoneProblem(String(issue.input)) })
  .meta({
    description: "IANA time zone in which times a file writes without a zone (TV Time's plain date-times) are read. Given once; absent means the account's zone. The report's `notes` say which zone was used.",
    examples: ['America/Sao_Paulo'],
  });

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
