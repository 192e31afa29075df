import { sourcesByKind, type CatalogSource, type MediaKind } from '../catalog/provider.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { ImportShow, ImportTitle } from '../import/import-document.ts';
import { insertRowsReturning, selectIn } from './bulk-sql.ts';

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
const tableName = { show: 'Show', movie: 'Movie', game: 'Game' } as const satisfies Record<MediaKind, string>;

/** The item tables share the id columns; Prisma's per-model delegates cannot be unioned directly. */
interface ItemTable {
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

/** Finds or creates the catalog rows of `items` (all of one kind); new rows are stamped `now`, the import's time. */
export async function resolveItems(tx: Tx, kind: MediaKind, items: (ImportShow | ImportTitle)[], now: Date): Promise<Resolved> {
  const sources = sourcesByKind[kind];
  const rows = table(tx, kind);
  const owner = new Map<string, Row>(); // `source:id` → row (stored, or planned when id < 0)
  const columns = ['id', ...sources.map((source) => idColumn[source])];
  for (const source of sources) {
    const wanted = [...new Set(items.flatMap((item) => item.ids[source] ?? []))];
    for (const row of await selectIn<Row>(tx, tableName[kind], columns, idColumn[source], wanted)) {
      if (sources.some((other) => owner.get(`${other}:${row[idColumn[other]]}`)?.id === row.id)) continue;
      for (const other of sources) if (row[idColumn[other]] != null) owner.set(`${other}:${row[idColumn[other]]}`, row);
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
  if (planned.length > 0) {
    // Inserted in bulk; each new row is known again by its first id (new rows have ids no other row has).
    const fields = kind === 'show' ? ['title', 'poster', 'overview'] : ['title', 'poster', 'overview', 'releaseDate'];
    const values = planned.map(({ row, item }) => [...sources.map((source) => row[idColumn[source]] ?? null), ...fieldsOf(item, fields), now, now]);
    const created = await insertRowsReturning<Row>(tx, tableName[kind], [...sources.map((source) => idColumn[source]), ...fields, 'createdAt', 'updatedAt'], values, columns);
    changes += created.length;
    const pending = new Map<string, Row>();
    for (const { row } of planned) pending.set(firstIdKey(row, sources), row);
    for (const stored of created) pending.get(firstIdKey(stored, sources))!.id = stored.id;
  }
  for (const row of gained) {
    await rows.update({ where: { id: row.id }, data: idsOf(row, sources) });
    changes += 1;
  }
  return { ids: matched.map((row) => row?.id), changes };
}

/** `source:id` of the row's first external id (planned rows always have one). */
function firstIdKey(row: Row, sources: readonly CatalogSource[]): string {
  const source = sources.find((candidate) => row[idColumn[candidate]] != null)!;
  return `${source}:${row[idColumn[source]]}`;
}

function idsOf(row: Row, sources: readonly CatalogSource[]): Record<string, unknown> {
  return Object.fromEntries(sources.flatMap((source) => (row[idColumn[source]] == null ? [] : [[idColumn[source], row[idColumn[source]]]])));
}

function fieldsOf(item: ImportShow | ImportTitle, fields: string[]): (string | null)[] {
  const values = item as unknown as Record<string, string | null | undefined>;
  return fields.map((field) => values[field] ?? null);
}

/** An episode the file mentions, by its show's database id. */
export interface WantedEpisode {
  showId: number;
  season: number;
  number: number;
  title: string | null;
  airDate: string | null;
}

type EpisodeRow = { id: number; showId: number; season: number; number: number };

export const episodeKey = (showId: number, season: number, number: number): string => `${showId}:${season}:${number}`;

/**
 * Database ids of `wanted` episodes by episodeKey, creating the ones the catalog lacks (with the
 * file's title and air date). A few queries per batch of shows, never one per episode.
 */
export async function resolveEpisodes(tx: Tx, wanted: WantedEpisode[], now: Date): Promise<{ ids: Map<string, number>; changes: number }> {
  const ids = new Map<string, number>();
  const read = async (showIds: number[]) => {
    for (const row of await selectIn<EpisodeRow>(tx, 'Episode', ['id', 'showId', 'season', 'number'], 'showId', showIds)) {
      ids.set(episodeKey(row.showId, row.season, row.number), row.id);
    }
  };
  await read([...new Set(wanted.map((episode) => episode.showId))]);
  const missing = new Map<string, WantedEpisode>();
  for (const episode of wanted) {
    const key = episodeKey(episode.showId, episode.season, episode.number);
    if (!ids.has(key) && !missing.has(key)) missing.set(key, episode);
  }
  if (missing.size === 0) return { ids, changes: 0 };
  // A big import creates tens of thousands of episodes: multi-row INSERTs that return the new ids
  // (createManyAndReturn costs ~0.5 ms a row).
  const rows = [...missing.values()].map((episode) => [episode.showId, episode.season, episode.number, episode.title, episode.airDate, now, now]);
  const created = await insertRowsReturning<EpisodeRow>(tx, 'Episode', ['showId', 'season', 'number', 'title', 'airDate', 'createdAt', 'updatedAt'], rows, ['id', 'showId', 'season', 'number']);
  for (const row of created) ids.set(episodeKey(row.showId, row.season, row.number), row.id);
  const changes = created.length;
  return { ids, changes };
}
