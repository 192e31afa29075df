import { hostname } from 'node:os';
import type { Agenda } from 'agenda';
import type { Config } from '../config.ts';
import { beforeDatabaseClose } from '../db/client.ts';
import { createAgenda, notificationChannelOf, stopAgenda } from './create-agenda.ts';
import { crashAt } from './crash-points.ts';
import { agendaJobQueue, defineJobs, scheduleRecurringJobs } from './define-jobs.ts';
import type { AnyJobDefinition, JobQueue, JobServices } from './job-definition.ts';

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

/** The jobs the job system runs, and what they use. */
export interface SchedulerDeps {
  /** Every job's definition (src/jobs.ts collects them from the features); the recurring ones are first scheduled in this order. */
  definitions: readonly AnyJobDefinition[];
  services: JobServices;
}

/**
 * The job system for `config`: Agenda on the application's database, or on MongoDB when
 * `AIRDATE_MONGODB_URL` is set, with every job of `deps.definitions` defined (every process
 * defines them, so that any process may queue; only started ones run them). Returned at once: the
 * job store connects meanwhile (`ready`).
 */
export function createScheduler(config: Config, deps: SchedulerDeps): Scheduler {
  // Finished one-time jobs are removed, so that a job with the same unique prop (a later sync of
  // the same account, a redelivery of the same notification) can be queued again: unique jobs
  // coalesce only while queued or running.
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
  defineJobs(agenda, deps.definitions, { services: deps.services, lockMs: config.jobs.lockMs, onStep: crashAt(config.jobs.crashAt) });
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
      await scheduleRecurringJobs(agenda, deps.definitions);
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
