import type { Agenda, JobParameters } from 'agenda';
import { createAgenda } from '../../src/jobs/create-agenda.ts';

/**
 * Stored jobs as tests read and change them, through the job store of the open database (our
 * SQL store's AgendaJob table on SQLite, @agendajs/postgres-backend's table on PostgreSQL):
 * an Agenda instance of this process that is never started, so it runs nothing.
 */
let reader: Agenda | undefined;

async function store() {
  reader ??= createAgenda({ pollMs: 60_000, name: 'test-reader' });
  await reader.ready;
  return reader.db;
}

/** A stored job with its dates as epoch ms (null when unset). */
export interface StoredJobRow {
  id: string;
  name: string;
  type: string;
  nextRunAt: number | null;
  lockedAt: number | null;
  lastRunAt: number | null;
  lastFinishedAt: number | null;
  failedAt: number | null;
  repeatInterval: string | null;
  data: unknown;
  job: JobParameters;
}

const epochMs = (date: Date | null | undefined): number | null => (date ? date.getTime() : null);

function row(job: JobParameters): StoredJobRow {
  return {
    id: String(job._id),
    name: job.name,
    type: job.type,
    nextRunAt: epochMs(job.nextRunAt),
    lockedAt: epochMs(job.lockedAt),
    lastRunAt: epochMs(job.lastRunAt),
    lastFinishedAt: epochMs(job.lastFinishedAt),
    failedAt: epochMs(job.failedAt),
    repeatInterval: job.repeatInterval === undefined ? null : String(job.repeatInterval),
    data: job.data,
    job,
  };
}

/** Every stored job named `name`. */
export async function jobRows(name: string): Promise<StoredJobRow[]> {
  return (await (await store()).queryJobs({ name })).jobs.map(row);
}

/** Job rows named `name` queued for one account (`data.accountId`). */
export async function jobRowsFor(name: string, accountId: number): Promise<StoredJobRow[]> {
  return (await jobRows(name)).filter((stored) => (stored.data as { accountId?: number } | null)?.accountId === accountId);
}

/** The stored job with this id, or null. */
export async function jobRowById(id: string): Promise<StoredJobRow | null> {
  const job = await (await store()).getJobById(id);
  return job ? row(job) : null;
}

/** Sets a stored job's run state (what Agenda's job processor writes), dates as epoch ms or null. */
export async function setJobState(stored: StoredJobRow, state: { nextRunAt?: number | null; lockedAt?: number | null; failedAt?: number | null }): Promise<void> {
  // Agenda's fields: nextRunAt null when unset, the others undefined.
  const date = (value: number | null | undefined, current: Date | undefined) => (value === undefined ? current : value === null ? undefined : new Date(value));
  const job = { ...stored.job };
  job.nextRunAt = state.nextRunAt === undefined ? job.nextRunAt : state.nextRunAt === null ? null : new Date(state.nextRunAt);
  job.lockedAt = date(state.lockedAt, job.lockedAt);
  job.failedAt = date(state.failedAt, job.failedAt);
  await (await store()).saveJobState(job, undefined);
}

/** Removes a stored job. */
export async function removeJobRow(id: string): Promise<void> {
  await (await store()).removeJobs({ id });
}
