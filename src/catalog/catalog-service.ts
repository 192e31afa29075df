import { withCatalogBounds } from './catalog-bounds.ts';
import { createCatalogBudgets, type CatalogBudget } from './catalog-budget.ts';
import { asCatalogCaller } from './catalog-caller.ts';
import { byPriority, resolveIdQueries, type ResolveIdsOptions, type ResolveIdsSummary } from './catalog-lookups.ts';
import {
  findCatalogItem,
  findCatalogItemsById,
  storeCatalogRecords,
  type StoredCatalogItem,
} from './catalog-store.ts';
import { createLookupCache } from './lookup-cache.ts';
import { networkImageOrigins } from './image-origins.ts';
import type { OfflineCatalogProvider } from './offline-catalog.ts';
import {
  hasMatchableId,
  sourcesByKind,
  titleMatchRank,
  type CatalogProvider,
  type CatalogRecord,
  type CatalogSource,
  type IdQuery,
  type MediaKind,
  type RefreshItem,
} from './provider.ts';
import { createSeasonFetches, type SeasonAnswer, type SeasonRequest } from './season-fetches.ts';
import { databaseKind, db } from '../db/client.ts';
import { visibleSql } from '../db/catalog-visibility.ts';
import { InputError } from '../errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { inputLengths } from '../limits.ts';
import { exceedsLength } from '../value-bounds.ts';
import type { Warner } from '../log.ts';
import { matchTitlesBySearch, type MatchTitlesSummary, type TitleQuery } from './catalog-title-search.ts';

export type { MatchTitlesSummary, ResolveIdsOptions, ResolveIdsSummary, SeasonAnswer, TitleQuery };

/** Most results a search returns. */
export const searchLimit = 50;

/** What a catalog refresh did; failures are providers that could not answer (logged, skipped). */
export interface RefreshSummary {
  /** Stored items the providers were asked about. */
  items: number;
  /** Records the providers returned (after dropping lower-priority duplicates). */
  records: number;
  /** Rows created or updated; 0 means the catalog was already current. */
  changes: number;
  failures: { provider: string; message: string }[];
}

declare module '../graphql/context.ts' {
  interface GraphQLServices {
    catalog: CatalogService;
  }
}
declare module '../jobs/job-definition.ts' {
  interface JobServices {
    catalog: CatalogService;
  }
}

