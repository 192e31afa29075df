import { db } from '../db/client.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import { bumpCatalogVersion } from '../db/stale-versions.ts';
import type { Game, Movie, Prisma, Show } from '../generated/prisma/client.ts';
import { planEpisodes, writeEpisodes, type Fields, type ItemPlan } from './catalog-store-episodes.ts';
import { createIdMatcher } from './id-match.ts';
import {
  hasMatchableId,
  idColumn,
  idSourcesByKind,
  sourcesByKind,
  type CatalogEpisode,
  type CatalogRecord,
  type CatalogSource,
  type ExternalIds,
  type ItemIdSource,
  type MediaKind,
} from './provider.ts';

/**
 * Stores provider records in the shared catalog tables. The rules (offline-catalog.md,
 * decisions.md "Catalogs"):
 * - an item matches an existing row by ANY shared external id (idSourcesByKind: the catalogs'
 *   ids and imdb, tvdb for movies, giantbomb), and gains the ids it lacked (the match rule,
 *   id-match.ts, which imports share);
 * - an episode matches by (show, season, number), and gains the episode ids (tvdb, tmdb, imdb)
 *   it lacked, unless another episode already has them;
 * - nothing is ever deleted: a record that leaves an episode out keeps it stored;
 * - only real differences are written, so an unchanged refresh writes nothing at all and leaves
 *   updatedAt and ServerState.catalogVersion alone (feed caches and calendar ETags key on them);
 * - any change bumps catalogVersion in the same transaction;
 * - a record that matches a row an import file created (ownerAccountId set, catalog-visibility.ts)
 *   confirms it: the row is shared from then on, and none of the file's text survives: its title,
 *   poster, overview and release date become the record's (null where the record has none), and a
 *   show's stored episodes lose their file-given titles and air dates before the record's episodes
 *   are merged in.
 *
 * Conflicts: when a record's ids point at two different rows (tmdb says row A, tvdb says row B),
 * the first match in source order (tmdb, tvdb) wins and the other id is skipped for this record;
 * row B keeps it. Likewise a row never has an id replaced: a record whose tvdb matches a row with
 * another tmdb id leaves that tmdb id as stored. Ids are how users' libraries stay attached, so
 * when catalogs disagree we keep what is stored rather than guess.
 *
 * Records in one call apply in order: two records for the same item merge, later fields win.
 *
 * Cost: reads are a few chunked queries; new rows go in with createMany; each changed row is one
 * UPDATE (≈ 0.5 ms), which is what a refresh normally has a handful of.
 */

/** The stored row of a catalog item, tagged with its kind. */
export type StoredCatalogItem = ({ kind: 'show' } & Show) | ({ kind: 'movie' } & Movie) | ({ kind: 'game' } & Game);

/** Where one record ended up: the row's database id and every external id it now has. */
export interface StoredItem {
  kind: MediaKind;
  databaseId: number;
  ids: ExternalIds;
}

export interface StoredIds {
  /** One entry per record, in the order given. */
  items: StoredItem[];
  /** Rows created or updated (items and episodes); 0 means nothing was written. */
  changes: number;
}

const fieldColumns = {
  show: ['title', 'poster', 'overview'],
  movie: ['title', 'poster', 'overview', 'releaseDate', 'runtime'],
  game: ['title', 'poster', 'overview', 'releaseDate'],
} as const;

type Row = { id: number } & Record<string, unknown>;


/**
 * The three item tables share every column this module touches, so one code path serves them
 * and the merge rule lives in one place; Prisma's per-model delegates cannot be unioned directly.
 */
interface ItemTable {
  findMany(args: { where: object }): Promise<Row[]>;
  findUnique(args: { where: object }): Promise<Row | null>;
  createManyAndReturn(args: { data: object[] }): Promise<Row[]>;
  update(args: { where: { id: number }; data: object }): Promise<unknown>;
}

function table(client: Prisma.TransactionClient, kind: MediaKind): ItemTable {
  const delegate = kind === 'show' ? client.show : kind === 'movie' ? client.movie : client.game;
  return delegate as unknown as ItemTable;
}



/**
 * Upserts `records` into the catalog tables in one transaction (see the rules above) and returns
 * the database id of each. Throws when a record has none of the ids its kind is matched by.
 */
export async function storeCatalogRecords(records: CatalogRecord[]): Promise<StoredIds> {
  const unmatchable = records.find((record) => !hasMatchableId(record));
  if (unmatchable) {
    const { kind, title } = unmatchable;
    throw new Error(`catalog ${kind} "${title}" has none of the ids ${sourcesByKind[kind].join(', ')}`);
  }
  if (records.length === 0) return { items: [], changes: 0 };
  // Two writers storing the same new item at once: a sync's refresh and the 30-minute one, say.
  return retryOnUniqueViolation(() => storeOnce(records));
}

