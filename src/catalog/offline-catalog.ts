import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { catalogLengths } from '../limits.ts';
import { countSchema, runtimeSchema, episodeIdsSchema, expected, externalIdSchema, firstProblem, idsSchema, imdbIdSchema, localDateSchema, uniqueEpisodeIds, uniqueIds, withinLength } from './catalog-file-schema.ts';
import { originsOf } from './image-origins.ts';
import {
  rankByTitle,
  type CatalogProvider,
  type CatalogRecord,
  type RefreshItem,
} from './provider.ts';

/**
 * The offline catalog file (docs: shared/spec/offline-catalog.md). Unknown keys are refused at the
 * top level and inside `ids`, where a typo ("show", "tmbd") would otherwise silently drop data;
 * items themselves may carry extra fields so files written by other tools still load.
 */

/** The offline file is invalid: the message names the path and the first problem. */
export class CatalogFileError extends Error {
  override name = 'CatalogFileError';
  constructor(readonly path: string, readonly problem: string) {
    super(`catalog file ${path}: ${problem}`);
  }
}

/**
 * `ids` of one kind: only its sources, at least one of `required` (the catalogs' own ids, which a
 * row is stored and refreshed by); the ids export files key items by (imdb, a movie's tvdb,
 * giantbomb) are optional extras that let imports match offline.
 */
function requiredIds<Shape extends Parameters<typeof idsSchema>[0]>(shape: Shape, required: (keyof Shape & string)[]) {
  return idsSchema(shape).refine((ids) => required.some((source) => (ids as Record<string, unknown>)[source] !== undefined), { error: `expected at least one of ${required.join(', ')}` });
}

const showIds = requiredIds({ tmdb: externalIdSchema.optional(), tvdb: externalIdSchema.optional(), imdb: imdbIdSchema.optional() }, ['tmdb', 'tvdb']);
const movieIds = requiredIds({ tmdb: externalIdSchema.optional(), tvdb: externalIdSchema.optional(), imdb: imdbIdSchema.optional() }, ['tmdb']);
const gameIds = requiredIds({ igdb: externalIdSchema.optional(), giantbomb: externalIdSchema.optional() }, ['igdb']);

const dateOrNull = localDateSchema.nullable();

// Every text and value within the catalog's bounds (src/limits.ts), as for imports and network
// catalogs; here a value out of bounds refuses the file, naming where.
const title = withinLength(z.string({ error: expected('a non-empty string') }).trim().min(1, { error: 'expected a non-empty string' }), catalogLengths.title);

const optionalText = withinLength(z.string({ error: expected('a string or null') }).nullish(), catalogLengths.overview).transform((text) =>
  text === undefined || text === null || text.trim() === '' ? null : text,
);

