import type { GaugeSource } from '../metrics/metrics.ts';
import { databaseGeneration } from '../db/client.ts';
import { asEpochMs } from '../db/fast-read.ts';
import type { WatchKind } from '../db/fast-write.ts';
import { loadSnapshot, type LoadedSnapshot } from './load-snapshot.ts';
import type { ShowScans } from './rules.ts';
import type { LibrarySnapshot, SnapshotShow } from './types.ts';
import { registerCache } from '../metrics/cache-sizes.ts';

/**
 * Each account's library snapshot kept between writes, so the summary right after a watched
 * toggle does not read the library again (issue 14: the reading and building were ~7 of a cold
 * summary's 11 ms at 500 shows). A toggle committed by this process is applied to the kept
 * snapshot; anything else — a follow or archive change, an import, a settings change, another
 * instance's write, a catalog refresh — leaves a version the snapshot does not carry, and the next
 * read loads it again.
 *
 * Why applying is exact: every change to what a snapshot holds bumps the account's feed version
 * in its own transaction, and a toggle's writer returns the version its bump set. The snapshot at
 * version v with the toggle that set v + 1 applied is the library at v + 1; a toggle whose version
 * is not the next one (missed, reordered, or someone else's in between) drops the snapshot instead.
 * A snapshot is labelled with the version read before loading it, so it may already hold a later
 * change; toggles set a value rather than flip it, so applying such a change again is harmless,
 * and once the later versions are applied the snapshot is exact again (the cache of computed
 * feeds had the same property before: a body is never older than its key).
 */

/**
 * Episodes held by all kept snapshots together at most (about 100 bytes each): past it the least
 * recently read account's snapshot goes first; the snapshot just kept always stays.
 */
export const defaultSnapshotEpisodeCapacity = 400_000;
let episodeCapacity = defaultSnapshotEpisodeCapacity;

interface Entry {
  generation: number;
  feedVersion: number;
  catalogVersion: number;
  loaded: LoadedSnapshot;
  episodes: number;
}

/** What the snapshot of an account depends on, as the token check reads it. */
export interface SnapshotAccount {
  id: number;
  feedVersion: number;
  catalogVersion: number;
}

const entries = new Map<number, Entry>();
let keptEpisodes = 0;
registerCache('feed-snapshot-episodes', { size: () => keptEpisodes, get max() { return episodeCapacity; }, unit: 'entries' });

/**
 * What each show of a kept snapshot adds to the feeds (computeFeeds' memo): a toggle deletes its
 * show's scan, so the feeds right after it scan one show, not the 25 000 episodes of 500.
 */
export const showScans: ShowScans = new WeakMap();

function drop(accountId: number): void {
  const entry = entries.get(accountId);
  if (entry === undefined) return;
  entries.delete(accountId);
  keptEpisodes -= entry.episodes;
}

/** Drops the least recently read snapshots until the rest fit, keeping `newest`'s. */
function fit(newest?: number): void {
  for (const [oldest] of entries) {
    if (keptEpisodes <= episodeCapacity || oldest === newest) break;
    drop(oldest);
  }
}

function keep(accountId: number, entry: Entry): void {
  drop(accountId);
  entries.set(accountId, entry);
  keptEpisodes += entry.episodes;
  fit(accountId);
}

/** How many accounts' snapshots are kept, and their episodes together. */
export function keptSnapshots(): { accounts: number; episodes: number } {
  return { accounts: entries.size, episodes: keptEpisodes };
}

/** The kept snapshots on /metrics (the app passes these to createMetrics). */
export const snapshotGauges: readonly GaugeSource[] = [
  { name: 'airdate_feed_snapshots', help: 'Accounts whose library snapshot this process keeps for the feeds.', read: () => entries.size },
  {
    name: 'airdate_feed_snapshot_episodes',
    help: 'Episodes held by the kept library snapshots together (bounded; least recently read account dropped first).',
    read: () => keptEpisodes,
  },
];

