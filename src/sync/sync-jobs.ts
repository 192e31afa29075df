import { defineJob, retryFiveTimes } from '../jobs/job-definition.ts';
import { retryPendingImports } from '../imports/pending-imports.ts';
import { retryUnmatchedDeliveries } from '../media-servers/deliveries.ts';
import { checkAccountReleases } from '../notifications/release-jobs.ts';

/** Every 30 minutes: refreshes every followed item from the catalogs, then retries pending imports and unmatched media server deliveries. */
export const catalogRefreshJob = defineJob({
  name: 'catalog-refresh',
  every: '30 minutes',
  async perform(_props, { services: { catalog, logger } }) {
    const summary = await catalog.refreshFollowed({});
    logger.debug(`catalog refresh: ${summary.items} item(s), ${summary.changes} change(s), ${summary.failures.length} failure(s)`);
    // Never throws: a failed retry is logged and the refresh stands.
    const retried = await retryPendingImports({ catalog, logger });
    logger.debug(`pending imports: ${retried.tried} tried for ${retried.accounts} account(s), ${retried.matched} matched, ${retried.failures} failure(s)`);
    // Unmatched media server deliveries the same way (never throws either).
    const deliveries = await retryUnmatchedDeliveries({ catalog, logger });
    logger.debug(`media server deliveries: ${deliveries.tried} unmatched tried, ${deliveries.matched} matched, ${deliveries.failures} failure(s)`);
  },
});

/**
 * POST /api/machine/sync (the `sync` mutation): the account's catalog refresh, its pending imports
 * and unmatched media server deliveries retried, then its release check. One per account at a time.
 */
export const accountSyncJob = defineJob({
  name: 'account-sync',
  unique: 'accountId',
  concurrency: 5,
  retry: retryFiveTimes,
  crashPoints: ['release-recorded'],
  async perform({ accountId }: { accountId: number }, { services: { catalog, logger, channels }, jobs, reached }) {
    await catalog.refreshFollowed({ accountId });
    // After the refresh (which re-reads the offline file); logged, never failing the sync. Items it
    // adds may be released already: the release check that follows sees them.
    await retryPendingImports({ catalog, accountId, logger });
    await retryUnmatchedDeliveries({ catalog, accountId, logger });
    await checkAccountReleases({ accountId, jobs, reached, publicOrigin: channels.publicOrigin });
  },
});

/** The sync's jobs, the recurring refresh first (it runs before the release check when a worker starts). */
export const syncJobs = [catalogRefreshJob, accountSyncJob];