const poster = withinLength(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL or null' }).nullish(), catalogLengths.posterUrl).transform((url) => url ?? null);

const episodeSchema = z.object(
  {
    season: countSchema(0),
    number: countSchema(1),
    ids: episodeIdsSchema().optional(),
    title: title.nullish().transform((text) => text ?? null),
    air_date: dateOrNull,
    runtime: runtimeSchema.optional(),
  },
  { error: expected('an episode object') },
);

const showSchema = z
  .object(
    {
      ids: showIds,
      title,
      poster,
      overview: optionalText,
      episodes: z.array(episodeSchema, { error: expected('an array of episodes') }).default([]),
    },
    { error: expected('a show object') },
  )
  .superRefine((show, context) => {
    const seen = new Map<string, number>();
    show.episodes.forEach((episode, index) => {
      const key = `${episode.season}:${episode.number}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else
        context.addIssue({
          code: 'custom',
          path: ['episodes', index],
          message: `duplicate episode (season ${episode.season}, number ${episode.number} is already episodes[${first}])`,
        });
    });
  });

function titleSchema(kind: 'movie' | 'game') {
  return z.object(
    { ids: kind === 'movie' ? movieIds : gameIds, title, poster, overview: optionalText, release_date: dateOrNull, ...(kind === 'movie' ? { runtime: runtimeSchema.optional() } : {}) },
    { error: expected(`a ${kind} object`) },
  );
}

const itemSchemas = { shows: showSchema, movies: titleSchema('movie'), games: titleSchema('game') };

/** The file's top level, given what each list holds. */
const fileSchema = <Show extends z.ZodType, Movie extends z.ZodType, Game extends z.ZodType>(items: { shows: Show; movies: Movie; games: Game }) =>
  z.strictObject(
    {
      shows: z.array(items.shows, { error: expected('an array of shows') }).default([]),
      movies: z.array(items.movies, { error: expected('an array of movies') }).default([]),
      games: z.array(items.games, { error: expected('an array of games') }).default([]),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.map((key) => `"${key}"`).join(', ')} (allowed: shows, movies, games)`
          : 'expected a JSON object with shows, movies and games',
    },
  );

type ParsedFile = z.output<ReturnType<typeof fileSchema<typeof itemSchemas.shows, typeof itemSchemas.movies, typeof itemSchemas.games>>>;

/** The ids that must be unique across the file (an item's, an episode's). */
function checkUniqueIds(file: ParsedFile, context: z.RefinementCtx): void {
  uniqueIds(file.shows, context, 'shows');
  uniqueIds(file.movies, context, 'movies');
  uniqueIds(file.games, context, 'games');
  uniqueEpisodeIds(file.shows, context, 'shows');
}

const catalogFileSchema = fileSchema(itemSchemas).superRefine(checkUniqueIds);

/** The top level alone, its items unchecked: `loadOfflineCatalog` checks them one by one. */
const topLevelSchema = fileSchema({ shows: z.unknown(), movies: z.unknown(), games: z.unknown() });

/** The file as written (snake_case keys, optional parts may be left out). */
export type OfflineCatalogFile = z.input<typeof catalogFileSchema>;

/** A parsed offline catalog: every item as a provider record, in file order. */
export interface OfflineCatalog {
  path: string;
  records: CatalogRecord[];
}

/**
 * Validates already-parsed JSON as an offline catalog; `path` only names the source in errors.
 * Throws CatalogFileError with the first problem and its JSON path.
 */
export function parseOfflineCatalog(data: unknown, path: string): OfflineCatalog {
  const parsed = catalogFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new CatalogFileError(path, firstProblem(parsed.error, 'invalid catalog'));
  }
  return { path, records: recordsOf(parsed.data) };
}

/** How long item checks run before the event loop gets a turn. */
const sliceMs = 10;

/**
 * `parseOfflineCatalog`'s result, checked item by item with a turn for the event loop every
 * 10 ms: ~20 000 items take 0.1–0.3 s of CPU, which in one piece would hold every request the
 * server answers meanwhile (at start, and on each sync's refresh, which reads the file again).
 * A file with a problem is checked again whole by `parseOfflineCatalog`, so that the error names
 * the same first problem.
 */
export async function parseOfflineCatalogInTurns(data: unknown, path: string): Promise<OfflineCatalog> {
  const top = topLevelSchema.safeParse(data);
  if (!top.success) return parseOfflineCatalog(data, path);
  const parsed = { shows: [], movies: [], games: [] } as unknown as ParsedFile;
  let sliceStart = performance.now();
  for (const key of ['shows', 'movies', 'games'] as const) {
    for (const item of top.data[key]) {
      const checked = itemSchemas[key].safeParse(item);
      if (!checked.success) return parseOfflineCatalog(data, path);
      (parsed[key] as unknown[]).push(checked.data);
      if (performance.now() - sliceStart > sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }
  let duplicate = false;
  checkUniqueIds(parsed, { addIssue: () => void (duplicate = true) } as unknown as z.RefinementCtx);
  return duplicate ? parseOfflineCatalog(data, path) : { path, records: recordsOf(parsed) };
}

/** Every item of a checked file as a provider record, in file order. */
function recordsOf({ shows, movies, games }: ParsedFile): CatalogRecord[] {
  return [
    ...shows.map((show) => ({
      kind: 'show' as const,
      ids: show.ids,
      title: show.title,
      poster: show.poster,
      overview: show.overview,
      episodes: show.episodes.map((episode) => ({
        season: episode.season,
        number: episode.number,
        title: episode.title,
        airDate: episode.air_date,
        ...(episode.runtime === undefined ? {} : { runtime: episode.runtime }),
        ...(episode.ids && Object.keys(episode.ids).length > 0 ? { ids: episode.ids } : {}),
      })),
    })),
    ...movies.map((movie) => ({ kind: 'movie' as const, ...titleFields(movie), ...('runtime' in movie && movie.runtime !== undefined ? { runtime: movie.runtime as number | null } : {}) })),
    ...games.map((game) => ({ kind: 'game' as const, ...titleFields(game) })),
  ];
}

function titleFields(item: z.output<ReturnType<typeof titleSchema>>) {
  return { ids: item.ids, title: item.title, poster: item.poster, overview: item.overview, releaseDate: item.release_date };
}

const readProblems: Record<string, string> = {
  ENOENT: 'file not found',
  EACCES: 'permission denied',
  EISDIR: 'is a directory, not a file',
};

/** Reads and validates the offline catalog at `path`; throws CatalogFileError naming the first problem. */
export async function loadOfflineCatalog(path: string): Promise<OfflineCatalog> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new CatalogFileError(path, `cannot read: ${readProblems[code] ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    // Editors on Windows like to start UTF-8 files with a byte order mark, which JSON.parse refuses.
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CatalogFileError(path, `not valid JSON (${(error as Error).message})`);
  }
  return parseOfflineCatalogInTurns(data, path);
}

/** The offline catalog as a provider, plus what start-up sync needs. */
export interface OfflineCatalogProvider extends CatalogProvider {
  readonly path: string;
  /** Re-reads the file and returns all its records; throws CatalogFileError when it is invalid. */
  listAll(): Promise<CatalogRecord[]>;
}

interface CatalogIndex {
  records: CatalogRecord[];
  /** `kind:source:id` → record; `episode:source:id` → the record of the episode's show. */
  byId: Map<string, CatalogRecord>;
}

function indexRecords(records: CatalogRecord[]): CatalogIndex {
  const byId = new Map<string, CatalogRecord>();
  for (const record of records) {
    for (const [source, id] of Object.entries(record.ids)) {
      if (id !== undefined) byId.set(`${record.kind}:${source}:${id}`, record);
    }
    if (record.kind !== 'show') continue;
    for (const episode of record.episodes) {
      for (const [source, id] of Object.entries(episode.ids ?? {})) {
        if (id !== undefined) byId.set(`episode:${source}:${id}`, record);
      }
    }
  }
  return { records, byId };
}

/**
 * A provider over the offline file. `refresh` and `listAll` re-read the file, so editing it and
 * syncing updates the library; `lookup` and `search` use the last good read (reading it the first
 * time), so a file broken mid-edit keeps serving what it said before; `resolveId` (the import's
 * pre-pass and the retry of pending imports) and `season` (a delivery's missing season) read it
 * again when it changed since it was last read (modification time or size), so ids added to the
 * file are found without waiting for a refresh, and keep the last good read when the new one is
 * broken. A broken file makes `refresh`/`listAll` throw CatalogFileError, which callers must treat
 * as "no answer", never as "the catalog is now empty".
 */
export function createOfflineProvider(path: string): OfflineCatalogProvider {
  let lastGood: CatalogIndex | undefined;
  /** The hosts the last good read's posters name (CatalogProvider.imageOrigins). */
  let posterOrigins: readonly string[] = [];
  /** Modification time and size of the file when it was last read (or tried). */
  let readStamp: string | undefined;

  const fileStamp = async (): Promise<string | undefined> => {
    try {
      const info = await stat(path);
      return `${info.mtimeMs}:${info.size}`;
    } catch {
      return undefined;
    }
  };

  /** The read under way, if any: concurrent callers share it instead of serving the old read meanwhile. */
  let reading: Promise<CatalogIndex> | undefined;

  function reread(): Promise<CatalogIndex> {
    reading ??= (async () => {
      try {
        readStamp = await fileStamp();
        const catalog = await loadOfflineCatalog(path);
        lastGood = indexRecords(catalog.records);
        posterOrigins = originsOf(catalog.records.map((record) => record.poster));
        return lastGood;
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  /** The last good read, read again first when the file changed since (a broken new one is ignored). */
  async function current(): Promise<CatalogIndex> {
    if (!lastGood) return reread();
    if (!reading) {
      const stamp = await fileStamp();
      if (!reading && stamp !== undefined && stamp !== readStamp) reread().catch(() => undefined);
    }
    if (reading) {
      try {
        return await reading;
      } catch {
        return lastGood;
      }
    }
    return lastGood;
  }

  return {
    name: 'offline',
    local: true,
    path,
    imageOrigins: () => posterOrigins,
    async lookup(kind, source, externalId) {
      const index = lastGood ?? (await reread());
      return index.byId.get(`${kind}:${source}:${externalId}`) ?? null;
    },
    async search(query, kind) {
      const index = lastGood ?? (await reread());
      const candidates = kind === undefined ? index.records : index.records.filter((record) => record.kind === kind);
      return rankByTitle(candidates, query);
    },
    async refresh(items: RefreshItem[]) {
      const index = await reread();
      const found = new Set<CatalogRecord>();
      for (const item of items) {
        for (const [source, id] of Object.entries(item.ids)) {
          const record = index.byId.get(`${item.kind}:${source}:${id}`);
          if (record) found.add(record);
        }
      }
      return [...found];
    },
    async listAll() {
      return (await reread()).records;
    },
    async resolveId(query) {
      const index = await current();
      return index.byId.get(`${query.kind}:${query.source}:${query.id}`) ?? null;
    },
    async season(show, number) {
      const index = await current();
      for (const [source, id] of Object.entries(show)) {
        const record = index.byId.get(`show:${source}:${id}`);
        if (record?.kind === 'show') return record.episodes.filter((episode) => episode.season === number);
      }
      return null;
    },
  };
}
