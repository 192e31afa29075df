import { db } from '../db/client.ts';
import type { Warner } from '../log.ts';
import { CatalogBudgetSpent, type CatalogBudget } from './catalog-budget.ts';
import { asCatalogCaller } from './catalog-caller.ts';
import { storeShowEpisodes } from './catalog-store.ts';
import { wholeShowKey } from './catalog-lookups.ts';
import type { LookupCache } from './lookup-cache.ts';
import type { CatalogProvider, ExternalIds } from './provider.ts';

/**
 * The episodes of a stored show's season the store lacks, asked for when a delivery names one
 * (media-servers/match-event.ts) instead of the whole show again, inline, a request per season:
 * - a local catalog (the offline file) is asked at once: it sends no request;
 * - the network catalogs are asked in the background, one request (TMDB's /tv/{id}/season/{n},
 *   TheTVDB's episodes with `season`), queued and run `seasonFetches.concurrent` at a time behind
 *   every person's search, charged to the budget of whoever queued it; one fetch per show and
 *   season at a time, none again while the catalogs' answer is remembered (lookup-cache.ts: a day
 *   when found, 6 hours when missing), nor while a lookup that fetched the show whole is, and at
 *   most `seasonFetches.queued` waiting (past that a delivery queues nothing; its retry will).
 * What a catalog answers is stored onto the show (storeShowEpisodes); the delivery, kept
 * unmatched, is matched by its retry (the account's sync, the 30-minute catalog refresh).
 */
export const seasonFetches = { queued: 1_000, concurrent: 2 } as const;

export interface SeasonRequest {
  /** The stored show's database id. */
  showId: number;
  season: number;
  /** Charged for the background fetch's request. */
  budget?: CatalogBudget;
}

/**
 * What came of a request: `stored` (a local catalog answered, stored now), `queued` (a network
 * catalog will be asked, or is being asked), `asked lately` (its answer is remembered), `spent`
 * (the budget has no room), `full` (too many queued), `none` (no catalog can answer seasons, or
 * the show is gone).
 */
export type SeasonAnswer = 'stored' | 'queued' | 'asked lately' | 'spent' | 'full' | 'none';

interface Fetch {
  key: string;
  showId: number;
  ids: ExternalIds;
  season: number;
  budget?: CatalogBudget;
}

export interface SeasonFetches {
  request(props: SeasonRequest): Promise<SeasonAnswer>;
  /** Drops the queued fetches and waits for the running ones. */
  close(): Promise<void>;
}

export function createSeasonFetches(deps: { providers: CatalogProvider[]; logger: Warner; cache: LookupCache }): SeasonFetches {
  const local = deps.providers.filter((provider) => provider.local && provider.season);
  const remote = deps.providers.filter((provider) => !provider.local && provider.season);
  const queue: Fetch[] = [];
  const pending = new Set<string>();
  let running = 0;
  let idle: (() => void)[] = [];

  async function run(fetch: Fetch): Promise<void> {
    let failed = false;
    for (const provider of remote) {
      try {
        const episodes = await provider.season!(fetch.ids, fetch.season);
        if (!episodes || episodes.length === 0) continue;
        await storeShowEpisodes([{ showId: fetch.showId, episodes }]);
        deps.cache.remember(fetch.key, 'found');
        return;
      } catch (error) {
        if (error instanceof CatalogBudgetSpent) return;
        deps.logger.warn(`catalog provider ${provider.name}: season ${fetch.season} of show ${fetch.showId} failed: ${(error as Error).message}`);
        failed = true;
      }
    }
    if (!failed) deps.cache.remember(fetch.key, 'missing');
  }

  function startNext(): void {
    while (running < seasonFetches.concurrent && queue.length > 0) {
      const fetch = queue.shift()!;
      running += 1;
      void asCatalogCaller({ priority: 'background', budget: fetch.budget }, () => run(fetch)).finally(() => {
        running -= 1;
        pending.delete(fetch.key);
        startNext();
      });
    }
    if (running === 0 && queue.length === 0) for (const wake of idle.splice(0)) wake();
  }

  return {
    async request({ showId, season, budget }) {
      const row = await db().show.findUnique({ where: { id: showId }, select: { tmdbId: true, tvdbId: true, imdbId: true } });
      if (!row) return 'none';
      const ids: ExternalIds = Object.fromEntries(
        Object.entries({ tmdb: row.tmdbId, tvdb: row.tvdbId, imdb: row.imdbId }).filter(([, id]) => id !== null),
      );
      for (const provider of local) {
        try {
          const episodes = await provider.season!(ids, season);
          if (episodes && episodes.length > 0) {
            await storeShowEpisodes([{ showId, episodes }]);
            return 'stored';
          }
        } catch (error) {
          deps.logger.warn(`catalog provider ${provider.name}: season ${season} of show ${showId} failed: ${(error as Error).message}`);
        }
      }
      if (remote.length === 0) return 'none';
      const key = `season:${showId}:${season}`;
      if (pending.has(key)) return 'queued';
      if (deps.cache.get(key) !== undefined || deps.cache.get(wholeShowKey(showId)) !== undefined) return 'asked lately';
      if (budget && !budget.hasRoom()) return 'spent';
      if (queue.length >= seasonFetches.queued) return 'full';
      pending.add(key);
      queue.push({ key, showId, ids, season, budget });
      startNext();
      return 'queued';
    },
    async close() {
      for (const fetch of queue.splice(0)) pending.delete(fetch.key);
      if (running > 0) await new Promise<void>((resolve) => idle.push(resolve));
      idle = [];
    },
  };
}
