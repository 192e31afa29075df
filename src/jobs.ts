import type { AnyJobDefinition } from './jobs/job-definition.ts';
import { accountCheckJob, deliveryJob, deliverySweepJob, releaseCheckJob, releaseJobs } from './notifications/release-jobs.ts';
import { accountSyncJob, catalogRefreshJob, syncJobs } from './sync/sync-jobs.ts';
import { mediaServerJobs, mediaServerPullJob, periodicPullJob } from './media-servers/history/history-jobs.ts';

/**
 * Every background job, each declared once in its feature (name, perform, unique prop, retries,
 * interval, crash points): app.ts hands this list to the job system, which defines each one in
 * every process and schedules the recurring ones, in this order, when a worker starts (the
 * catalog refresh before the release check, so that a first check sees fresh dates).
 */
export const jobDefinitions: readonly AnyJobDefinition[] = [...syncJobs, ...releaseJobs, ...mediaServerJobs];

/** The stored names of the jobs, by short keys: what tests and tools find stored jobs by. */
export const jobNames = {
  catalogRefresh: catalogRefreshJob.name,
  accountSync: accountSyncJob.name,
  releaseCheck: releaseCheckJob.name,
  accountCheck: accountCheckJob.name,
  delivery: deliveryJob.name,
  deliverySweep: deliverySweepJob.name,
  mediaServerPull: mediaServerPullJob.name,
  mediaServerPeriodicPull: periodicPullJob.name,
} as const;
