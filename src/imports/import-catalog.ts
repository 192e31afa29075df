import { episodeIdSources, idColumn, idSourcesByKind, sourcesByKind, type ItemIdSource, type MediaKind } from '../catalog/provider.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { ImportEpisodeIds, ImportEpisodeRef, ImportShow, ImportTitle } from './sources/import-document.ts';
import { insertRowsReturning, selectIn } from '../db/bulk-sql.ts';
import { storedByTitleAndYear, titleYearKey } from '../catalog/title-match.ts';
import { createIdMatcher } from '../catalog/id-match.ts';

/**
 * The catalog side of an import, inside the import's transaction: finds the catalog row of every
 * item by ANY shared external id (the catalog's match rule, src/catalog/id-match.ts, which the catalog store follows too: tmdb,
 * tvdb, imdb for shows and movies; igdb, giantbomb for games), and creates rows from the file's ids
 * and titles for items no catalog knows yet, so they are kept and refreshed later. A row is only
 * created for an item with an id a refresh can ask a catalog about (sourcesByKind: tmdb/tvdb for
 * shows, tmdb for movies, igdb for games); one known only by imdb, a movie's tvdb or giantbomb is
 * found among stored rows (the pre-pass, import-prepass.ts, asked the catalogs for it before the
 * transaction) or left unmatched. Movies and games with no id at all but a title and a year are
 * matched by that exact title (trimmed, case-insensitive, title-match.ts) and release year when exactly one
 * stored row has them, never created. Unlike storeCatalogRecords it never overwrites what is stored: a file's title
 * or a missing poster must not replace a catalog's data. It only adds what is missing: rows, ids
 * a matched row lacks (when no other row has them) and episodes by (show, season, number).
 *
 * What a file says is the importing account's alone (db/catalog-visibility.ts): a row it creates is
 * owned by that account (ownerAccountId) until a catalog confirms it; another account's such row is
 * never matched (its item is unmatched, kept as pending and retried once a catalog has answered for
 * it); and an episode created under a shared show takes the file's numbers and ids, never its
 * title or air date (other followers see the show's episodes; a catalog fills them in).
 */

type Tx = Prisma.TransactionClient;
type Row = { id: number } & Record<string, unknown>;

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

/**
 * Finds or creates the catalog rows of `items` (all of one kind) for `accountId`'s import; new rows
 * are stamped `now`, the import's time, and owned by the account until a catalog confirms them.
 */
export async function resolveItems(tx: Tx, kind: MediaKind, items: (ImportShow | ImportTitle)[], now: Date, accountId: number): Promise<Resolved> {
  const sources = idSourcesByKind[kind];
  const creatable = sourcesByKind[kind];
  const rows = table(tx, kind);
  // Rows (stored, or planned when id < 0) matched by the catalog's rule (catalog/id-match.ts).
  const matcher = createIdMatcher<Row>(sources, {
    get: (row, source) => (row[idColumn[source]] as string | number | null | undefined) ?? undefined,
    set: (row, source, id) => void (row[idColumn[source]] = id),
  });
  const columns = ['id', ...sources.map((source) => idColumn[source])];
  // Another account's unconfirmed rows are matched (their ids are taken) but never used.
  const othersRows = new Set<number>();
  for (const source of sources) {
    const wanted = [...new Set(items.flatMap((item) => item.ids[source] ?? []))];
    for (const row of await selectIn<Row>(tx, tableName[kind], [...columns, 'ownerAccountId'], idColumn[source], wanted)) {
      if (row.ownerAccountId != null && Number(row.ownerAccountId) !== accountId) othersRows.add(row.id);
      delete row.ownerAccountId;
      matcher.addStored(row.id, row);
    }
  }
  const planned: { row: Row; item: ImportShow | ImportTitle }[] = [];
  const gained = new Set<Row>();
  const matched = items.map((item) => {
    if (!sources.some((source) => item.ids[source] !== undefined)) return undefined;
    // A row is created only for an item a refresh can ask a catalog about; it keeps every id of the file.
    const create = () => {
      if (!creatable.some((source) => item.ids[source] !== undefined)) return undefined;
      const row: Row = { id: -(planned.length + 1) };
      planned.push({ row, item });
      return row;
    };
    const found = matcher.match(item.ids, create);
    if (found && othersRows.has(found.row.id)) return undefined;
    // A stored row gains the ids it lacks.
    if (found && found.row.id > 0 && found.gained.length > 0) gained.add(found.row);
    return found?.row;
  });

  let changes = 0;
  if (planned.length > 0) {
    // Inserted in bulk; each new row is known again by its first id (new rows have ids no other row has).
    const fields = kind === 'show' ? ['title', 'poster', 'overview'] : ['title', 'poster', 'overview', 'releaseDate'];
    const values = planned.map(({ row, item }) => [...sources.map((source) => row[idColumn[source]] ?? null), ...fieldsOf(item, fields), accountId, now, now]);
    const created = await insertRowsReturning<Row>(tx, tableName[kind], [...sources.map((source) => idColumn[source]), ...fields, 'ownerAccountId', 'createdAt', 'updatedAt'], values, columns);
    changes += created.length;
    const pending = new Map<string, Row>();
    for (const { row } of planned) pending.set(firstIdKey(row, sources), row);
    for (const stored of created) pending.get(firstIdKey(stored, sources))!.id = stored.id;
  }
  for (const row of gained) {
    await rows.update({ where: { id: row.id }, data: idsOf(row, sources) });
    changes += 1;
  }
  const ids = matched.map((row) => row?.id);
  if (kind !== 'show') await matchByTitleAndYear(tx, kind, items, ids, accountId);
  return { ids, changes };
}