export interface CatalogService {
  /**
   * The stored item with `source`'s id `externalId` that `viewerId` may see; when none is stored,
   * or only another account's unconfirmed import row (catalog-visibility.ts), asks the providers in
   * order, stores the first answer (which confirms such a row, its data replacing the file's) and
   * returns its row. Null when no catalog knows it.
   */
  lookup(kind: MediaKind, source: CatalogSource, externalId: number, viewerId: number): Promise<StoredCatalogItem | null>;
  /**
   * Stored items `viewerId` may see and provider results whose title matches `query`
   * (case-insensitive), provider results stored first so that every result has a database id;
   * another account's unconfirmed import rows are never among them; deduplicated, best first, at
   * most `searchLimit`. Throws InputError for a blank query or one longer than
   * inputLengths.searchQuery; the query is matched as plain text (`%` and `_` are characters).
   */
  search(query: string, viewerId: number, kind?: MediaKind): Promise<StoredCatalogItem[]>;
  /** Refreshes every stored item from every provider (and lists self-enumerating ones whole). */
  refreshAll(): Promise<RefreshSummary>;
  /**
   * Refreshes, from every provider's `refresh`, only the items followed and not archived: by
   * `accountId` when given, by any account otherwise. New episodes are stored, moved air dates
   * move; a failing provider is logged and listed in `failures`, the others still answer.
   */
  refreshFollowed(props: RefreshFollowedProps): Promise<RefreshSummary>;
  /**
   * Asks the providers that can resolve ids (CatalogProvider.resolveId, and locateEpisode for
   * episodes), in priority order, about each query, `concurrency` at a time, and stores every
   * answer (with its episodes) in one go; an episode of a stored show is added to it, the show is
   * not fetched again. A provider that fails is logged and counted; the next one is still asked.
   * Never throws for a catalog's failure: what is not answered simply stays unknown. Network
   * catalogs' answers are remembered, each request charged to `options.budget` and sent after
   * people's searches (catalog-lookups.ts).
   */
  resolveIds(queries: IdQuery[], concurrency: number, options?: ResolveIdsOptions): Promise<ResolveIdsSummary>;
  /**
   * Asks the providers' title search, in priority order and `concurrency` queries at a time, for
   * each movie or game known only by its title and release year, and stores the answer when
   * EXACTLY ONE result of the first provider that has any has the same title and year
   * (title-match.ts: trimmed, case-folded, a trailing " (YEAR)" ignored on either side). Two such
   * results answer nothing (a wrong merge is worse than a reported item); a provider that fails is
   * logged and counted and the next one is asked. Never throws for a catalog's failure. Network
   * catalogs' answers are remembered and each search charged to `options.budget`, as resolveIds.
   */
  matchTitles(queries: TitleQuery[], concurrency: number, options?: ResolveIdsOptions): Promise<MatchTitlesSummary>;
  /**
   * Asks for a season of a stored show the store lacks: a local catalog at once, the network
   * catalogs in the background (season-fetches.ts); never the whole show.
   */
  requestSeason(props: SeasonRequest): Promise<SeasonAnswer>;
  /**
   * The budget of catalog requests under `key` (one per media-server connection, one per
   * account's imports: catalog-budget.ts), named `name` in the log; undefined when budgets are off.
   */
  budget(key: string, name: string): CatalogBudget | undefined;
  /** Requests a budget holds and gets back in an hour (AIRDATE_CATALOG_REQUESTS_PER_HOUR; 0: off). */
  readonly requestsPerHour: number;
  /**
   * The origins posters may come from (image-origins.ts): the network catalogs' image hosts and
   * what the configured providers add (TMDB's image URL, the offline file's posters' hosts).
   */
  imageOrigins(): string[];
  /** Drops the queued background fetches and waits for the running ones (the app's close). */
  close(): Promise<void>;
}

export interface CatalogServiceOptions {
  /** Each budget's requests an hour (catalog-budget.ts); 0 or undefined turns budgets off. */
  requestsPerHour?: number;
}

export interface RefreshFollowedProps {
  /** Only this account's followed items; every account's when undefined. */
  accountId?: number;
}

/** Providers are optional extras: one that fails is logged and skipped, never fatal. */
async function ask<T>(logger: Warner, provider: CatalogProvider, action: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    logger.warn(`catalog provider ${provider.name}: ${action} failed: ${(error as Error).message}`);
    return undefined;
  }
}

/** `query` as a LIKE pattern matching it anywhere, its own `%`, `_` and `\` taken literally (ESCAPE '\'). */
function containsPattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * Stored items whose title contains `query` as it is, ignoring case. Prisma's `contains` passes
 * `%` and `_` on as wildcards (a search for "100%" matched every title containing "100", and the
 * real match could fall out of the net below), so the ids are found with an escaped pattern:
 * SQLite's LIKE (which ignores ASCII case) or PostgreSQL's ILIKE, each with ESCAPE. Measured on
 * 10 000 titles, this is as fast as the unescaped LIKE and 1.5–3× faster than instr(lower(…)).
 */
async function searchStored(query: string, kind: MediaKind | undefined, viewerId: number): Promise<StoredCatalogItem[]> {
  const like = Prisma.raw(databaseKind() === 'postgres' ? 'ILIKE' : 'LIKE');
  const pattern = containsPattern(query);
  // A wide net per kind, ranked by the caller; ordering by title keeps the cut deterministic.
  const idsOf = async (table: 'Show' | 'Movie' | 'Game') => {
    const rows = await db().$queryRaw<{ id: number }[]>(
      Prisma.sql`SELECT "id" FROM ${Prisma.raw(`"${table}"`)} WHERE "title" ${like} ${pattern} ESCAPE ${'\\'} AND ${visibleSql(viewerId)} ORDER BY "title", "id" LIMIT ${searchLimit * 4}`,
    );
    return rows.map((row) => Number(row.id));
  };
  const wanted = (candidate: MediaKind) => kind === undefined || kind === candidate;
  const [shows, movies, games] = await Promise.all([
    wanted('show') ? idsOf('Show').then((ids) => db().show.findMany({ where: { id: { in: ids } } })) : [],
    wanted('movie') ? idsOf('Movie').then((ids) => db().movie.findMany({ where: { id: { in: ids } } })) : [],
    wanted('game') ? idsOf('Game').then((ids) => db().game.findMany({ where: { id: { in: ids } } })) : [],
  ]);
  return [
    ...shows.map((row) => ({ ...row, kind: 'show' as const })),
    ...movies.map((row) => ({ ...row, kind: 'movie' as const })),
    ...games.map((row) => ({ ...row, kind: 'game' as const })),
  ];
}

