import { Job } from 'agenda';
import { withLogContext, type Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * When each job run was due. Agenda 6.2.x (pinned) replaces a job's `nextRunAt` with the next
 * one at the start of `Job.run`, before the handler sees the job, so the due time is read just
 * before: `recordDueTimes` wraps `Job.prototype.run` once, for every Agenda in the process.
 */
const dueTimes = new WeakMap<Job, Date>();
let recording = false;

function recordDueTimes(): void {
  if (recording) return;
  recording = true;
  const run = Job.prototype.run;
  Job.prototype.run = function runRecordingDueTime(this: Job) {
    if (this.attrs.nextRunAt) dueTimes.set(this, this.attrs.nextRunAt);
    return run.call(this);
  };
}

/** Errors `observedJob` logged already: Agenda's `fail` event must not log them again. */
export const loggedJobFailures = new WeakSet<object>();

export interface ObservedJobProps {
  logger: Logger;
  metrics: Pick<Metrics, 'jobRun'>;
  /** An error that asks for the job to be tried again later (counted as `retry`, not logged). */
  isRetry?: (error: unknown) => boolean;
}

/** The job data key of the id of the request that queued a job (src/log.ts). */
export const requestIdKey = 'requestId';

/**
 * `handler` of job `name`, observed: it runs in a log context carrying the job's name and the id
 * of the request that queued it (job data `requestId`), its failures are logged there, and each
 * run is counted with its duration and its queue lag (start minus due time).
 */
export function observedJob(name: string, props: ObservedJobProps, handler: (job: Job) => Promise<void>): (job: Job) => Promise<void> {
  recordDueTimes();
  return async (job) => {
    const started = performance.now();
    const due = dueTimes.get(job);
    const lagSeconds = due === undefined ? undefined : ((job.attrs.lastRunAt ?? new Date()).getTime() - due.getTime()) / 1000;
    const requestId = (job.attrs.data as Record<string, unknown> | undefined)?.[requestIdKey];
    await withLogContext({ reqId: typeof requestId === 'string' ? requestId : undefined, job: name }, async () => {
      const seconds = () => (performance.now() - started) / 1000;
      try {
        await handler(job);
      } catch (error) {
        const retry = props.isRetry?.(error) === true;
        props.metrics.jobRun({ job: name, outcome: retry ? 'retry' : 'failure', seconds: seconds(), lagSeconds });
        if (!retry) {
          props.logger.warn({ err: error }, `job ${name} failed`);
          if (typeof error === 'object' && error !== null) loggedJobFailures.add(error);
        }
        throw error;
      }
      props.metrics.jobRun({ job: name, outcome: 'success', seconds: seconds(), lagSeconds });
      props.logger.debug({ ms: Math.round(seconds() * 1000) }, `job ${name} finished`);
    });
  };
}
