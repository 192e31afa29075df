import { z } from 'zod';
import { episodeIdsSchema, expected, externalIdSchema, firstProblem, idsSchema, imdbIdSchema, localDateSchema, uniqueIds } from '../../catalog/catalog-file-schema.ts';
import { exportFormat, exportVersion } from '../../export/export-format.ts';
import { ImportFileError, type ImportDocument, type ImportSkip, type ImportWatchEvent } from './import-document.ts';
import { parseJsonFile } from './parse-helpers.ts';
import { describeFile, notThisSource, startsLikeJson } from './recognise-file.ts';

/**
 * The `airdate` import source: this service's own export (docs/export-format.md). The file states
 * everything explicitly (follow and archive flags, watched states, history), so the import
 * restores an account rather than guessing. Items may carry extra fields (a later minor change
 * stays readable); `ids` may not, because a typo there would silently lose the item.
 */

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
  .transform((entries): ImportWatchEvent[] => entries.sort((a, b) => a.at.getTime() - b.at.getTime()));

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

// `format` and `version` come first: zod reports issues in key order, so a file from another
// service is named as such before anything inside it.
const exportSchema = z
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

/**
 * The watched state to carry: as the file states it, except that "not watched" with no history
 * is what the export says of every episode nobody touched; passing that on would be a claim the
 * file does not make, so it becomes "nothing said" and the import leaves the item alone.
 */
const statedWatched = (watched: boolean | undefined, history: ImportWatchEvent[]): boolean | undefined =>
  watched === false && history.length === 0 ? undefined : watched;

const expectedFile = 'an Airdate export (a JSON object with "format": "airdate-export")';

/**
 * Parses and validates an Airdate export into the shared ImportDocument (src/imports/sources/import-document.ts).
 * Items without any external id of their kind cannot be matched; they are listed in `skipped`.
 * @throws ImportFileError naming `fileName` and the first problem with its JSON path
 *   (`shows[3].episodes[2].season: expected an integer ≥ 0`).
 */
export function parseAirdateExport(bytes: Uint8Array, fileName: string): ImportDocument {
  // Another service's file (a CSV, a Trakt array, a Simkl backup: no "format") is named as what it is.
  if (!startsLikeJson(bytes)) throw notThisSource(bytes, fileName, expectedFile);
  const value = parseJsonFile(bytes, fileName);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notThisSource(bytes, fileName, expectedFile);
  if (!('format' in value) && describeFile(bytes) === 'a Simkl JSON backup') throw notThisSource(bytes, fileName, expectedFile);
  const parsed = exportSchema.safeParse(value);
  if (!parsed.success) throw new ImportFileError(fileName, firstProblem(parsed.error, 'invalid export'));
  const document: ImportDocument = { source: 'airdate', fileName, shows: [], titles: [], skipped: [] };
  const skip = (kind: string, title: string, sources: string): ImportSkip => ({ item: `${kind} "${title}"`, reason: `no ${sources} id` });
  for (const show of parsed.data.shows) {
    if (Object.keys(show.ids).length === 0) {
      document.skipped.push(skip('show', show.title, 'tmdb, tvdb or imdb'));
      continue;
    }
    const episodes = show.episodes.map(({ watched, ids, ...episode }) => ({ ...episode, ...(ids && Object.keys(ids).length > 0 ? { ids } : {}), watched: statedWatched(watched, episode.history) }));
    document.shows.push({ kind: 'show', ...show, episodes });
  }
  for (const kind of ['movie', 'game'] as const) {
    for (const { watched, ...title } of kind === 'movie' ? parsed.data.movies : parsed.data.games) {
      if (Object.keys(title.ids).length === 0) {
        document.skipped.push(skip(kind, title.title, kind === 'movie' ? 'tmdb, tvdb or imdb' : 'igdb or giantbomb'));
        continue;
      }
      document.titles.push({ kind, ...title, watched: statedWatched(watched, title.history) });
    }
  }
  return document;
}
