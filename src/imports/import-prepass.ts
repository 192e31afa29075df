import { episodeIdSources, idColumn, idSourcesByKind, sourcesByKind, type IdQuery, type MediaKind } from '../catalog/provider.ts';
import { db } from '../db/client.ts';
import type { ImportDocument } from './sources/import-document.ts';
import { importCatalogLookups } from '../limits.ts';
import type { Warner } from '../log.ts';
import { selectIn } from '../db/bulk-sql.ts';
import type { CatalogBudget } from '../catalog/catalog-budget.ts';
import type { CatalogService, TitleQuery } from '../catalog/catalog-service.ts';
import { storedByTitleAndYear, titleYearKey } from '../catalog/title-match.ts';

/**
 * The import's catalog pre-pass, run BEFORE its transaction (a network call must never hold a
 * database transaction open): the ids a request's files name things by that the database does not
 * know yet and that no row can be made from are asked of the catalogs (the offline file, TMDB's
 * /find, TheTVDB, IGDB's external games) and their answers stored, so that the transaction then
 * finds them among stored rows (import-catalog.ts):
 * - episode references (TV Time's seen_episode.csv: an episode id only), and episode ids of a show
 *   item are not asked about (the show's own ids already make its row);
 * - shows and movies known only by imdb (or a movie by TheTVDB), games known only by giantbomb;
 * - movies and games with no id at all but a title and a year (Letterboxd films, Grouvee games
 *   without ids, TV Time movies with a release date), asked of the catalogs' title search: an
 *   answer is stored only when exactly one result has the same title and year (title-match.ts), so
 *   the transaction's title and year matcher then finds exactly that row. A title some stored row
 *   already has (one: it matches; several: it is ambiguous) is not asked.
 * Bounded per request (importCatalogLookups, ids first, then title searches: the rest stay
 * unmatched and are reported) and a few at a time, and in catalog requests by the account's import
 * budget (importBudget: what its imports and their retries may send an hour; past it the rest stay
 * unmatched, kept and retried like any other). A catalog's failure leaves its items unmatched;
 * the import goes on.
 */

/**
 * The catalog budget of an account's imports (CatalogService.budget,
 * AIRDATE_CATALOG_REQUESTS_PER_HOUR), shared by its uploads and the retries of its pending items.
 */
export function importBudget(catalog: CatalogService, accountId: number): CatalogBudget | undefined {
  return catalog.budget(`imports:${accountId}`, `the imports of account ${accountId}`);
}

/** A title and year to search, unless the id it falls back from (`fallbackFor`) is found first. */
interface FallbackTitleQuery extends TitleQuery {
  fallbackFor?: IdQuery;
}

/** What the pre-pass asks: an id, or a title and year (deduplicated by normalised title and year). */
export type PrepassQuery = IdQuery | FallbackTitleQuery;

const isIdQuery = (query: PrepassQuery): query is IdQuery => 'source' in query;

/** Collects the queries of one document into `into` (deduplicated by kind, source and id, or kind, title and year). */
export function collectIdQueries(document: ImportDocument, into: Map<string, PrepassQuery>): void {
  const add = (query: IdQuery) => {
    const key = `${query.kind}:${query.source}:${query.id}`;
    if (!into.has(key)) into.set(key, query);
  };
  // A title asked for an item that also has an id (`fallbackFor`) is searched only if that id finds
  // nothing; asked for an id-less item too, it is searched whatever.
  const addTitle = (query: FallbackTitleQuery) => {
    const key = `${query.kind}:title:${titleYearKey(query.title, query.year)}`;
    const known = into.get(key) as FallbackTitleQuery | undefined;
    if (!known) into.set(key, query);
    else if (known.fallbackFor && !query.fallbackFor) into.set(key, { ...known, fallbackFor: undefined });
  };
  for (const ref of document.episodeRefs ?? []) {
    // The first id a catalog is most likely to answer by; one lookup per reference.
    const source = episodeIdSources.find((candidate) => ref.ids[candidate] !== undefined);
    if (source) add({ kind: 'episode', source, id: ref.ids[source]! });
  }
  for (const item of [...document.shows, ...document.titles]) {
    if (sourcesByKind[item.kind].some((source) => item.ids[source] !== undefined)) continue; // a row can be made from it
    const source = idSourcesByKind[item.kind].find((candidate) => item.ids[candidate] !== undefined);
    const byId: IdQuery | undefined = source ? { kind: item.kind, source, id: item.ids[source]! } : undefined;
    if (byId) add(byId);
    // Then by title and year: for a Grouvee game whose giantbomb id IGDB does not know, too.
    if (item.kind !== 'show' && item.year !== undefined && Number.isInteger(item.year) && item.title.trim() !== '') {
      addTitle({ kind: item.kind, title: item.title, year: item.year, fallbackFor: byId });
    }
  }
}

