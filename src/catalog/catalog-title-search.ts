import { CatalogBudgetSpent, type CatalogBudget } from './catalog-budget.ts';
import { runInBackground } from './catalog-caller.ts';
import { storeCatalogRecords } from './catalog-store.ts';
import type { LookupCache, Remembered } from './lookup-cache.ts';
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
  /** Titles a network catalog that could answer was not asked about: the caller's budget was spent. */
  unasked: number;
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
 * write, after every network call). A network catalog's answer (one, none, several) is remembered
 * (lookup-cache.ts), so the same title and year is not searched again for a while; each search
 * sent is charged to `options.budget`, after people's searches (catalog-caller.ts).
 */
export async function matchTitlesBySearch(
  deps: { providers: CatalogProvider[]; logger: Warner; cache: LookupCache },
  queries: TitleQuery[],
  concurrency: number,
  options: { budget?: CatalogBudget } = {},
): Promise<MatchTitlesSummary> {
  const { providers, logger, cache } = deps;
  const budget = options.budget;
  const records: (CatalogMovie | CatalogGame)[] = [];
  /** Cache keys of the matches, remembered once stored. */
  const foundKeys: string[] = [];
  let [found, ambiguous, failures, unasked, next] = [0, 0, 0, 0, 0];

  /** What `provider` answers: a match, none, several, or no answer (a failure, a spent budget). */
  async function searchOne(provider: CatalogProvider, query: TitleQuery, text: string, key: string): Promise<{ answer: Remembered; record?: CatalogMovie | CatalogGame } | 'failed' | 'spent'> {
    let answer;
    try {
      answer = await provider.search(text, query.kind, { year: query.year });
    } catch (error) {
      if (error instanceof CatalogBudgetSpent) return 'spent';
      logger.warn(`catalog provider ${provider.name}: search ${query.kind} "${text}" (${query.year}) failed: ${(error as Error).message}`);
      return 'failed';
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
    if (same.length === 0) return { answer: 'missing' };
    return same.length === 1 ? { answer: 'found', record: same[0]! } : { answer: 'ambiguous' };
  }

  const worker = async () => {
    while (next < queries.length) {
      const query = queries[next++]!;
      const key = titleYearKey(query.title, query.year);
      const text = searchText(query.title, query.year);
      // A title no search may carry (CatalogService.search refuses it too) is not sent at all.
      if (text === '' || exceedsLength(text, inputLengths.searchQuery)) continue;
      let spent = false;
      for (const provider of providers) {
        const cacheKey = `${provider.name}:title:${query.kind}:${key}`;
        let result = provider.local ? undefined : cache.get(cacheKey);
        let record: CatalogMovie | CatalogGame | undefined;
        if (result === undefined) {
          if (!provider.local && budget && !budget.hasRoom()) {
            spent = true;
            continue;
          }
          const searched = await searchOne(provider, query, text, key);
          if (searched === 'failed') failures += 1;
          if (searched === 'spent') spent = true;
          if (typeof searched === 'string') continue;
          result = searched.answer;
          record = searched.record;
          if (!provider.local && result !== 'found') cache.remember(cacheKey, result);
          if (!provider.local && record) foundKeys.push(cacheKey);
        }
        if (result === 'missing') continue;
        spent = false;
        if (result === 'ambiguous') ambiguous += 1;
        else {
          if (record) records.push(record);
          found += 1;
        }
        break;
      }
      if (spent) unasked += 1;
    }
  };
  await runInBackground(budget, queries.length, concurrency, worker);
  let changes = 0;
  try {
    if (records.length > 0) changes = (await storeCatalogRecords(records)).changes;
    for (const cacheKey of foundKeys) cache.remember(cacheKey, 'found');
  } catch (error) {
    logger.warn(`catalog: storing ${records.length} record(s) matched by title failed: ${(error as Error).message}`);
  }
  return { asked: queries.length, found, ambiguous, changes, failures, unasked };
}
