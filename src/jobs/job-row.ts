import { createHash } from 'node:crypto';
import { toJobId, type JobParameters } from 'agenda';

/**
 * How an Agenda job is stored in the AgendaJob table: the fields the job store filters and sorts
 * on are columns (dates as epoch milliseconds), everything else is one JSON text (`attrs`).
 */

/** An AgendaJob row as raw queries return it (BIGINT may come back as bigint, number or string). */
/** The form of the job ids Agenda's PostgreSQL backend uses (a UUID). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AgendaJobRow {
  id: string;
  name: string;
  type: string;
  priority: number | bigint | string;
  nextRunAt: number | bigint | string | null;
  lockedAt: number | bigint | string | null;
  lastRunAt: number | bigint | string | null;
  lastFinishedAt: number | bigint | string | null;
  failedAt: number | bigint | string | null;
  disabled: boolean | number | bigint;
  uniqueKey: string | null;
  attrs: string;
}

/** The values written for one job, in the order of `writtenColumns`. */
export interface StoredJob {
  name: string;
  type: string;
  priority: number;
  nextRunAt: number | null;
  lockedAt: number | null;
  lastRunAt: number | null;
  lastFinishedAt: number | null;
  failedAt: number | null;
  disabled: boolean;
  attrs: string;
}

/** Columns every save writes (id and uniqueKey are set on insert only). */
export const writtenColumns = ['name', 'type', 'priority', 'nextRunAt', 'lockedAt', 'lastRunAt', 'lastFinishedAt', 'failedAt', 'disabled', 'attrs'] as const;

/**
 * JobParameters fields kept in `attrs`. `unique` and `uniqueOpts` are not among them: like the
 * MongoDB store we keep a unique job's identity (here `uniqueKey`), not the options it was saved with.
 */
const attrFields = [
  'data',
  'failCount',
  'failReason',
  'repeatTimezone',
  'repeatInterval',
  'repeatAt',
  'progress',
  'debounceStartedAt',
  'fork',
  'startDate',
  'endDate',
  'skipDays',
  'lastModifiedBy',
] as const;

/**
 * JSON with Dates kept as Dates (JobParameters' startDate, endDate and debounceStartedAt, and any
 * Date inside job data, as MongoDB would keep them): a Date is written as `{"$date": epochMs}`.
 */
export function encodeAttrs(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, converted: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.getTime() } : converted;
  });
}

/** Reads `encodeAttrs` output back (an unreadable text gives empty attrs rather than a crash). */
export function decodeAttrs(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text, (_key, value: unknown) => (isDateTag(value) ? new Date(value.$date) : value));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * `value` as plain JSON with each Date replaced by `{"$date": epochMs}`, as `encodeAttrs` writes
 * it: for a store that keeps job data as JSON (PostgreSQL's jsonb), where a Date would come back
 * as a string.
 */
export function tagDates(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(encodeAttrs(value)) as unknown);
}

/** `value` with each `{"$date": epochMs}` turned back into a Date (`tagDates` reversed). */
export function untagDates(value: unknown): unknown {
  if (isDateTag(value)) return new Date(value.$date);
  if (Array.isArray(value)) return value.map(untagDates);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, untagDates(child)]));
}

function isDateTag(value: unknown): value is { $date: number } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$date' && typeof (value as { $date: unknown }).$date === 'number';
}

/** Epoch ms of a job date field; null when unset. A value that is not a date is a clear error. */
export function epochMs(value: unknown, field: string, jobName: string): number | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : new Date(value as string | number).getTime();
  if (!Number.isFinite(ms)) throw new Error(`job "${jobName}": ${field} is not a valid date (${String(value)})`);
  return ms;
}

function toDate(value: number | bigint | string | null): Date | undefined {
  return value === null ? undefined : new Date(Number(value));
}

/**
 * What a save stores for `job` (MongoDB's `saveJob`: every field is written, unset ones as null,
 * and `lastModifiedBy` comes from the options).
 */
