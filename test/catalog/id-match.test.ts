import { describe, expect, it } from 'vitest';
import { createIdMatcher } from '../../src/catalog/id-match.ts';
import type { ExternalIds, ItemIdSource } from '../../src/catalog/provider.ts';

/** Rows as plans: an id and the external ids. */
type Row = { id: number; ids: ExternalIds };
const sources: ItemIdSource[] = ['tmdb', 'tvdb', 'imdb'];
const matcherOver = (...stored: Row[]) => {
  const matcher = createIdMatcher<Row>(sources, {
    get: (row, source) => row.ids[source],
    set: (row, source, id) => void ((row.ids as Record<string, unknown>)[source] = id),
  });
  for (const row of stored) matcher.addStored(row.id, row);
  return matcher;
};
const none = () => undefined;

describe('the catalog match rule (src/catalog/id-match.ts)', () => {
  it('matches by any shared id, and the row gains the ids it lacked', () => {
    const row: Row = { id: 1, ids: { tvdb: 81189 } };
    const found = matcherOver(row).match({ tmdb: 1396, tvdb: 81189, imdb: 'tt0903747' }, none);
    expect(found?.row).toBe(row);
    expect(found?.gained).toEqual(['tmdb', 'imdb']);
    expect(row.ids).toEqual({ tvdb: 81189, tmdb: 1396, imdb: 'tt0903747' });
  });

  it('takes the first match in source order when the ids point at two rows; the other keeps its id', () => {
    const a: Row = { id: 1, ids: { tmdb: 10 } };
    const b: Row = { id: 2, ids: { tvdb: 20 } };
    const found = matcherOver(b, a).match({ tmdb: 10, tvdb: 20 }, none);
    expect(found?.row).toBe(a);
    expect(found?.gained).toEqual([]);
    expect(a.ids).toEqual({ tmdb: 10 });
    expect(b.ids).toEqual({ tvdb: 20 });
  });

  it('never replaces an id a row has', () => {
    const row: Row = { id: 1, ids: { tmdb: 10, tvdb: 20 } };
    const found = matcherOver(row).match({ tvdb: 20, tmdb: 11 }, none);
    expect(found?.row).toBe(row);
    expect(row.ids.tmdb).toBe(10);
  });

  it('creates through `create` when nothing matches (or finds nothing when it creates nothing), and later items match the new row', () => {
    const matcher = matcherOver({ id: 1, ids: { tmdb: 10 } });
    expect(matcher.match({ tmdb: 99 }, none)).toBeUndefined();
    const created: Row[] = [];
    const create = () => {
      const row: Row = { id: -1, ids: {} };
      created.push(row);
      return row;
    };
    const first = matcher.match({ tmdb: 99, imdb: 'tt1' }, create);
    expect(first?.row.ids).toEqual({ tmdb: 99, imdb: 'tt1' });
    expect(matcher.match({ imdb: 'tt1' }, create)?.row).toBe(first?.row);
    expect(created).toHaveLength(1);
  });

  it('indexes a stored row once, however many of its ids found it', () => {
    const row: Row = { id: 7, ids: { tmdb: 1, tvdb: 2 } };
    const again: Row = { id: 7, ids: { tmdb: 1, tvdb: 2 } };
    const matcher = matcherOver(row, again);
    expect(matcher.match({ tvdb: 2 }, none)?.row).toBe(row);
  });
});