/**
 * Fills in `ids` (undefined entries only) of the movies or games no id matched (they have none, or
 * only ids no row has) but that have a title and a year (Letterboxd films, Grouvee games without
 * ids or with a Giant Bomb id IGDB does not know): the one stored row with the same
 * title and a release date in that year (title-match.ts: trimmed, case-folded, a trailing
 * " (YEAR)" ignored). Two rows with that title and year (a game and its remake, two platforms'
 * entries) match neither: a wrong merge is worse than a reported item.
 */
async function matchByTitleAndYear(tx: Tx, kind: 'movie' | 'game', items: (ImportShow | ImportTitle)[], ids: (number | undefined)[], accountId: number): Promise<void> {
  const wanted = items.flatMap((item, index) => {
    const { year } = item;
    // Not matched by an id (it has none, or only ids no row has: a giantbomb id IGDB does not know).
    return ids[index] === undefined && year !== undefined && item.title.trim() !== '' ? [{ index, year, title: item.title }] : [];
  });
  if (wanted.length === 0) return;
  const candidates = await storedByTitleAndYear(tx, kind, wanted, accountId);
  const single = wanted.flatMap((entry) => {
    const found = candidates.get(titleYearKey(entry.title, entry.year));
    return found?.length === 1 ? [{ ...entry, id: found[0]! }] : [];
  });
  if (single.length === 0) return;
  // A row with another id of the same catalog is another game or film of the same name and year
  // (Grouvee's two "Remade Classic"s with their own Giant Bomb ids): never merged.
  const sources = idSourcesByKind[kind];
  const stored = new Map<number, Row>();
  for (const row of await selectIn<Row>(tx, tableName[kind], ['id', ...sources.map((source) => idColumn[source])], 'id', [...new Set(single.map((entry) => entry.id))])) stored.set(Number(row.id), row);
  for (const { index, id } of single) {
    const row = stored.get(id);
    const item = items[index]!;
    const conflicts = sources.some((source) => item.ids[source] !== undefined && row?.[idColumn[source]] != null && row[idColumn[source]] !== item.ids[source]);
    if (row && !conflicts) ids[index] = id;
  }
}

/** `source:id` of the row's first external id (planned rows always have one). */
function firstIdKey(row: Row, sources: readonly ItemIdSource[]): string {
  const source = sources.find((candidate) => row[idColumn[candidate]] != null)!;
  return `${source}:${row[idColumn[source]]}`;
}

function idsOf(row: Row, sources: readonly ItemIdSource[]): Record<string, unknown> {
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
  /** The episode's own ids from the file: stored where the row has none (never replacing one). */
  ids?: ImportEpisodeIds;
}

type EpisodeRow = { id: number; showId: number; season: number; number: number; tvdbId: number | null; tmdbId: number | null; imdbId: string | null };

