import { AsyncLocalStorage } from 'node:async_hooks';
import type { CatalogBudget } from './catalog-budget.ts';

/**
 * On whose behalf a catalog request is sent, carried with the call (AsyncLocalStorage) from the
 * catalog service down to the HTTP client (http-client.ts), so that no provider has to pass it on:
 * - `priority`: every catalog's request queue sends the waiting `interactive` requests (a person's
 *   search or lookup, waited for on a page) before any waiting `background` one (media-server
 *   deliveries, imports, refreshes, retries), within the same rate limit;
 * - `budget`: charged one for each request sent, retries included; a request the budget has no
 *   room for is not sent at all (CatalogBudgetSpent, catalog-budget.ts).
 * A call made outside any caller is `background` with no budget (the jobs' refreshes).
 */
export type CatalogPriority = 'interactive' | 'background';

export interface CatalogCaller {
  priority: CatalogPriority;
  budget?: CatalogBudget;
}

const storage = new AsyncLocalStorage<CatalogCaller>();
const backgroundCaller: CatalogCaller = { priority: 'background' };

/** Runs `call` with every catalog request it makes sent for `caller`. */
export function asCatalogCaller<T>(caller: CatalogCaller, call: () => Promise<T>): Promise<T> {
  return storage.run(caller, call);
}

/** The caller of the catalog request being made now (background, unbudgeted, outside any). */
export function currentCatalogCaller(): CatalogCaller {
  return storage.getStore() ?? backgroundCaller;
}

/**
 * Runs `worker` `concurrency` times at once (at least once, at most `count`: the queries each
 * worker takes from a shared list), all of its requests sent in the background and charged to
 * `budget`: how a delivery's or an import's lookups are asked (catalog-lookups.ts,
 * catalog-title-search.ts).
 */
export async function runInBackground(budget: CatalogBudget | undefined, count: number, concurrency: number, worker: () => Promise<void>): Promise<void> {
  if (count === 0) return;
  await asCatalogCaller({ priority: 'background', budget }, async () => {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  });
}