/** The title queries no row `viewerId` may see answers yet (one row matches it; several make it ambiguous). */
async function unknownTitles(queries: TitleQuery[], viewerId: number): Promise<TitleQuery[]> {
  const unknown: TitleQuery[] = [];
  for (const kind of ['movie', 'game'] as const) {
    const ofKind = queries.filter((query) => query.kind === kind);
    if (ofKind.length === 0) continue;
    const stored = await storedByTitleAndYear(db(), kind, ofKind, viewerId);
    for (const query of ofKind) if (!stored.has(titleYearKey(query.title, query.year))) unknown.push(query);
  }
  return unknown;
}

const idKey = (query: IdQuery) => `${query.kind}:${query.source}:${query.id}`;

/**
 * The queries whose id no stored row `viewerId` may see has yet: another account's unconfirmed
 * import row is asked about too, so that a catalog's answer confirms it (db/catalog-visibility.ts).
 */
async function unknownQueries(queries: IdQuery[], viewerId: number): Promise<IdQuery[]> {
  const known = new Set<string>();
  const groups = new Map<string, IdQuery[]>();
  for (const query of queries) {
    const key = `${query.kind}:${query.source}`;
    const group = groups.get(key);
    if (group) group.push(query);
    else groups.set(key, [query]);
  }
  const tables: Record<MediaKind | 'episode', string> = { show: 'Show', movie: 'Movie', game: 'Game', episode: 'Episode' };
  for (const [key, group] of groups) {
    const { kind, source } = group[0]!;
    const column = idColumn[source];
    const columns = kind === 'episode' ? [column] : [column, 'ownerAccountId'];
    const rows = await selectIn<Record<string, unknown>>(db(), tables[kind], columns, column, group.map((query) => query.id));
    for (const row of rows) {
      if (row.ownerAccountId == null || Number(row.ownerAccountId) === viewerId) known.add(`${key}:${row[column]}`);
    }
  }
  return queries.filter((query) => !known.has(`${query.kind}:${query.source}:${query.id}`));
}

/** What the pre-pass did, for the log: ids and title searches together (they share one budget). */
export interface PrepassSummary {
  /** Ids, and titles with their year, the files name items by that the database did not know. */
  unknown: number;
  /** Of those, asked of the catalogs (at most importCatalogLookups.perRequest). */
  asked: number;
  /** Answered: an id resolved, or a title and year matched by exactly one search result. */
  found: number;
}

/**
 * Asks the catalogs about `queries` the database does not know yet (for `accountId`'s import) and
 * stores their answers, the requests charged to `budget` (importBudget).
 */
export async function resolveUnknownIds(catalog: CatalogService, queries: Map<string, PrepassQuery>, accountId: number, logger?: Warner, budget?: CatalogBudget): Promise<PrepassSummary> {
  if (queries.size === 0) return { unknown: 0, asked: 0, found: 0 };
  const all = [...queries.values()];
  const idQueries = all.filter(isIdQuery);
  const titleQueries = all.filter((query): query is FallbackTitleQuery => !isIdQuery(query));
  const unknown = idQueries.length > 0 ? await unknownQueries(idQueries, accountId) : [];
  const asked = unknown.slice(0, importCatalogLookups.perRequest);
  if (unknown.length > asked.length) {
    logger?.warn(`import: ${unknown.length} ids unknown to the catalog, asking about the first ${asked.length} (importCatalogLookups.perRequest)`);
  }
  const ids = asked.length > 0 ? await catalog.resolveIds(asked, importCatalogLookups.concurrent, { budget }) : { found: 0, unasked: 0 };
  // Titles whose item's id is now known (stored before, or just answered) are not searched.
  const fallbacks = titleQueries.flatMap((query) => query.fallbackFor ?? []);
  const stillUnknown = new Set((fallbacks.length > 0 ? await unknownQueries(fallbacks, accountId) : []).map(idKey));
  const needed = titleQueries.filter((query) => !query.fallbackFor || stillUnknown.has(idKey(query.fallbackFor)));
  const unknownTitled = needed.length > 0 ? await unknownTitles(needed, accountId) : [];
  const searched = unknownTitled.slice(0, importCatalogLookups.perRequest - asked.length);
  if (unknownTitled.length > searched.length) {
    logger?.warn(`import: ${unknownTitled.length} titles unknown to the catalog, searching for ${searched.length} (importCatalogLookups.perRequest, ids first)`);
  }
  const titles = searched.length > 0 ? await catalog.matchTitles(searched.map(({ kind, title, year }) => ({ kind, title, year })), importCatalogLookups.concurrent, { budget }) : { found: 0, unasked: 0 };
  if (ids.unasked + titles.unasked > 0) {
    logger?.warn(`import: ${ids.unasked + titles.unasked} ids and titles not asked of the catalogs: ${budget?.name ?? 'the budget'} is spent for now (AIRDATE_CATALOG_REQUESTS_PER_HOUR); they stay unmatched and are retried`);
  }
  return { unknown: unknown.length + unknownTitled.length, asked: asked.length + searched.length, found: ids.found + titles.found };
}