const episodeColumns = ['id', 'showId', 'season', 'number', 'tvdbId', 'tmdbId', 'imdbId'] as const;

export const episodeKey = (showId: number, season: number, number: number): string => `${showId}:${season}:${number}`;

/**
 * Database ids of `wanted` episodes by episodeKey, creating the ones the catalog lacks (with the
 * file's ids, and its title and air date under a show `accountId` owns: under a shared one they
 * stay null, see above). Episode ids the file gives are added to rows that lack them,
 * unless another episode has them (they are unique; the catalog's answer is kept). A few queries
 * per batch of shows, never one per episode; one UPDATE per episode that gains ids.
 */
export async function resolveEpisodes(tx: Tx, wanted: WantedEpisode[], now: Date, accountId: number): Promise<{ ids: Map<string, number>; changes: number }> {
  const ids = new Map<string, number>();
  const rows = new Map<string, EpisodeRow>();
  const showIds = [...new Set(wanted.map((episode) => episode.showId))];
  for (const row of await selectIn<EpisodeRow>(tx, 'Episode', episodeColumns, 'showId', showIds)) {
    const key = episodeKey(row.showId, row.season, row.number);
    ids.set(key, row.id);
    rows.set(key, row);
  }
  const owned = await episodeIdOwners(tx, wanted.flatMap((episode) => (episode.ids ? [episode.ids] : [])));
  /** The ids of `episode` no episode has yet, claimed for it. */
  const claim = (episode: WantedEpisode, has: (source: keyof ImportEpisodeIds) => boolean): Record<string, unknown> => {
    const gained: Record<string, unknown> = {};
    for (const source of episodeIdSources) {
      const id = episode.ids?.[source];
      if (id === undefined || has(source) || owned.has(`${source}:${id}`)) continue;
      gained[idColumn[source]] = id;
      owned.set(`${source}:${id}`, -1);
    }
    return gained;
  };
  const gainedIds: { id: number; ids: Record<string, unknown> }[] = [];
  const missing = new Map<string, { episode: WantedEpisode; ids: Record<string, unknown> }>();
  for (const episode of wanted) {
    const key = episodeKey(episode.showId, episode.season, episode.number);
    const row = rows.get(key);
    if (row) {
      if (!episode.ids) continue;
      const gained = claim(episode, (source) => row[idColumn[source]] != null);
      if (Object.keys(gained).length === 0) continue;
      Object.assign(row, gained);
      gainedIds.push({ id: row.id, ids: gained });
    } else {
      const planned = missing.get(key);
      if (planned) Object.assign(planned.ids, claim(episode, (source) => planned.ids[idColumn[source]] != null));
      else missing.set(key, { episode, ids: claim(episode, () => false) });
    }
  }
  let changes = await updateEpisodeIds(tx, gainedIds, now);
  if (missing.size === 0) return { ids, changes };
  const ownShows = new Set<number>();
  for (const row of await selectIn<{ id: number; ownerAccountId: number | null }>(tx, 'Show', ['id', 'ownerAccountId'], 'id', showIds)) {
    if (row.ownerAccountId != null && Number(row.ownerAccountId) === accountId) ownShows.add(Number(row.id));
  }
  // A big import creates tens of thousands of episodes: multi-row INSERTs that return the new ids
  // (createManyAndReturn costs ~0.5 ms a row).
  const values = [...missing.values()].map(({ episode, ids: gained }) => [
    episode.showId, episode.season, episode.number,
    ownShows.has(episode.showId) ? episode.title : null, ownShows.has(episode.showId) ? episode.airDate : null,
    gained.tvdbId ?? null, gained.tmdbId ?? null, gained.imdbId ?? null, now, now,
  ]);
  const columns = ['showId', 'season', 'number', 'title', 'airDate', 'tvdbId', 'tmdbId', 'imdbId', 'createdAt', 'updatedAt'];
  const created = await insertRowsReturning<EpisodeRow>(tx, 'Episode', columns, values, ['id', 'showId', 'season', 'number']);
  for (const row of created) ids.set(episodeKey(row.showId, row.season, row.number), row.id);
  return { ids, changes: changes + created.length };
}