/**
 * Stored items with their external ids, as providers are asked to refresh them: every item, or
 * with `followedBy` only those some library row follows and has not archived (that account's row
 * when it names one).
 */
async function storedRefreshItems(followedBy?: { accountId?: number }): Promise<RefreshItem[]> {
  const followed = followedBy && { libraryRows: { some: { followed: true, archived: false, accountId: followedBy.accountId } } };
  const [shows, movies, games] = await Promise.all([
    db().show.findMany({ where: followed, select: { tmdbId: true, tvdbId: true }, orderBy: { id: 'asc' } }),
    db().movie.findMany({ where: followed, select: { tmdbId: true }, orderBy: { id: 'asc' } }),
    db().game.findMany({ where: followed, select: { igdbId: true }, orderBy: { id: 'asc' } }),
  ]);
  const defined = (ids: Record<string, number | null>) =>
    Object.fromEntries(Object.entries(ids).filter(([, id]) => id !== null)) as RefreshItem['ids'];
  return [
    ...shows.map((row) => ({ kind: 'show' as const, ids: defined({ tmdb: row.tmdbId, tvdb: row.tvdbId }) })),
    ...movies.map((row) => ({ kind: 'movie' as const, ids: defined({ tmdb: row.tmdbId }) })),
    ...games.map((row) => ({ kind: 'game' as const, ids: defined({ igdb: row.igdbId }) })),
  ].filter(hasMatchableId);
}

/**
 * The catalog service over `providers`, highest priority first (offline file before network).
 * Every record a provider answers is brought within the catalog's bounds first (catalog-bounds.ts).
 */