async function storeOnce(records: CatalogRecord[]): Promise<StoredIds> {
  return db().$transaction(
    async (client) => {
      const plans: ItemPlan[] = new Array(records.length);
      let changes = 0;
      for (const kind of ['show', 'movie', 'game'] as const) {
        const positions = records.flatMap((record, position) => (record.kind === kind ? [position] : []));
        if (positions.length > 0) changes += await storeKind(client, kind, records, positions, plans);
      }
      if (changes > 0) await bumpCatalogVersion(client);
      const items = records.map((record, position) => {
        const plan = plans[position]!;
        return { kind: record.kind, databaseId: plan.id!, ids: { ...plan.ids } };
      });
      return { items, changes };
    },
    // Big offline files take a few seconds on a slow disk; Prisma's default 5 s would abort them.
    { maxWait: 30_000, timeout: 120_000 },
  );
}

/** Stores the records of one kind at `positions`, filling `plans`; returns rows written. */
async function storeKind(
  client: Prisma.TransactionClient,
  kind: MediaKind,
  records: CatalogRecord[],
  positions: number[],
  plans: ItemPlan[],
): Promise<number> {
  const sources = idSourcesByKind[kind];
  const items = table(client, kind);
  const matcher = createIdMatcher<ItemPlan>(sources, {
    get: (plan, source) => plan.ids[source],
    set: (plan, source, id) => void ((plan.ids as Record<string, unknown>)[source] = id),
  });

  // Load every existing row sharing any incoming id: a handful of queries, not one per record.
  for (const source of sources) {
    const wanted = [...new Set(positions.flatMap((position) => records[position]!.ids[source] ?? []))];
    for (const part of chunks(wanted, prismaListValues)) {
      for (const row of await items.findMany({ where: { [idColumn[source]]: { in: part } } })) matcher.addStored(row.id, planFromRow(kind, row));
    }
  }

  const created: ItemPlan[] = [];
  const create = () => {
    const plan: ItemPlan = { ids: {}, fields: {}, episodes: new Map(), episodesLoaded: true };
    created.push(plan);
    return plan;
  };
  for (const position of positions) {
    const record = records[position]!;
    const plan = matcher.match(record.ids, create)!.row;
    // The first record for an unconfirmed row starts from nothing: the file's values are not the catalog's.
    if (plan.stored?.owner != null && !plan.confirmed) {
      plan.confirmed = true;
      plan.fields = {};
    }
    const values = record as unknown as Record<string, string | number | null | undefined>;
    // A value the record leaves out (a provider that does not say a movie's runtime) stays as stored.
    for (const column of fieldColumns[kind]) if (values[column] !== undefined || !(column in plan.fields)) plan.fields[column] = values[column] ?? null;
    plans[position] = plan;
  }

  const touched = new Set(positions.map((position) => plans[position]!));
  if (kind !== 'show') return writeItems(items, kind, created, touched);
  const confirmed = [...touched].filter((plan) => plan.confirmed).map((plan) => plan.id!);
  let cleared = 0;
  for (const part of chunks(confirmed, prismaListValues)) {
    cleared += (await client.episode.updateMany({ where: { showId: { in: part } }, data: { title: null, airDate: null } })).count;
  }
  await planEpisodes(client, records, positions, plans);
  return cleared + (await writeItems(items, kind, created, touched)) + (await writeEpisodes(client, touched));
}

function planFromRow(kind: MediaKind, row: Row): ItemPlan {
  const ids: ExternalIds = {};
  for (const source of idSourcesByKind[kind]) {
    const value = row[idColumn[source]];
    if (typeof value === 'number' || typeof value === 'string') (ids as Record<string, unknown>)[source] = value;
  }
  const fields: Fields = {};
  for (const column of fieldColumns[kind]) fields[column] = (row[column] as string | number | null) ?? null;
  const stored = { ids: { ...ids }, fields: { ...fields }, owner: (row.ownerAccountId as number | null | undefined) ?? null };
  return { id: row.id, ids, fields, stored, episodes: new Map(), episodesLoaded: false };
}