export function storeJob(job: Omit<JobParameters, '_id' | 'unique' | 'uniqueOpts'>, lastModifiedBy: string | null): StoredJob {
  const name = job.name;
  if (typeof name !== 'string' || name === '') throw new Error('a job needs a name');
  const record = job as unknown as Record<string, unknown>;
  const attrs: Record<string, unknown> = {};
  for (const field of attrFields) if (record[field] !== undefined && record[field] !== null) attrs[field] = record[field];
  if (lastModifiedBy !== null) attrs.lastModifiedBy = lastModifiedBy;
  else delete attrs.lastModifiedBy;
  const priority = Number(job.priority ?? 0);
  return {
    name,
    type: job.type === 'single' ? 'single' : 'normal',
    priority: Number.isFinite(priority) ? Math.trunc(priority) : 0,
    nextRunAt: epochMs(job.nextRunAt, 'nextRunAt', name),
    lockedAt: epochMs(job.lockedAt, 'lockedAt', name),
    lastRunAt: epochMs(job.lastRunAt, 'lastRunAt', name),
    lastFinishedAt: epochMs(job.lastFinishedAt, 'lastFinishedAt', name),
    failedAt: epochMs(job.failedAt, 'failedAt', name),
    disabled: job.disabled === true,
    attrs: encodeAttrs(attrs),
  };
}

/** The job a row holds, shaped like MongoDB's `computeJobObj` (unset fields are undefined). */
export function rowToJob(row: AgendaJobRow): JobParameters {
  const attrs = decodeAttrs(row.attrs);
  const optional = (field: (typeof attrFields)[number]) => (attrs[field] ?? undefined) as never;
  return {
    _id: toJobId(row.id),
    name: row.name,
    priority: Number(row.priority),
    nextRunAt: toDate(row.nextRunAt) ?? null,
    type: row.type === 'single' ? 'single' : 'normal',
    data: attrs.data,
    lockedAt: toDate(row.lockedAt),
    lastFinishedAt: toDate(row.lastFinishedAt),
    failedAt: toDate(row.failedAt),
    failCount: optional('failCount'),
    failReason: optional('failReason'),
    repeatTimezone: optional('repeatTimezone'),
    lastRunAt: toDate(row.lastRunAt),
    repeatInterval: optional('repeatInterval'),
    repeatAt: optional('repeatAt'),
    disabled: Boolean(Number(row.disabled)),
    progress: optional('progress'),
    unique: undefined,
    uniqueOpts: undefined,
    lastModifiedBy: optional('lastModifiedBy'),
    fork: optional('fork'),
    debounceStartedAt: optional('debounceStartedAt'),
    startDate: optional('startDate'),
    endDate: optional('endDate'),
    skipDays: optional('skipDays'),
  };
}

/** Canonical JSON: object keys sorted at every level, so equal queries give equal text. */
function canonicalJson(value: unknown): string {
  return encodeAttrs(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/**
 * Longest uniqueKey stored as readable text; longer ones are hashed (index entries stay small,
 * and job data used as a unique query can be large). Changing it would change the keys of jobs
 * already stored.
 */
const maxReadableKey = 500;

/**
 * The uniqueKey of a job: `single:<name>` for `every()` jobs (MongoDB's upsert on name and type),
 * `unique:<canonical [name, query]>` for `job.unique(query)`. Two saves with equal queries (key
 * order aside) therefore collide on the unique index and the database keeps one row.
 */
export function uniqueKeyFor(job: { name: string; type: string; unique?: Record<string, unknown> | undefined }): string | null {
  if (job.type === 'single') return `single:${job.name}`;
  if (!job.unique) return null;
  const text = canonicalJson([job.name, job.unique]);
  return text.length <= maxReadableKey ? `unique:${text}` : `unique-sha256:${createHash('sha256').update(text).digest('hex')}`;
}
