import { hostname } from 'node:os';
import type { Agenda } from 'agenda';
import type { Config } from '../config.ts';
import { beforeDatabaseClose } from '../db/client.ts';
import { createAgenda, notificationChannelOf, stopAgenda } from '../jobs/create-agenda.ts';
import { crashAt } from '../jobs/crash-points.ts';
import { agendaJobQueue, defineJobs, scheduleRecurringJobs } from '../jobs/define-jobs.ts';
import type { JobQueue, JobServices } from '../jobs/job-definition.ts';
import { releaseJobs } from './release-jobs.ts';

/** What requests may ask of the job system; every role can queue, only workers run jobs. */
declare module '../graphql/context.ts' {
  interface GraphQLServices {
    jobs: JobQueue;
  }
}

export interface Scheduler extends JobQueue {
  readonly agenda: Agenda;
  /**
   * Resolves once the job store is connected (on PostgreSQL its table set up, and the channel
   * that announces saved jobs listening); the server waits for it after it starts listening,
   * not before. Everything else here waits for it by itself.
   */
  ready(): Promise<void>;
  /** Starts running jobs here (roles `worker` and `all`) and makes the recurring jobs exist. */
  start(): Promise<void>;
  /** Stops taking jobs, lets running ones finish (up to `drainMs`), unlocks the rest. */
  stop(drainMs?: number): Promise<void>;
  /** Throws when the job store cannot be reached (readiness). */
  ping(): Promise<void>;
}

/** What the job system's jobs use. */
export interface SchedulerDeps {
  services: JobServices;
}

/**
 * The job system for `config`: Agenda on the application's database, or on MongoDB when
 * `AIRDATE_MONGODB_URL` is set, with the release-engine jobs defined (every process defines them,
 * so that any process may queue; only started ones run them). Returned at once: the job store
 * connects meanwhile (`ready`).
 */
export function createScheduler(config: Config, deps: SchedulerDeps): Scheduler {
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
  const { logger } = deps.services;
  agenda.on('error', (error: Error) => logger.error({ err: error }, 'job system'));
  defineJobs(agenda, releaseJobs, { services: deps.services, lockMs: config.jobs.lockMs, onStep: crashAt(config.jobs.crashAt) });
  const queue = agendaJobQueue(agenda);
  // On PostgreSQL a saved job is announced by NOTIFY, so a worker starts it at once instead of at
  // its next poll; Agenda publishes only on a connected channel, and only start() connects it,
  // which a process that just queues jobs (AIRDATE_ROLE=web) never calls.
  const channel = config.database.kind === 'postgres' && !config.jobs.mongodbUrl ? notificationChannelOf(agenda) : undefined;
  let stopping = false;
  let storeConnected = false;
  const connected = (async () => {
    await agenda.ready;
    storeConnected = true;
    if (!stopping) await channel?.connect();
  })();
  // Failures surface through ready() (and the start that waits for it), not as unhandled rejections.
  connected.catch(() => undefined);
  const ready = () => connected;
  /**
   * Gives the LISTEN connection back, once: by stop(), or by closeDatabase when the database
   * closes first (tests do). A store still connecting (PostgreSQL down at start) is not waited
   * for: the channel is then never connected.
   */
  let disconnecting: Promise<void> | undefined;
  const disconnect = () => {
    stopping = true;
    return (disconnecting ??= storeConnected ? connected.then(() => channel?.disconnect(), () => undefined) : Promise.resolve());
  };
  const removeCloseHook = channel ? beforeDatabaseClose(disconnect) : undefined;
  let started = false;
  return {
    agenda,
    ready,
    async queue(definition, props, options) {
      await ready();
      await queue.queue(definition, props, options);
    },
    async live(definition) {
      await ready();
      return queue.live(definition);
    },
    async start() {
      if (started) return;
      started = true;
      await ready();
      if (!started) return; // stopped meanwhile
      await scheduleRecurringJobs(agenda, releaseJobs);
      await agenda.start();
    },
    async stop(drainMs = 20_000) {
      removeCloseHook?.();
      if (!started) {
        await disconnect();
        return;
      }
      started = false;
      const { stillRunning } = await stopAgenda(agenda, drainMs);
      if (stillRunning > 0) logger.warn(`stopped with ${stillRunning} job(s) still running; their locks expire on their own`);
      // Agenda's stop gave the LISTEN connection back, if it had started: not when stopped while
      // start() still waited for the store.
      await disconnect();
    },
    async ping() {
      await agenda.db.getQueueSize();
    },
  };
}
