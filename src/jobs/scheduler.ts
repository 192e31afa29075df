import { hostname } from 'node:os';
import type { Agenda } from 'agenda';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { CatalogService } from '../services/catalog.ts';
import { prepareRedelivery } from '../services/deliveries.ts';
import { beforeDatabaseClose } from '../db/client.ts';
import { createAgenda, notificationChannelOf, stopAgenda } from './create-agenda.ts';
import { crashAt } from './crash-points.ts';
import { defineReleaseJobs, queueDelivery, queueSync, scheduleRecurringJobs } from './release-jobs.ts';

/** What requests may ask of the job system; every role can queue, only workers run jobs. */
export interface JobQueue {
  /** Queues a catalog refresh and release check of the account (coalesced) and returns at once. */
  requestSync(accountId: number): Promise<void>;
  /** Delivers one of the account's finished notifications again, with the same `webhook-id`. */
  redeliver(accountId: number, notificationId: number): Promise<void>;
}

export interface Scheduler extends JobQueue {
  readonly agenda: Agenda;
  /** Starts running jobs here (roles `worker` and `all`) and makes the 30-minute jobs exist. */
  start(): Promise<void>;
  /** Stops taking jobs, lets running ones finish (up to `drainMs`), unlocks the rest. */
  stop(drainMs?: number): Promise<void>;
  /** Throws when the job store cannot be reached (readiness). */
  ping(): Promise<void>;
}

/**
 * The job system for `config`: Agenda on the application's database, or on MongoDB when
 * `AIRDATE_MONGODB_URL` is set, with the release-engine jobs defined (every process defines them,
 * so that any process may queue; only started ones run them).
 */
export async function createScheduler(
  config: Config,
  deps: { catalog: CatalogService; logger: Logger; metrics?: Metrics },
): Promise<Scheduler> {
  // Finished one-time jobs are removed, so a later sync or redelivery of the same account or
  // notification can be queued again (unique jobs coalesce only while queued or running).
  const agenda = createAgenda({
    mongodbUrl: config.jobs.mongodbUrl,
    pollMs: config.jobs.pollMs,
    defaultLockLifetime: config.jobs.lockMs,
    removeOnComplete: true,
    maxConcurrency: 100,
    name: `${hostname()}:${process.pid}`,
  });
  agenda.on('error', (error: Error) => deps.logger.error({ err: error }, 'job system'));
  defineReleaseJobs(agenda, {
    catalog: deps.catalog,
    policy: config.webhooks.policy,
    timeoutMs: config.webhooks.timeoutMs,
    lockMs: config.jobs.lockMs,
    onStep: crashAt(config.jobs.crashAt),
    logger: deps.logger,
    metrics: deps.metrics,
  });
  await agenda.ready;
  // On PostgreSQL a saved job is announced by NOTIFY, so a worker starts it at once instead of at
  // its next poll; Agenda publishes only on a connected channel, and only start() connects it,
  // which a process that just queues jobs (AIRDATE_ROLE=web) never calls.
  const channel = config.database.kind === 'postgres' && !config.jobs.mongodbUrl ? notificationChannelOf(agenda) : undefined;
  await channel?.connect();
  // Given back once: by stop(), or by closeDatabase when the database closes first (tests do).
  let disconnecting: Promise<void> | undefined;
  const disconnect = () => (disconnecting ??= channel?.disconnect() ?? Promise.resolve());
  const removeCloseHook = channel ? beforeDatabaseClose(disconnect) : undefined;
  let started = false;
  return {
    agenda,
    requestSync: (accountId) => queueSync(agenda, accountId),
    async redeliver(accountId, notificationId) {
      await prepareRedelivery({ accountId, notificationId, now: new Date() });
      await queueDelivery(agenda, notificationId, { manual: true });
    },
    async start() {
      if (started) return;
      started = true;
      await scheduleRecurringJobs(agenda);
      await agenda.start();
    },
    async stop(drainMs = 20_000) {
      if (!started) {
        // Gives back the LISTEN connection opened above (the jobs pool could not close otherwise).
        removeCloseHook?.();
        await disconnect();
        return;
      }
      started = false;
      // Agenda's stop gives the LISTEN connection back itself.
      removeCloseHook?.();
      const { stillRunning } = await stopAgenda(agenda, drainMs);
      if (stillRunning > 0) deps.logger.warn(`stopped with ${stillRunning} job(s) still running; their locks expire on their own`);
    },
    async ping() {
      await agenda.db.getQueueSize();
    },
  };
}
