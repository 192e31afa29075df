import { registerCache } from '../metrics/cache-sizes.ts';

/**
 * Budgets of catalog requests, one per media-server connection and one per account's imports, so
 * that one account cannot spend the catalog keys every account of the server shares (TMDB's ~40
 * requests a second, TheTVDB's, IGDB's 4). A budget is a bucket of `perHour` requests, refilled
 * evenly over the hour: a burst may spend it whole, after which the connection gets what trickles
 * back in (`perHour` / 3 600 a second). Each request sent is charged, retries included; a request
 * with no room left is not sent (CatalogBudgetSpent), and whoever asked treats the id as not
 * answered for now (never as unknown to the catalog: that is no answer of the catalog's).
 *
 * Kept in this process's memory, like the catalogs' own rate limits (each process has its own
 * clients): at most `budgetsKept` of them, the longest unused dropped first (an unused bucket has
 * refilled anyway). Keys are connections and accounts, which only an administrator creates.
 */
export interface CatalogBudget {
  /** Whose budget it is, for the log and the answers: `media-server connection 12`. */
  readonly name: string;
  /** Takes one request from the budget: false when none is left (nothing is taken then). */
  take(): boolean;
  /** Whether at least one request is left now. */
  hasRoom(): boolean;
}

/** A request was not sent: `budget` has no room left. */
export class CatalogBudgetSpent extends Error {
  override name = 'CatalogBudgetSpent';
  constructor(readonly budget: string) {
    super(`the catalog request budget of ${budget} is spent for now`);
  }
}

/** Most budgets one process keeps (see above). */
export const budgetsKept = 10_000;

const hourMs = 3_600_000;

export interface CatalogBudgets {
  /** The budget under `key` (created full), or undefined when budgets are off (`perHour` 0). */
  of(key: string, name: string): CatalogBudget | undefined;
  /** Requests each budget holds when full, and gets back an hour (0: no budget). */
  readonly perHour: number;
}

/** The budgets of one server: `perHour` requests per budget (0 turns them off); `now` for tests. */
export function createCatalogBudgets(perHour: number, now: () => number = Date.now): CatalogBudgets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  registerCache('catalog-budgets', { size: () => buckets.size, max: budgetsKept, unit: 'entries' });

  /** The bucket of `key` refilled up to now, and made the most recently used. */
  const bucketOf = (key: string) => {
    const time = now();
    const bucket = buckets.get(key) ?? { tokens: perHour, at: time };
    bucket.tokens = Math.min(perHour, bucket.tokens + ((time - bucket.at) * perHour) / hourMs);
    bucket.at = time;
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > budgetsKept) buckets.delete(buckets.keys().next().value!);
    return bucket;
  };

  return {
    perHour,
    of(key, name) {
      if (perHour === 0) return undefined;
      return {
        name,
        take() {
          const bucket = bucketOf(key);
          if (bucket.tokens < 1) return false;
          bucket.tokens -= 1;
          return true;
        },
        hasRoom: () => bucketOf(key).tokens >= 1,
      };
    },
  };
}
