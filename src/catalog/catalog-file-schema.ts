import { z } from 'zod';
import { catalogDateRange, catalogRuntimeMinutes, maxIntColumn } from '../limits.ts';
import { isValidLocalDate } from '../time/dates.ts';
import { exceedsLength, isCatalogDate, quoted } from '../value-bounds.ts';
import type { EpisodeIds, ItemIdSource } from './provider.ts';

/** An IMDb id as files and catalogs write it: `tt` and 1 to 10 digits. */
export const imdbIdPattern = /^tt\d{1,10}$/;

/** True for an IMDb id (imdbIdPattern). */
export const isImdbId = (value: unknown): value is string => typeof value === 'string' && imdbIdPattern.test(value);

/**
 * Zod pieces shared by the files Airdate reads whose items are keyed by catalog ids: the offline
 * catalog (offline-catalog.ts) and the Airdate export (src/imports/sources/parse-airdate.ts). One wording
 * of their messages, one rule for ids.
 */

/** Error message for a schema: says "missing" when the key is absent, else what was expected. */
export function expected(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? `missing, expected ${what}` : `expected ${what}`);
}

/** A calendar date `YYYY-MM-DD` inside catalogDateRange (callers add how null and absence are read). */
export const localDateSchema = z
  .string({ error: expected('YYYY-MM-DD or null') })
  .refine(isValidLocalDate, { error: (issue) => `expected YYYY-MM-DD or null (${quoted(String(issue.input))} is not a calendar date)`, abort: true })
  .refine(isCatalogDate, { error: (issue) => `expected a date from ${catalogDateRange.earliest} to ${catalogDateRange.latest} (${String(issue.input)} is outside)` });

/** Text of at most `max` characters (src/limits.ts counts code points; zod's max counts UTF-16 units). */
export function withinLength<T extends z.ZodType<string | null | undefined>>(schema: T, max: number) {
  return schema.refine((text) => text == null || !exceedsLength(text, max), { error: `expected at most ${max} characters` });
}

/** A season or episode number up to the largest the database holds. */
export const countSchema = (min: 0 | 1) =>
  z
    .int({ error: expected(`an integer ≥ ${min}`) })
    .min(min, { error: `expected an integer ≥ ${min}` })
    .max(maxIntColumn, { error: `expected an integer up to ${maxIntColumn}` });

/** A running time in whole minutes (`runtime` of episodes and movies), or null for unknown. */
export const runtimeSchema = z
  .int({ error: expected('a whole number of minutes or null') })
  .min(catalogRuntimeMinutes.min, { error: `expected minutes from ${catalogRuntimeMinutes.min} to ${catalogRuntimeMinutes.max}` })
  .max(catalogRuntimeMinutes.max, { error: `expected minutes from ${catalogRuntimeMinutes.min} to ${catalogRuntimeMinutes.max}` })
  .nullable();

/** One external id: a positive 32-bit integer. */
export const externalIdSchema = z
  .int({ error: expected('a positive integer') })
  .min(1, { error: expected('a positive integer') })
  .max(maxIntColumn, { error: `expected a positive integer up to ${maxIntColumn}` });

/** One IMDb id: `tt` and 1 to 10 digits. */
export const imdbIdSchema = z.string({ error: expected('an IMDb id (tt followed by 1 to 10 digits)') }).regex(imdbIdPattern, { error: 'expected an IMDb id (tt followed by 1 to 10 digits)' });

/** An episode's own ids (`{ "tvdb": 349232, "imdb": "tt0959621", "tmdb": 62085 }`), each optional. */
export const episodeIdsSchema = () => idsSchema({ tvdb: externalIdSchema.optional(), tmdb: externalIdSchema.optional(), imdb: imdbIdSchema.optional() });

/** Refuses two episodes of the file sharing an episode id (they are unique in the catalog). */
export function uniqueEpisodeIds(shows: { episodes: { ids?: EpisodeIds }[] }[], context: z.RefinementCtx, key: string): void {
  const owners = new Map<string, string>();
  shows.forEach((show, showIndex) => {
    show.episodes.forEach((episode, index) => {
      for (const [source, id] of Object.entries(episode.ids ?? {})) {
        if (id === undefined) continue;
        const here = `${key}[${showIndex}].episodes[${index}]`;
        const owner = owners.get(`${source}:${id}`);
        if (owner === undefined) owners.set(`${source}:${id}`, here);
        else context.addIssue({ code: 'custom', path: [key, showIndex, 'episodes', index, 'ids', source], message: `episode ${source} id ${id} is already used by ${owner}` });
      }
    });
  });
}

/**
 * `ids` of one kind: only its sources (an unknown key is refused: a misspelt id would silently
 * lose the item), possibly none of them; callers that need one add a refinement.
 */
export function idsSchema<Shape extends Partial<Record<ItemIdSource, z.ZodOptional<typeof externalIdSchema> | z.ZodOptional<typeof imdbIdSchema>>>>(shape: Shape) {
  const list = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown id ${issue.keys.map((key) => `"${key}"`).join(', ')} (allowed: ${list})`
        : expected(`an object with ${list}`)(issue),
  });
}

/** Refuses two items of one kind sharing an external id: which one wins would be a guess. */
export function uniqueIds(items: { ids: Partial<Record<ItemIdSource, number | string | undefined>> }[], context: z.RefinementCtx, key: string): void {
  const owners = new Map<string, number>();
  items.forEach((item, index) => {
    for (const [source, id] of Object.entries(item.ids)) {
      if (id === undefined) continue;
      const owner = owners.get(`${source}:${id}`);
      if (owner === undefined) owners.set(`${source}:${id}`, index);
      else {
        const message = `${source} id ${id} is already used by ${key}[${owner}]`;
        context.addIssue({ code: 'custom', path: [key, index, 'ids', source], message });
      }
    }
  });
}

/** `shows[2].episodes[0].air_date` from zod's path. */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

/** The first problem of a failed parse, prefixed with its JSON path when it has one. */
export function firstProblem(error: z.ZodError, fallback: string): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
  return `${where}${issue?.message ?? fallback}`;
}
