import { chunks, prismaListValues } from '../db/limits.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { visibleSql } from '../db/catalog-visibility.ts';

/**
 * Matching by title and release year, for import items with no usable id (Letterboxd films,
 * Grouvee games without ids, TV Time movies with a release date). One rule everywhere — the
 * import's catalog pre-pass judging a catalog's search answer (import-prepass.ts) and the
 * transaction matching stored rows (import-catalog.ts) — so that what the pre-pass accepted and
 * stored is exactly the row the transaction then finds.
 *
 * The title is trimmed and case-folded; a trailing " (YEAR)" with the item's own year is removed
 * (Letterboxd and TMDB disambiguate remakes that way on either side: "Dune (2021)" in one is
 * "Dune" in the other). Nothing fuzzier: a wrong merge is worse than a reported item.
 */
export function titleYearKey(title: string, year: number): string {
  const folded = title.trim().toLocaleLowerCase();
  const suffix = ` (${year})`;
  const bare = folded.endsWith(suffix) ? folded.slice(0, -suffix.length).trim() : folded;
  return `${bare === '' ? folded : bare}|${year}`;
}

/** The release year of a YYYY-MM-DD date, or undefined. */
export function releaseYear(date: string | null | undefined): number | undefined {
  const year = date ? Number(date.slice(0, 4)) : NaN;
  return Number.isInteger(year) ? year : undefined;
}

/** What is read from a client: a transaction or the database itself. */
type Client = Pick<Prisma.TransactionClient, '$queryRaw'>;

/**
 * The stored movies or games for each wanted title and year, by titleYearKey: ids of every row
 * with that key (more than one means the title is ambiguous and matches nothing). Rows are read
 * by `lower(trim(title))` or the exact trimmed title, each with and without the " (YEAR)" suffix
 * (SQLite's lower() folds ASCII letters only), and compared again here with full case folding.
 * Only rows `viewerId` may see (db/catalog-visibility.ts) are candidates.
 */
export async function storedByTitleAndYear(client: Client, kind: 'movie' | 'game', wanted: { title: string; year: number }[], viewerId: number): Promise<Map<string, number[]>> {
  const candidates = new Map<string, number[]>();
  const texts = new Set<string>();
  for (const { title, year } of wanted) {
    const trimmed = title.trim();
    const suffix = ` (${year})`;
    const bare = trimmed.endsWith(suffix) ? trimmed.slice(0, -suffix.length).trim() : trimmed;
    for (const text of [bare, `${bare}${suffix}`]) {
      texts.add(text);
      texts.add(text.toLocaleLowerCase());
    }
  }
  if (texts.size === 0) return candidates;
  for (const part of chunks([...texts], prismaListValues / 2)) {
    const rows = await client.$queryRaw<{ id: number; title: string; releaseDate: string | null }[]>`
      SELECT "id", "title", "releaseDate" FROM ${Prisma.raw(`"${kind === 'movie' ? 'Movie' : 'Game'}"`)}
      WHERE (lower(trim("title")) IN (${Prisma.join(part)}) OR trim("title") IN (${Prisma.join(part)})) AND ${visibleSql(viewerId)}`;
    for (const row of rows) {
      const year = releaseYear(row.releaseDate);
      if (year === undefined) continue;
      const key = titleYearKey(row.title, year);
      const same = candidates.get(key) ?? [];
      if (!same.includes(Number(row.id))) same.push(Number(row.id));
      candidates.set(key, same);
    }
  }
  return candidates;
}
