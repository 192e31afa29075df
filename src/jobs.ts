import type { AnyJobDefinition } from './jobs/job-definition.ts';
import { releaseJobs } from './notifications/release-jobs.ts';

/**
 * Every background job, each declared once in its feature (name, perform, unique prop, retries,
 * interval, crash points): app.ts hands this list to the job system, which defines each one in
 * every process and schedules the recurring ones, in this order, when a worker starts.
 */
export const jobDefinitions: readonly AnyJobDefinition[] = [...releaseJobs];