export function createCatalogService(unbounded: CatalogProvider[], logger: Warner, options: CatalogServiceOptions = {}): CatalogService {
  const providers = unbounded.map((provider) => withCatalogBounds(provider, (message) => logger.warn(message)));
  const budgets = createCatalogBudgets(options.requestsPerHour ?? 0);
  const cache = createLookupCache();
  const seasons = createSeasonFetches({ providers, logger, cache });
  // A person's lookup and search: sent before the background's requests (catalog-caller.ts).
  const interactive = <T>(call: () => Promise<T>) => asCatalogCaller({ priority: 'interactive' }, call);
  return {
    lookup: (kind, source, externalId, viewerId) => interactive(async () => {
      if (!sourcesByKind[kind].includes(source) || !Number.isSafeInteger(externalId) || externalId < 1) return null;
      const stored = await findCatalogItem(kind, source, externalId);
      // Another account's unconfirmed import row: only a catalog's answer (which confirms it) is shown.
      if (stored && (stored.ownerAccountId === null || stored.ownerAccountId === viewerId)) return stored;
      for (const provider of providers) {
        const action = `lookup ${kind} ${source} ${externalId}`;
        const record = await ask(logger, provider, action, () => provider.lookup(kind, source, externalId));
        if (!record || record.kind !== kind || !hasMatchableId(record)) continue;
        const { items } = await storeCatalogRecords([record]);
        const [row] = await findCatalogItemsById(items);
        return row ?? null;
      }
      return null;
    }),

    search: (query, viewerId, kind) => interactive(async () => {
      const text = query.trim();
      if (text === '') throw new InputError('the search query must not be empty', 'query');
      // Before any catalog or the database sees it: both scan every title with it.
      if (exceedsLength(text, inputLengths.searchQuery)) {
        throw new InputError(`the search query must be at most ${inputLengths.searchQuery} characters`, 'query');
      }
      const answers = await Promise.all(
        providers.map(async (provider) => (await ask(logger, provider, `search "${text}"`, () => provider.search(text, kind))) ?? []),
      );
      const fromProviders = byPriority(answers).filter((record) => kind === undefined || record.kind === kind);
      const stored = fromProviders.length > 0 ? await storeCatalogRecords(fromProviders) : { items: [] };
      const results = [...(await findCatalogItemsById(stored.items)), ...(await searchStored(text, kind, viewerId))];

      const fromProvider = new Set(stored.items.map((entry) => `${entry.kind}:${entry.databaseId}`));
      const unique = new Map<string, { item: StoredCatalogItem; rank: number }>();
      for (const item of results) {
        const key = `${item.kind}:${item.id}`;
        const rank = titleMatchRank(item.title, text);
        // Stored rows need a real title match; provider results may have matched an alias.
        if (unique.has(key) || (rank === undefined && !fromProvider.has(key))) continue;
        unique.set(key, { item, rank: rank ?? 3 });
      }
      return [...unique.values()]
        .sort((a, b) => a.rank - b.rank || a.item.title.localeCompare(b.item.title) || a.item.id - b.item.id)
        .slice(0, searchLimit)
        .map(({ item }) => item);
    }),

    async refreshAll() {
      return refreshItems(providers, await storedRefreshItems(), { listWhole: true, logger });
    },

    resolveIds(queries, concurrency, options) {
      return resolveIdQueries({ providers, logger, cache }, queries, concurrency, options);
    },

    matchTitles(queries, concurrency, options) {
      return matchTitlesBySearch({ providers, logger, cache }, queries, concurrency, options);
    },

    requestSeason: (props) => seasons.request(props),
    budget: (key, name) => budgets.of(key, name),
    requestsPerHour: budgets.perHour,
    close: () => seasons.close(),
    imageOrigins: () => [...new Set([...networkImageOrigins, ...providers.flatMap((provider) => provider.imageOrigins?.() ?? [])])],

    async refreshFollowed(props) {
      const accountId = props.accountId;
      if (accountId !== undefined && (!Number.isSafeInteger(accountId) || accountId < 1)) {
        throw new InputError('accountId must be a positive integer', 'accountId');
      }
      return refreshItems(providers, await storedRefreshItems({ accountId }), { listWhole: false, logger });
    },
  };
}

/**
 * Asks every provider about `items` (or, with `listWhole`, lists self-enumerating catalogs whole),
 * all at once since they are independent services, and stores the answers by priority. A failing
 * provider is logged and reported; it never stops the others.
 */
async function refreshItems(providers: CatalogProvider[], items: RefreshItem[], options: { listWhole: boolean; logger: Warner }): Promise<RefreshSummary> {
  // Promise.all keeps provider order, so the failures read the same every run.
  const answers = await Promise.all(
    providers.map(async (provider): Promise<{ records: CatalogRecord[]; failure?: RefreshSummary['failures'][number] }> => {
      const list = options.listWhole ? provider.listAll?.bind(provider) : undefined;
      if (!list && items.length === 0) return { records: [] };
      try {
        return { records: await (list ? list() : provider.refresh(items)) };
      } catch (error) {
        const message = (error as Error).message;
        options.logger.warn(`catalog provider ${provider.name}: refresh failed: ${message}`);
        return { records: [], failure: { provider: provider.name, message } };
      }
    }),
  );
  const records = byPriority(answers.map((answer) => answer.records));
  const { changes } = await storeCatalogRecords(records);
  const failures = answers.flatMap((answer) => (answer.failure ? [answer.failure] : []));
  return { items: items.length, records: records.length, changes, failures };
}

/**
 * Reads the offline file and stores every record in it, so a fresh server started with
 * AIRDATE_CATALOG_FILE has the whole offline catalog in the database (users follow items by
 * database id). Throws CatalogFileError for an invalid file, before anything is written.
 */
export async function syncOfflineCatalog(provider: OfflineCatalogProvider): Promise<{ records: number; changes: number }> {
  const records = await provider.listAll();
  const { changes } = await storeCatalogRecords(records);
  return { records: records.length, changes };
}
