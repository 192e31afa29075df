/**
 * The bounded in-memory caches of this process, by name, so /metrics shows what each keeps and
 * its bound (`airdate_cache_size` and `airdate_cache_max`, labelled by cache and unit; the list is
 * in docs/operations.md "Caches"). A cache registers itself where it is made; a later one under
 * the same name (another app in the same process, as in tests) takes the name over.
 */
export interface CacheSize {
  /** What the cache holds now, in `unit`. */
  size(): number;
  /** The most it may hold, in `unit`. */
  max: number;
  unit: 'entries' | 'bytes';
}

const caches = new Map<string, CacheSize>();

/** Makes `cache` visible in /metrics as `name`. */
export function registerCache(name: string, cache: CacheSize): void {
  caches.set(name, cache);
}

/** Every registered cache, by name (read at each scrape). */
export function registeredCaches(): ReadonlyMap<string, CacheSize> {
  return caches;
}
