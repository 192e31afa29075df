import { z } from 'zod';
import { HttpError } from '../http/responses.ts';
import { inputLengths, listLimits, maxIntColumn } from '../limits.ts';
import { calendarDefaults, calendarKinds, calendarMaxDays } from '../calendar/calendar-service.ts';
import { importTimeZoneProblem } from '../imports/import-upload.ts';
import { canonicalTimeZone } from '../time/dates.ts';

/**
 * What the REST paths take (bodies and query parameters), as zod schemas: the routes validate
 * with them and the OpenAPI document (openapi-document.ts) is generated from them, so the two
 * cannot drift. Each issue's message is the one the API has always answered; zod reports issues
 * in key order, so the first problem reported is the same as before (kind, then id, then flags).
 */

/** `issue.input === undefined` is a missing field (JSON has no undefined values). */
const requiredOr = (name: string, wrong: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : wrong);

const kindField = <K extends string>(allowed: readonly [K, ...K[]]) =>
  z.enum(allowed, { error: requiredOr('kind', `kind must be one of ${allowed.join(', ')}`) });

const idMessage = `id must be a positive integer up to ${maxIntColumn}`;
const idField = z
  .int({ error: requiredOr('id', idMessage) })
  .min(1, { error: idMessage })
  .max(maxIntColumn, { error: idMessage })
  .meta({ description: "The item's database id (GraphQL `databaseId`) for its kind." });

const flag = (name: string, description: string) => z.boolean({ error: requiredOr(name, `${name} must be true or false`) }).meta({ description });

const bodyError = { error: 'request body must be a JSON object' };

/** `POST /api/machine/watched`. */
export const watchedBodySchema = z
  .object(
    {
      kind: kindField(['episode', 'movie', 'game']),
      id: idField,
      watched: flag('watched', 'true marks the item watched, false unwatched.'),
    },
    bodyError,
  )
  .meta({ id: 'WatchedRequest', description: 'Marks an episode, movie or game watched or unwatched. Setting the same state again succeeds and changes nothing.' });

/** `POST /api/machine/follow`: at least one of followed and archived (the service checks that, and archived on shows only). */
export const followBodySchema = z
  .object(
    {
      kind: kindField(['show', 'movie', 'game']),
      id: idField,
      followed: flag('followed', 'true follows, false unfollows (the watch history is kept).').optional(),
      archived: flag('archived', 'Shows only: true archives, false unarchives. Sent alone, the follow state stays as it is.').optional(),
    },
    bodyError,
  )
  .meta({ id: 'FollowRequest', description: 'Follows, unfollows, archives or unarchives an item. At least one of `followed` and `archived` is required; `archived` on a movie or game is a 400.' });

/** `POST /api/machine/sync`: the body is optional and carries nothing, but one that is sent is a JSON object. */
export const syncBodySchema = z.object({}, bodyError).meta({ id: 'SyncRequest', description: 'Optional; any JSON object (its members are ignored).' });

/** Digits only: Number() would accept ' 7', '1e3', '0x10' and '7.0'. */
const wholeNumberText = /^\d{1,9}$/;

/** A query value of digits from 0 to `max`, every problem answered with `message`. */
const wholeNumberParameter = (max: number, message: string) =>
  z
    .string({ error: message })
    .regex(wholeNumberText, { error: message })
    .transform(Number)
    .pipe(z.int().max(max, { error: message }));

const limitMessage = `limit must be a whole number from 0 to ${listLimits.feedItems.max}`;

/** `?limit=` of the summary. */
export const summaryLimitSchema = wholeNumberParameter(listLimits.feedItems.max, limitMessage).meta({
  description: `Cuts \`upNext\`, \`today\` and \`week\` to their first N items (a whole number from 0 to ${listLimits.feedItems.max}, given once); \`counts\` keep the totals and \`releasing\` is never cut.`,
  examples: ['25'],
});

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

/** `?past=` and `?future=` of the calendar (built once: the route parses every request with them). */
const calendarDaysSchema = (name: 'past' | 'future') =>
  wholeNumberParameter(calendarMaxDays, `${name} must be a whole number of days from 0 to ${calendarMaxDays}`).meta({
    description: `Days ${name === 'past' ? 'before' : 'after'} the account's local today to include, 0–${calendarMaxDays} (default ${calendarDefaults[name]}), given once.`,
  });
export const calendarDaysSchemas = { past: calendarDaysSchema('past'), future: calendarDaysSchema('future') };

/** `?kinds=`: a comma list of item kinds, in canonical order without repeats. */
export const calendarKindsSchema = z
  .string()
  .transform((listed, context) => {
    const names = listed.split(',').map((name) => name.trim());
    const unknown = names.find((name) => !(calendarKinds as readonly string[]).includes(name));
    if (unknown !== undefined) {
      context.addIssue({ code: 'custom', message: `unknown kind "${unknown}"; kinds is a comma-separated list of ${calendarKinds.join(', ')}` });
      return z.NEVER;
    }
    // Canonical order and no repeats: `movie,episode` and `episode,movie,movie` share a cache entry.
    return calendarKinds.filter((kind) => names.includes(kind));
  })
  .meta({ description: `Comma-separated list of ${calendarKinds.join(', ')} (default: all), given once.`, examples: ['episode,movie'] });

/**
 * `value` checked by `schema`: its parsed value, or a 400 with the first problem's message (the
 * messages above are whole sentences; a JSON path would add nothing a client needs).
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, parsed.error.issues[0]?.message ?? 'invalid request');
  return parsed.data;
}

/**
 * The one value of query parameter `name` checked by `schema`, or undefined when it is absent.
 * A parameter given twice is a 400 `repeated` before its values are looked at.
 */
export function queryParameter<T extends z.ZodType>(search: URLSearchParams, name: string, schema: T, repeated: string): z.output<T> | undefined {
  const values = search.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new HttpError(400, repeated);
  return parseInput(schema, values[0]);
}

/** Today's message for a repeated `limit`. */
export const repeatedLimit = `limit may be given once; ${limitMessage}`;