/** Creates new rows and updates the changed columns of existing ones; returns rows written. */
async function writeItems(items: ItemTable, kind: MediaKind, created: ItemPlan[], touched: Set<ItemPlan>): Promise<number> {
  let changes = 0;
  const columnsOf = (plan: ItemPlan) => {
    const data: Record<string, unknown> = { ...plan.fields };
    for (const [source, id] of Object.entries(plan.ids)) data[idColumn[source as ItemIdSource]] = id;
    return data;
  };
  for (const part of chunks(created, prismaListValues)) {
    const rows = await items.createManyAndReturn({ data: part.map(columnsOf) });
    // RETURNING order is not promised; every new row has an id of its own to find it by.
    const byKey = new Map<string, number>();
    for (const row of rows) {
      for (const source of idSourcesByKind[kind]) byKey.set(`${source}:${String(row[idColumn[source]])}`, row.id);
    }
    for (const plan of part) {
      const [source, id] = Object.entries(plan.ids)[0]!;
      plan.id = byKey.get(`${source}:${id}`);
    }
    changes += rows.length;
  }
  for (const plan of touched) {
    if (!plan.stored) continue;
    const data: Record<string, unknown> = plan.confirmed ? { ownerAccountId: null } : {};
    for (const [column, value] of Object.entries(plan.fields)) if (plan.stored.fields[column] !== value) data[column] = value;
    for (const [source, id] of Object.entries(plan.ids)) {
      if (plan.stored.ids[source as ItemIdSource] !== id) data[idColumn[source as ItemIdSource]] = id;
    }
    if (Object.keys(data).length === 0) continue;
    await items.update({ where: { id: plan.id! }, data });
    changes += 1;
  }
  return changes;
}

/** Episodes a catalog gave for a show the store holds (catalog-lookups.ts). */
export interface ShowEpisodes {
  /** The show's database id. */
  showId: number;
  episodes: CatalogEpisode[];
}

/**
 * Stores `shows`' episodes onto their stored shows, by the rules above (matched by season and
 * number, gaining the ids they lack, never deleted), in one transaction, leaving each show's own
 * title, poster, overview and ids as they are: what a catalog answered about one season or one
 * episode of a show the store holds, without the show's record. A show no longer stored is
 * skipped. Returns the rows written (catalogVersion moves when there are any).
 */
export async function storeShowEpisodes(shows: ShowEpisodes[]): Promise<number> {
  const wanted = shows.filter((show) => show.episodes.length > 0);
  if (wanted.length === 0) return 0;
  return retryOnUniqueViolation(() =>
    db().$transaction(async (client) => {
      const rows = new Map<number, Row>();
      for (const part of chunks([...new Set(wanted.map((show) => show.showId))], prismaListValues)) {
        for (const row of await table(client, 'show').findMany({ where: { id: { in: part } } })) rows.set(row.id, row);
      }
      // One plan per show (several answers about one show merge); its fields are never written.
      const plans = new Map<number, ItemPlan>();
      const records: CatalogRecord[] = [];
      const planned: ItemPlan[] = [];
      for (const { showId, episodes } of wanted) {
        const row = rows.get(showId);
        if (!row) continue;
        let plan = plans.get(showId);
        if (!plan) plans.set(showId, (plan = planFromRow('show', row)));
        records.push({ kind: 'show', ids: plan.ids, title: String(row.title), poster: null, overview: null, episodes });
        planned.push(plan);
      }
      await planEpisodes(client, records, records.map((_, position) => position), planned);
      const changes = await writeEpisodes(client, new Set(plans.values()));
      if (changes > 0) await bumpCatalogVersion(client);
      return changes;
    }),
  );
}

/** The stored item that has `source`'s id `externalId`, or null (also for a source the kind lacks). */
export async function findCatalogItem(
  kind: MediaKind,
  source: CatalogSource,
  externalId: number,
): Promise<StoredCatalogItem | null> {
  if (!sourcesByKind[kind].includes(source)) return null;
  const row = await table(db(), kind).findUnique({ where: { [idColumn[source]]: externalId } });
  return row ? ({ ...row, kind } as StoredCatalogItem) : null;
}

/** The stored rows of `items` (kind and database id), in their order; unknown ones are left out. */
export async function findCatalogItemsById(items: { kind: MediaKind; databaseId: number }[]): Promise<StoredCatalogItem[]> {
  const found = new Map<string, StoredCatalogItem>();
  for (const kind of ['show', 'movie', 'game'] as const) {
    const wanted = [...new Set(items.flatMap((item) => (item.kind === kind ? [item.databaseId] : [])))];
    for (const part of chunks(wanted, prismaListValues)) {
      for (const row of await table(db(), kind).findMany({ where: { id: { in: part } } })) {
        found.set(`${kind}:${row.id}`, { ...row, kind } as StoredCatalogItem);
      }
    }
  }
  return items.flatMap((item) => found.get(`${item.kind}:${item.databaseId}`) ?? []);
}
