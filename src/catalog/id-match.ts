import type { ExternalIds, ItemIdSource } from './provider.ts';

/**
 * The catalog's match rule, for everything that finds or creates catalog rows by external ids (a
 * catalog refresh, catalog-store.ts; an import, imports/import-catalog.ts):
 * - an item matches a stored (or already planned) row by ANY shared external id, the first in
 *   source order when its ids point at two rows (tmdb says row A, tvdb row B: row A);
 * - it gains the ids it lacked, except one another row owns (row B keeps its tvdb id) and except
 *   where it would replace an id it has: ids are how libraries stay attached, so when catalogs
 *   disagree, what is stored is kept rather than guessed at.
 */
export interface IdMatcher<T> {
  /** Indexes a stored row under its ids; a row already indexed (found through another of its ids) is skipped. */
  addStored(rowId: number, row: T): void;
  /**
   * The row `ids` lead to, or `create()`'s new one when none (undefined: none is created); the row
   * gains the ids it may. `gained`: the sources whose ids it gained.
   */
  match(ids: ExternalIds, create: () => T | undefined): { row: T; gained: ItemIdSource[] } | undefined;
}

/** How the matcher reads and writes a row's ids (plans keep them in an object, bulk rows in columns). */
export interface IdAccess<T> {
  get(row: T, source: ItemIdSource): string | number | undefined;
  set(row: T, source: ItemIdSource, id: string | number): void;
}

/** A matcher over `sources` (a kind's id sources, idSourcesByKind: the order decides conflicts). */
export function createIdMatcher<T>(sources: readonly ItemIdSource[], access: IdAccess<T>): IdMatcher<T> {
  const owners = new Map<string, T>(); // `source:id` → the row that has that id
  const indexed = new Set<number>();
  const key = (source: ItemIdSource, id: string | number) => `${source}:${id}`;
  return {
    addStored(rowId, row) {
      if (indexed.has(rowId)) return;
      indexed.add(rowId);
      for (const source of sources) {
        const id = access.get(row, source);
        if (id !== undefined) owners.set(key(source, id), row);
      }
    },
    match(ids, create) {
      let row: T | undefined;
      for (const source of sources) {
        const id = ids[source];
        if (id !== undefined) row ??= owners.get(key(source, id));
      }
      row ??= create();
      if (row === undefined) return undefined;
      const gained: ItemIdSource[] = [];
      for (const source of sources) {
        const id = ids[source];
        // Skip an id another row owns (a conflict) or one that would replace the row's own id.
        if (id === undefined || owners.has(key(source, id)) || access.get(row, source) !== undefined) continue;
        access.set(row, source, id);
        owners.set(key(source, id), row);
        gained.push(source);
      }
      return { row, gained };
    },
  };
}
