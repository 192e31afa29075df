import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { rowToJob, tagDates, uuidPattern, type AgendaJobRow } from './job-row.ts';
import { messageOf } from '../errors.ts';

/** What `moveSqlJobs` did. */
export interface MovedJobs {
  /** Jobs taken out of "AgendaJob" and stored in the backend's table. */
  moved: number;
  /**
   * Recurring (`single`) jobs left out because the backend's table already holds a job of that
   * name (an instance of this version scheduled it first); that job keeps running.
   */
  skipped: number;
}

/** The backend's columns a moved job fills, with their types for jsonb_to_recordset. */
const columns = [
  ['id', 'uuid'],
  ['name', 'text'],
  ['priority', 'integer'],
  ['type', 'text'],
  ['next_run_at', 'timestamptz'],
  ['locked_at', 'timestamptz'],
  ['last_run_at', 'timestamptz'],
  ['last_finished_at', 'timestamptz'],
  ['failed_at', 'timestamptz'],
  ['fail_count', 'integer'],
  ['fail_reason', 'text'],
  ['repeat_interval', 'text'],
  ['repeat_timezone', 'text'],
  ['repeat_at', 'text'],
  ['disabled', 'boolean'],
  ['data', 'jsonb'],
  ['progress', 'real'],
  ['fork', 'boolean'],
  ['last_modified_by', 'text'],
  ['debounce_started_at', 'timestamptz'],
  ['start_date', 'timestamptz'],
  ['end_date', 'timestamptz'],
  ['skip_days', 'jsonb'],
] as const;

type Column = (typeof columns)[number][0];

/** A number column's value, or null when the old row held something else. */
const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const date = (value: Date | null | undefined): string | null => (value instanceof Date && Number.isFinite(value.getTime()) ? value.toISOString() : null);

/** The backend's row for a job our SQL store kept (every column that store wrote, read as it read them). */
function backendRow(row: AgendaJobRow): Record<Column, unknown> {
  const job = rowToJob(row);
  const id = String(row.id);
  return {
    id: uuidPattern.test(id) ? id : randomUUID(),
    name: job.name,
    priority: Number.isFinite(job.priority) ? Math.trunc(job.priority) : 0,
    type: job.type,
    next_run_at: date(job.nextRunAt),
    locked_at: date(job.lockedAt),
    last_run_at: date(job.lastRunAt),
    last_finished_at: date(job.lastFinishedAt),
    failed_at: date(job.failedAt),
    fail_count: finite(job.failCount) === null ? null : Math.trunc(job.failCount as number),
    fail_reason: text(job.failReason),
    repeat_interval: typeof job.repeatInterval === 'number' ? String(job.repeatInterval) : text(job.repeatInterval),
    repeat_timezone: text(job.repeatTimezone),
    repeat_at: text(job.repeatAt),
    disabled: job.disabled === true,
    // Dates in data as the Airdate backend writes them (postgres-job-backend.ts, keepingDates).
    data: tagDates(job.data) ?? null,
    progress: finite(job.progress),
    fork: job.fork === true,
    last_modified_by: text(job.lastModifiedBy),
    debounce_started_at: date(job.debounceStartedAt),
    start_date: date(job.startDate instanceof Date ? job.startDate : job.startDate ? new Date(job.startDate) : null),
    end_date: date(job.endDate instanceof Date ? job.endDate : job.endDate ? new Date(job.endDate) : null),
    skip_days: Array.isArray(job.skipDays) ? job.skipDays : null,
  };
}

/**
 * Moves the jobs our former PostgreSQL job store kept in "AgendaJob" into the backend's `table`,
 * in one transaction on `client`: the rows are deleted (and so locked: a concurrent move waits,
 * then finds nothing) and inserted with every field that store kept; anything failing rolls the
 * whole move back, so no job is lost or moved twice. Ids are kept (they were UUIDs). Locked jobs
 * stay locked: a job an old instance was running is run again only once its lock expires, as
 * the old store would have done. Runs at every start (cheap when the table is empty), so jobs an
 * old instance still queued during a rolling upgrade are moved by the next start.
 */
export async function moveSqlJobs(client: pg.PoolClient | pg.Client, table: string): Promise<MovedJobs> {
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<AgendaJobRow>('DELETE FROM "AgendaJob" RETURNING *');
    let moved = 0;
    if (rows.length > 0) {
      const names = columns.map(([name]) => name).join(', ');
      const types = columns.map(([name, type]) => `${name} ${type}`).join(', ');
      // One statement whatever the number of jobs: the rows travel as one jsonb parameter.
      const inserted = await client.query(
        `INSERT INTO "${table}" (${names}) SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS moved(${types}) ON CONFLICT DO NOTHING`,
        [JSON.stringify(rows.map(backendRow))],
      );
      moved = inserted.rowCount ?? 0;
    }
    await client.query('COMMIT');
    return { moved, skipped: rows.length - moved };
  } catch (error) {
    // A broken connection fails the ROLLBACK too (and rolls back by closing): the first error is the cause.
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error(`moving the jobs of the former job store ("AgendaJob") to "${table}" failed; nothing was moved: ${messageOf(error)}`);
  }
}
