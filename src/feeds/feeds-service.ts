import { localDate } from '../time/dates.ts';
import { computeFeeds } from './rules.ts';
import { showScans, snapshotOf } from './snapshot-cache.ts';
import type { Feeds } from './types.ts';
import { createAccountCache } from '../http/account-cache.ts';

/** What the feeds depend on besides the library: read with the token on every request. */
export interface FeedAccount {
  id: number;
  timezone: string;
  /** Bumped with every change to the account's library or settings. */
  feedVersion: number;
  /** Bumped with every change to the shared catalog. */
  catalogVersion: number;
}

/** The feeds and the account's local date they are for. */
export type AccountFeeds = Feeds & { date: string };

/** Accounts whose computed feeds are kept in memory. */
const cacheCapacity = 2_000;
const cache = createAccountCache<Promise<AccountFeeds>>(cacheCapacity, 'feeds');

/**
 * The key of everything derived from an account's feeds: they depend only on the library, the
 * catalog and the local date, and every write bumps one of the versions in its transaction.
 */
export function feedCacheKey(account: FeedAccount, now: Date = new Date()): string {
  return `${account.feedVersion}:${account.catalogVersion}:${localDate(account.timezone, now)}:${account.timezone}`;
}

/** The account's feeds for its local today, computed once per feed cache key. */
export function getFeeds(account: FeedAccount, now: Date = new Date()): Promise<AccountFeeds> {
  const key = feedCacheKey(account, now);
  const hit = cache.get(account.id, key);
  if (hit) return hit;
  const date = localDate(account.timezone, now);
  const feeds = snapshotOf(account).then((snapshot) => ({ ...computeFeeds(snapshot, date, showScans), date }));
  cache.set(account.id, key, feeds);
  feeds.catch(() => cache.forget(account.id, feeds));
  return feeds;
}
