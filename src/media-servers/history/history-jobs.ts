import { db } from '../../db/client.ts';
import { defineJob, type JobQueue } from '../../jobs/job-definition.ts';
import { runPull } from './history-pulls.ts';
import type { PullTarget } from './server-client.ts';

/** Where pulls may connect (the outbound policy of webhooks, AIRDATE_WEBHOOK_*) and Airdate's own address. */
declare module '../../graphql/context.ts' {
  interface GraphQLServices {
    mediaServerPulls: PullTarget;
  }
}
declare module '../../jobs/job-definition.ts' {
  interface JobServices {
    mediaServerPulls: PullTarget;
  }
}

/**
 * One pull of a media server's history (history-pulls.ts runPull), one per server row at a time.
 * Not retried: a server's refusal or a timeout is the row's `failed` state, said on the page. A
 * process that dies mid-pull leaves the job locked; the job system hands it to a worker once the
 * lock lapses (AIRDATE_JOB_LOCK_MS), and the pull starts again from its first page (nothing of the
 * cut one was written).
 */
export const mediaServerPullJob = defineJob({
  name: 'media-server-pull',
  unique: 'historyId',
  concurrency: 2,
  lockLimit: 2,
  async perform({ historyId }: { historyId: number }, { services }) {
    await runPull({ historyId, target: services.mediaServerPulls, catalog: services.catalog, logger: services.logger });
  },
});

/** Queues the pull of a server row. */
export const queuePull = (jobs: JobQueue, historyId: number) => jobs.queue(mediaServerPullJob, { historyId });

/**
 * Every 6 hours: an import from every server whose periodic pull is on (off by default), so that
 * plays the webhook missed while Airdate was down are picked up; a second pull adds nothing of
 * what the first recorded. A server with a pull queued or running is left alone.
 */
export const periodicPullJob = defineJob({
  name: 'media-server-periodic-pull',
  every: '6 hours',
  async perform(_props, { jobs }) {
    const rows = await db().mediaServerHistory.findMany({ where: { periodic: true, serverUserId: { not: null }, state: { notIn: ['queued', 'running'] } }, select: { id: true } });
    for (const row of rows) {
      const { count } = await db().mediaServerHistory.updateMany({
        where: { id: row.id, state: { notIn: ['queued', 'running'] } },
        data: { state: 'queued', dryRun: false, read: 0, total: null, error: null, cancelRequested: false },
      });
      if (count > 0) await queuePull(jobs, row.id);
    }
  },
});

export const mediaServerJobs = [mediaServerPullJob, periodicPullJob];
