import { storeCatalogRecords } from './catalog-store.ts';
import { hasMatchableId, idSourcesByKind, type CatalogGame, type CatalogMovie, type CatalogProvider } from './provider.ts';
import { inputLengths } from '../limits.ts';
import type { Warner } from '../log.ts';
import { exceedsLength } from '../value-bounds.ts';
import { releaseYear, titleYearKey } from './title-match.ts';

/** A movie or game known only by its title and release year (CatalogService.matchTitles). */
export interface TitleQuery {
  kind: 'movie' | 'game';
  title: string;
  year: number;
}

/** What matchTitles did: queries asked, answered by exactly one result, answered by several, failures. */
export interface MatchTitlesSummary {
  asked: number;
  found: number;
  ambiguous: number;
  /** Rows created or updated by storing the answers. */
  changes: number;
  failures: number;
}

/** The title to search for: trimmed, without a trailing " (YEAR)" of its own year (the catalog's title may not carry it). */
function searchText(title: string, year: number): string {
  const trimmed = title.trim();
  const suffix = ` (${year})`;
  const bare = trimmed.endsWith(suffix) ? trimmed.slice(0, -suffix.length).trim() : trimmed;
  return bare === '' ? trimmed : bare;
}

/** Records with distinct ids (a provider may list one item twice, as TMDB's pages do). */
function distinctRecords(records: (CatalogMovie | CatalogGame)[]): (CatalogMovie | CatalogGame)[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const keys = idSourcesByKind[record.kind].flatMap((source) => (record.ids[source] === undefined ? [] : [`${source}:${record.ids[source]}`]));
    const again = keys.some((key) => seen.has(key));
    for (const key of keys) seen.add(key);
    return !again;
  });
}

/**
 * CatalogService.matchTitles over `providers` (already brought within the catalog's bounds),
 * highest priority first: each query is searched for with its year as a hint, `concurrency` at a
 * time; the first provider whose results include any of the same title and year decides — exactly
 * one such result is the answer, several are none. Answers are stored together at the end (one
 * write, after every network call).
 */
export async function matchTitlesBySearch(
  providers: CatalogProvider[],
  logger: Warner,
  queries: TitleQuery[],
  concurrency: number,
): Promise<MatchTitlesSummary> {
  const records: (CatalogMovie | CatalogGame)[] = [];
  let [found, ambiguous, failures, next] = [0, 0, 0, 0];
  const worker = async () => {
    while (next < queries.length) {
      const query = queries[next++]!;
      const key = titleYearKey(query.title, query.year);
      const text = searchText(query.title, query.year);
      // A title no search may carry (CatalogService.search refuses it too) is not sent at all.
      if (text === '' || exceedsLength(text, inputLengths.searchQuery)) continue;
      for (const provider of providers) {
        let answer;
        try {
          answer = await provider.search(text, query.kind, { year: query.year });
        } catch (error) {
          logger.warn(`catalog provider ${provider.name}: search ${query.kind} "${text}" (${query.year}) failed: ${(error as Error).message}`);
          failures += 1;
          continue;
        }
        const same = distinctRecords(
          answer.filter(
            (record): record is CatalogMovie | CatalogGame =>
              record.kind !== 'show' &&
              record.kind === query.kind &&
              hasMatchableId(record) &&
              releaseYear(record.releaseDate) === query.year &&
              titleYearKey(record.title, query.year) === key,
          ),
        );
        if (same.length === 0) continue;
        if (same.length === 1) {
          records.push(same[0]!);
          found += 1;
        } else {
          ambiguous += 1;
        }
        break;
      }
    }
  };
  if (queries.length > 0) await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, queries.length)) }, worker));
  let changes = 0;
  try {
    if (records.length > 0) changes = (await storeCatalogRecords(records)).changes;
  } catch (error) {
    logger.warn(`catalog: storing ${records.length} record(s) matched by title failed: ${(error as Error).message}`);
  }
  return { asked: queries.length, found, ambiguous, changes, failures };
}
