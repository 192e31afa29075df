import { registerCache } from '../metrics/cache-sizes.ts';

/**
 * What the network catalogs answered to the lookups of deliveries and imports (an id, a title and
 * year, a stored show's season), so that asking again costs no request:
 * - `found`: the answer is stored in the catalog tables; kept `foundMs` (a day). The stored rows
 *   answer the next delivery by themselves; this keeps an id whose answer the store could not use
 *   (an episode id another episode holds) from being asked again and again.
 * - `missing`: the catalog does not know it; kept `missingMs` (6 hours). Catalogs learn new shows
 *   and episode ids a few times a day (TMDB's and TheTVDB's daily changes), so an id nobody knew is
 *   asked again at most four times a day however many deliveries, retries (every sync and the
 *   30-minute refresh) and imports name it, and a show added since is matched within hours.
 * - `ambiguous`: a title search with several results of that title and year; kept as `missing`.
 * Only catalogs' answers are kept: a lookup that failed (network, 5xx) or was not sent (a spent
 * budget, catalog-budget.ts) keeps nothing, and is asked again next time. The offline file is
 * never cached (asking it sends nothing).
 *
 * Shared by every account: a key is a catalog's name and what it was asked (`tmdb:episode:tvdb:42`),
 * the value whether it knew it. Nothing of an account (who asked, its library, its titles' matches
 * among followed shows) is kept here. Identical lookups under way at once share one request.
 *
 * Bounded: at most `lookupsKept` entries (~150 bytes each, ~3 MB), the least recently used
 * dropped first; per process, like the catalogs' rate limits.
 */
export type Remembered = 'found' | 'missing' | 'ambiguous';

export const lookupCacheTimes = { foundMs: 24 * 3_600_000, missingMs: 6 * 3_600_000 } as const;

/** Most answers kept (see above). */
export const lookupsKept = 20_000;

export interface LookupCache {
  /** What the catalog answered to `key` lately, or undefined (never asked, expired, or not kept). */
  get(key: string): Remembered | undefined;
  /** Keeps the catalog's answer to `key`. */
  remember(key: string, answer: Remembered): void;
  /**
   * `ask()`, unless the same `key` is being asked already: then that one's result, with `shared`
   * true (its caller's budget paid for it; a caller that got a result it cannot use, such as a
   * spent budget, asks again itself).
   */
  shared<T>(key: string, ask: () => Promise<T>): Promise<{ value: T; shared: boolean }>;
}

/** The cache of one catalog service; `now` for tests. */
export function createLookupCache(now: () => number = Date.now): LookupCache {
  const entries = new Map<string, { answer: Remembered; until: number }>();
  const asking = new Map<string, Promise<unknown>>();
  registerCache('catalog-lookups', { size: () => entries.size, max: lookupsKept, unit: 'entries' });
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.until <= now()) return undefined;
      entries.set(key, entry);
      return entry.answer;
    },
    remember(key, answer) {
      entries.delete(key);
      entries.set(key, { answer, until: now() + (answer === 'found' ? lookupCacheTimes.foundMs : lookupCacheTimes.missingMs) });
      if (entries.size > lookupsKept) entries.delete(entries.keys().next().value!);
    },
    async shared<T>(key: string, ask: () => Promise<T>) {
      const running = asking.get(key) as Promise<T> | undefined;
      if (running) return { value: await running, shared: true };
      const started = ask().finally(() => asking.delete(key));
      asking.set(key, started);
      return { value: await started, shared: false };
    },
  };
}
