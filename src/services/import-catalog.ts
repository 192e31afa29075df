import { sourcesByKind, type CatalogSource, type MediaKind } from '../catalog/provider.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ImportShow, ImportTitle } from '../import/import-document.ts';

/**
 * The catalog side of an import, inside the import's transaction: finds the catalog row of every
 * item by ANY shared external id (the catalog store's rule, src/catalog/catalog-store.ts), and
 * creates rows from the file's ids and titles for items no catalog knows yet, so they are kept and
 * refreshed later. Unlike storeCatalogRecords it never overwrites what is stored: a file's title
 * or a missing poster must not replace a catalog's data. It only adds what is missing: rows, ids
 * a matched row lacks (when no other row has them) and episodes by (show, season, number).
 */

type Tx = Prisma.TransactionClient;
type Row = { id: number } & Record<string, unknown>;

const idColumn = { tmdb: 'tmdbId', tvdb: 'tvdbId', igdb: 'igdbId' } as const satisfies Record<CatalogSource, string>;
/** Values per `IN (…)` list and rows per insert: well inside SQLite's and PostgreSQL's parameter limits. */
export const batchSize = 1000;

export function chunks<T>(items: T[], size = batchSize): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

interface ItemTable {
  findMany(args: object): Promise<Row[]>;
  createManyAndReturn(args: object): Promise<Row[]>;
  update(args: object): Promise<unknown>;
}

function table(tx: Tx, kind: MediaKind): ItemTable {
  return (kind === 'show' ? tx.show : kind === 'movie' ? tx.movie : tx.game) as unknown as ItemTable;
}

/** Result of resolving one kind: the database id of each item (undefined: no usable id) and rows written. */
export interface Resolved {
  ids: (number | undefined)[];
  changes: number;
}

/** Finds or creates the catalog rows of `items` (all of one kind). */
export async function resolveItems(tx: Tx, kind: MediaKind, items: (ImportShow | ImportTitle)[]): Promise<Resolved> {
  const sources = sourcesByKind[kind];
  const rows = table(tx, kind);
  const select = Object.fromEntries([['id', true], ...sources.map((source) => [idColumn[source], true])]);
  const owner = new Map<string, Row>(); // `source:id` → row (stored, or planned when id < 0)
  for (const source of sources) {
    const wanted = [...new Set(items.flatMap((item) => item.ids[source] ?? []))];
    for (const part of chunks(wanted)) {
      for (const row of await rows.findMany({ where: { [idColumn[source]]: { in: part } }, select })) {
        for (const other of sources) if (row[idColumn[other]] != null) owner.set(`${other}:${row[idColumn[other]]}`, row);
      }
    }
  }
  const planned: { row: Row; item: ImportShow | ImportTitle }[] = [];
  const gained = new Set<Row>();
  const matched = items.map((item) => {
    const usable = sources.filter((source) => item.ids[source] !== undefined);
    if (usable.length === 0) return undefined;
    let row = usable.map((source) => owner.get(`${source}:${item.ids[source]}`)).find((found) => found !== undefined);
    if (!row) {
      row = { id: -(planned.length + 1) };
      planned.push({ row, item });
    }
    for (const source of usable) {
      const key = `${source}:${item.ids[source]}`;
      if (owner.has(key) || row[idColumn[source]] != null) continue; // owned elsewhere, or would replace an id
      row[idColumn[source]] = item.ids[source];
      owner.set(key, row);
      if (row.id > 0) gained.add(row);
    }
    return row;
  });

  let changes = 0;
  for (const part of chunks(planned)) {
    const data = part.map(({ row, item }) => ({ ...idsOf(row, sources), ...fieldsOf(kind, item) }));
    const created = await rows.createManyAndReturn({ data, select });
    // RETURNING order is not promised; each new row has ids no other row has, to find it by.
    const byKey = new Map(created.flatMap((stored) => sources.map((source) => [`${source}:${stored[idColumn[source]]}`, stored.id] as const)));
    for (const { row } of part) {
      const source = sources.find((candidate) => row[idColumn[candidate]] != null)!;
      row.id = byKey.get(`${source}:${row[idColumn[source]]}`)!;
    }
    changes += created.length;
  }
  for (const row of gained) {
    await rows.update({ where: { id: row.id }, data: idsOf(row, sources) });
    changes += 1;
  }
  return { ids: matched.map((row) => row?.id), changes };
}

function idsOf(row: Row, sources: readonly CatalogSource[]): Record<string, unknown> {
  return Object.fromEntries(sources.flatMap((source) => (row[idColumn[source]] == null ? [] : [[idColumn[source], row[idColumn[source]]]])));
}

function fieldsOf(kind: MediaKind, item: ImportShow | ImportTitle): Record<string, string | null> {
  const fields: Record<string, string | null> = { title: item.title, poster: item.poster ?? null, overview: item.overview ?? null };
  if (kind !== 'show') fields.releaseDate = (item as ImportTitle).releaseDate ?? null;
  return fields;
}

/** An episode the file mentions, by its show's database id. */
export interface WantedEpisode {
  showId: number;
  season: number;
  number: number;
  title: string | null;
  airDate: string | null;
}

export const episodeKey = (showId: number, season: number, number: number): string => `${showId}:${season}:${number}`;

/**
 * Database ids of `wanted` episodes by episodeKey, creating the ones the catalog lacks (with the
 * file's title and air date). One read per batch of shows and one insert per batch of new episodes.
 */
export async function resolveEpisodes(tx: Tx, wanted: WantedEpisode[]): Promise<{ ids: Map<string, number>; changes: number }> {
  const ids = new Map<string, number>();
  const select = { id: true, showId: true, season: true, number: true } as const;
  for (const part of chunks([...new Set(wanted.map((episode) => episode.showId))])) {
    for (const row of await tx.episode.findMany({ where: { showId: { in: part } }, select })) {
      ids.set(episodeKey(row.showId, row.season, row.number), row.id);
    }
  }
  const missing = new Map<string, WantedEpisode>();
  for (const episode of wanted) {
    const key = episodeKey(episode.showId, episode.season, episode.number);
    if (!ids.has(key) && !missing.has(key)) missing.set(key, episode);
  }
  let changes = 0;
  for (const part of chunks([...missing.values()])) {
    const created = await tx.episode.createManyAndReturn({ data: part, select });
    for (const row of created) ids.set(episodeKey(row.showId, row.season, row.number), row.id);
    changes += created.length;
  }
  return { ids, changes };
}
