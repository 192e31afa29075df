import { episodeIdSources, idColumn, idSourcesByKind, sourcesByKind, type IdQuery, type MediaKind } from '../catalog/provider.ts';
import { db } from '../db/client.ts';
import type { ImportDocument } from '../import/import-document.ts';
import { importCatalogLookups } from '../limits.ts';
import type { Logger } from '../log.ts';
import { selectIn } from './bulk-sql.ts';
import type { CatalogService } from './catalog.ts';

/**
 * The import's catalog pre-pass, run BEFORE its transaction (a network call must never hold a
 * database transaction open): the ids a request's files name things by that the database does not
 * know yet and that no row can be made from are asked of the catalogs (the offline file, TMDB's
 * /find, TheTVDB, IGDB's external games) and their answers stored, so that the transaction then
 * finds them among stored rows (import-catalog.ts):
 * - episode references (TV Time's seen_episode.csv: an episode id only), and episode ids of a show
 *   item are not asked about (the show's own ids already make its row);
 * - shows and movies known only by imdb (or a movie by TheTVDB), games known only by giantbomb.
 * Bounded per request (importCatalogLookups: the rest stay unmatched and are reported) and a few
 * at a time. A catalog's failure leaves its items unmatched; the import goes on.
 */

/** Collects the queries of one document into `into` (deduplicated by kind, source and id). */
export function collectIdQueries(document: ImportDocument, into: Map<string, IdQuery>): void {
  const add = (query: IdQuery) => {
    const key = `${query.kind}:${query.source}:${query.id}`;
    if (!into.has(key)) into.set(key, query);
  };
  for (const ref of document.episodeRefs ?? []) {
    // The first id a catalog is most likely to answer by; one lookup per reference.
    const source = episodeIdSources.find((candidate) => ref.ids[candidate] !== undefined);
    if (source) add({ kind: 'episode', source, id: ref.ids[source]! });
  }
  for (const item of [...document.shows, ...document.titles]) {
    if (sourcesByKind[item.kind].some((source) => item.ids[source] !== undefined)) continue; // a row can be made from it
    const source = idSourcesByKind[item.kind].find((candidate) => item.ids[candidate] !== undefined);
    if (source) add({ kind: item.kind, source, id: item.ids[source]! });
  }
}

/** The queries whose id no stored row has yet. */
async function unknownQueries(queries: IdQuery[]): Promise<IdQuery[]> {
  const known = new Set<string>();
  const groups = new Map<string, IdQuery[]>();
  for (const query of queries) {
    const key = `${query.kind}:${query.source}`;
    groups.set(key, [...(groups.get(key) ?? []), query]);
  }
  const tables: Record<MediaKind | 'episode', string> = { show: 'Show', movie: 'Movie', game: 'Game', episode: 'Episode' };
  for (const [key, group] of groups) {
    const { kind, source } = group[0]!;
    const column = idColumn[source];
    const rows = await selectIn<Record<string, unknown>>(db(), tables[kind], [column], column, group.map((query) => query.id));
    for (const row of rows) known.add(`${key}:${row[column]}`);
  }
  return queries.filter((query) => !known.has(`${query.kind}:${query.source}:${query.id}`));
}

/** What the pre-pass did, for the log. */
export interface PrepassSummary {
  /** Ids the files name by that the database did not know. */
  unknown: number;
  /** Of those, asked of the catalogs (at most importCatalogLookups.perRequest). */
  asked: number;
  found: number;
}

/** Asks the catalogs about `queries` the database does not know yet and stores their answers. */
export async function resolveUnknownIds(catalog: CatalogService, queries: Map<string, IdQuery>, logger?: Pick<Logger, 'warn'>): Promise<PrepassSummary> {
  if (queries.size === 0) return { unknown: 0, asked: 0, found: 0 };
  const unknown = await unknownQueries([...queries.values()]);
  const asked = unknown.slice(0, importCatalogLookups.perRequest);
  if (unknown.length > asked.length) {
    logger?.warn(`import: ${unknown.length} ids unknown to the catalog, asking about the first ${asked.length} (importCatalogLookups.perRequest)`);
  }
  const summary = await catalog.resolveIds(asked, importCatalogLookups.concurrent);
  return { unknown: unknown.length, asked: asked.length, found: summary.found };
}
