import { registerCache } from '../metrics/cache-sizes.ts';

/**
 * A per-account cache holding one value per account under a version key, least recently used
 * first out. Keys are built from versions that every write bumps in its own transaction, so a
 * stale entry is never served, on any server instance.
 */
export interface AccountCache<T> {
  get(accountId: number, key: string): T | undefined;
  set(accountId: number, key: string, value: T): void;
  /** Drops the entry if it still holds `value` (a failed computation must not stay cached). */
  forget(accountId: number, value: T): void;
}

/** `name`: shown in /metrics (airdate_cache_size and airdate_cache_max, in accounts). */
export function createAccountCache<T>(capacity: number, name?: string): AccountCache<T> {
  const entries = new Map<number, { key: string; value: T }>();
  if (name !== undefined) registerCache(name, { size: () => entries.size, max: capacity, unit: 'entries' });
  return {
    get(accountId, key) {
      const entry = entries.get(accountId);
      if (!entry || entry.key !== key) return undefined;
      entries.delete(accountId);
      entries.set(accountId, entry);
      return entry.value;
    },
    set(accountId, key, value) {
      entries.delete(accountId);
      entries.set(accountId, { key, value });
      if (entries.size > capacity) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    forget(accountId, value) {
      if (entries.get(accountId)?.value === value) entries.delete(accountId);
    },
  };
}