/** Sets the episode capacity (tests; the default suits a server), dropping what no longer fits. */
export function setSnapshotEpisodeCapacity(episodes: number): void {
  episodeCapacity = episodes;
  fit();
}

/**
 * The account's snapshot at `account.feedVersion`, kept from earlier or loaded now. Callers read
 * it synchronously (the feed rules) and never keep it: a later toggle changes it in place.
 */
export async function snapshotOf(account: SnapshotAccount): Promise<LibrarySnapshot> {
  const generation = databaseGeneration();
  const entry = entries.get(account.id);
  if (entry && sameLibrary(entry, generation, account) && entry.feedVersion === account.feedVersion) {
    entries.delete(account.id);
    entries.set(account.id, entry);
    return entry.loaded.snapshot;
  }
  const loaded = await loadSnapshot(account.id, account.catalogVersion);
  const episodes = loaded.snapshot.shows.reduce((sum, show) => sum + show.episodes.length, 0);
  // A load that an applied toggle overtook (same database and catalog, a later feed version) keeps the newer snapshot.
  const current = entries.get(account.id);
  if (current === undefined || !sameLibrary(current, generation, account) || current.feedVersion <= account.feedVersion) {
    keep(account.id, { generation, feedVersion: account.feedVersion, catalogVersion: account.catalogVersion, loaded, episodes });
  }
  return loaded.snapshot;
}

/** Whether `entry` was read from the same database at the same catalog version as `account` asks for. */
function sameLibrary(entry: Entry, generation: number, account: SnapshotAccount): boolean {
  return entry.generation === generation && entry.catalogVersion === account.catalogVersion;
}

/** A committed watched toggle: what the writer was given and the feed version its bump set. */
export interface CommittedToggle {
  accountId: number;
  kind: WatchKind;
  id: number;
  watched: boolean;
  at: Date;
  feedVersion: number;
}

/** Applies a toggle this process committed to the account's kept snapshot, or drops a snapshot it cannot follow. */
export function applyToggle(toggle: CommittedToggle): void {
  const entry = entries.get(toggle.accountId);
  if (entry === undefined) return;
  if (entry.generation !== databaseGeneration() || entry.feedVersion !== toggle.feedVersion - 1) {
    drop(toggle.accountId);
    return;
  }
  const { snapshot, watchedAt } = entry.loaded;
  if (toggle.kind === 'episode') {
    applyEpisodeToggle(snapshot.shows, watchedAt, toggle);
  } else {
    // Only followed titles are in the snapshot; another one's flag is not shown by any feed.
    const title = snapshot.titles.find((candidate) => candidate.kind === toggle.kind && candidate.id === toggle.id);
    if (title) title.watched = toggle.watched;
  }
  entry.feedVersion = toggle.feedVersion;
}

function applyEpisodeToggle(shows: SnapshotShow[], watchedAt: Map<number, unknown>, toggle: CommittedToggle): void {
  if (toggle.watched) watchedAt.set(toggle.id, toggle.at);
  else watchedAt.delete(toggle.id);
  // The episode's show is not known from the toggle; a scan of ~25 000 ids takes tens of microseconds.
  for (const show of shows) {
    const episode = show.episodes.find((candidate) => candidate.id === toggle.id);
    if (episode === undefined) continue;
    episode.watched = toggle.watched;
    show.lastWatchedAt = latestWatch(show, watchedAt);
    showScans.delete(show);
    return;
  }
  // Not in a followed, non-archived show: no feed shows it.
}

/** The show's most recent watch time, as loadSnapshot computes it. */
function latestWatch(show: SnapshotShow, watchedAt: Map<number, unknown>): Date | null {
  let latest = Number.NEGATIVE_INFINITY;
  for (const episode of show.episodes) {
    const at = watchedAt.get(episode.id);
    if (at !== undefined) latest = Math.max(latest, asEpochMs(at));
  }
  return Number.isFinite(latest) ? new Date(latest) : null;
}
