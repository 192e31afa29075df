import { localDate } from '../feeds/dates.ts';
import { loadSnapshot } from '../feeds/load-snapshot.ts';
import { computeFeeds } from '../feeds/rules.ts';
import type { Feeds } from '../feeds/types.ts';

/** What the feeds depend on besides the library: read with the token on every request. */
export interface FeedAccount {
  id: number;
  timezone: string;
  /** Bumped with every change to the account's library or settings. */
  feedVersion: number;
  /** Bumped with every change to the shared catalog. */
  catalogVersion: number;
}


interface CacheEntry {
  key: string;
  feeds: Promise<Feeds & { date: string }>;
}

/** Accounts whose computed feeds are kept; the least recently used beyond this are dropped. */
const cacheCapacity = 2_000;
const cache = new Map<number, CacheEntry>();

/**
 * The account's feeds for its local today. The result depends only on the library, the catalog
 * and the local date, so it is cached under (feedVersion, catalogVersion, date, time zone): any
 * write bumps a version in the same transaction, which makes the cache right on every server
 * instance without messages between them.
 */
export async function getFeeds(account: FeedAccount, now: Date = new Date()): Promise<Feeds & { date: string }> {
  const date = localDate(account.timezone, now);
  const key = `${account.feedVersion}:${account.catalogVersion}:${date}:${account.timezone}`;
  const hit = cache.get(account.id);
  if (hit && hit.key === key) {
    cache.delete(account.id);
    cache.set(account.id, hit);
    return hit.feeds;
  }
  const feeds = loadSnapshot(account.id).then((snapshot) => ({ ...computeFeeds(snapshot, date), date }));
  cache.set(account.id, { key, feeds });
  feeds.catch(() => {
    if (cache.get(account.id)?.feeds === feeds) cache.delete(account.id);
  });
  if (cache.size > cacheCapacity) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return feeds;
}

/** Forgets every cached feed (benchmarks measure the uncached path with it). */
export function clearFeedCache(): void {
  cache.clear();
}