/** Rows per UPDATE of episode ids: 7 parameters a row, inside SQLite's 999. */
const idUpdateRows = 100;

/**
 * Sets the gained ids (columns tvdbId, tmdbId, imdbId) of stored episodes, `idUpdateRows` rows a
 * statement (`CASE "id" WHEN … THEN …`): a TV Time export gives every episode's id, and one
 * UPDATE per episode was one statement per row of the file. A column an episode gains nothing
 * for keeps its value (ELSE). Values are cast so PostgreSQL does not read them as text.
 */
async function updateEpisodeIds(tx: Tx, updates: { id: number; ids: Record<string, unknown> }[], now: Date): Promise<number> {
  const columns = [
    { name: 'tvdbId', type: 'INTEGER' },
    { name: 'tmdbId', type: 'INTEGER' },
    { name: 'imdbId', type: 'TEXT' },
  ];
  for (let start = 0; start < updates.length; start += idUpdateRows) {
    const part = updates.slice(start, start + idUpdateRows);
    const sets = columns.flatMap(({ name, type }) => {
      const rows = part.filter((update) => update.ids[name] !== undefined);
      if (rows.length === 0) return [];
      const cases = rows.map((update) => Prisma.sql`WHEN ${update.id} THEN CAST(${update.ids[name]} AS ${Prisma.raw(type)})`);
      return [Prisma.sql`${Prisma.raw(`"${name}"`)} = CASE "id" ${Prisma.join(cases, ' ')} ELSE ${Prisma.raw(`"${name}"`)} END`];
    });
    await tx.$executeRaw`UPDATE "Episode" SET ${Prisma.join(sets, ', ')}, "updatedAt" = ${now} WHERE "id" IN (${Prisma.join(part.map((update) => update.id))})`;
  }
  return updates.length;
}

/** `source:id` → the stored episode that has it, for every id in `wanted`. */
async function episodeIdOwners(tx: Tx, wanted: ImportEpisodeIds[]): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  for (const source of episodeIdSources) {
    const values = [...new Set(wanted.flatMap((ids) => ids[source] ?? []))];
    if (values.length === 0) continue;
    for (const row of await selectIn<Record<string, unknown> & { id: number }>(tx, 'Episode', ['id', idColumn[source]], idColumn[source], values)) {
      owners.set(`${source}:${row[idColumn[source]]}`, row.id);
    }
  }
  return owners;
}

/** A reference resolved to a stored episode. */
export interface ResolvedRef {
  episodeId: number;
  showId: number;
}

/**
 * The stored episode of each reference (undefined: none has any of its ids), by Episode.tvdbId,
 * tmdbId, imdbId in that order. The pre-pass (import-prepass.ts) stored what the catalogs knew of
 * them before the transaction began.
 */
export async function resolveEpisodeRefs(tx: Tx, refs: ImportEpisodeRef[], accountId: number): Promise<(ResolvedRef | undefined)[]> {
  const owners = new Map<string, ResolvedRef>();
  for (const source of episodeIdSources) {
    const values = [...new Set(refs.flatMap((ref) => ref.ids[source] ?? []))];
    if (values.length === 0) continue;
    const rows = await selectIn<Record<string, unknown> & { id: number; showId: number }>(tx, 'Episode', ['id', 'showId', idColumn[source]], idColumn[source], values);
    for (const row of rows) owners.set(`${source}:${row[idColumn[source]]}`, { episodeId: row.id, showId: row.showId });
  }
  // An episode of another account's unconfirmed show resolves to nothing (db/catalog-visibility.ts).
  const shows = [...new Set([...owners.values()].map((found) => Number(found.showId)))];
  for (const row of await selectIn<{ id: number; ownerAccountId: number | null }>(tx, 'Show', ['id', 'ownerAccountId'], 'id', shows)) {
    if (row.ownerAccountId == null || Number(row.ownerAccountId) === accountId) continue;
    for (const [key, found] of owners) if (Number(found.showId) === Number(row.id)) owners.delete(key);
  }
  return refs.map((ref) => {
    for (const source of episodeIdSources) {
      const found = ref.ids[source] === undefined ? undefined : owners.get(`${source}:${ref.ids[source]}`);
      if (found) return found;
    }
    return undefined;
  });
}
