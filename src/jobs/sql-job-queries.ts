import { isDeepStrictEqual } from 'node:util';
import { computeJobState, type JobParameters, type JobsOverview, type JobsQueryOptions, type JobsResult, type JobsSort, type JobWithState, type RemoveJobsOptions } from 'agenda';
import { db } from '../db/client.ts';
import { decodeAttrs, rowToJob, type AgendaJobRow } from './job-row.ts';
import { chunks } from '../db/limits.ts';
import { execute, join, maxListValues, queryRows, raw, sql, type Sql } from './sql-job-sql.ts';

/** A filter as SQL on the columns plus, for a `data` filter, a check on the decoded job data. */
interface JobFilter {
  where: Sql;
  data?: (row: AgendaJobRow) => boolean;
}

const onlyStrings = (values: unknown): string[] => (Array.isArray(values) ? values.filter((value): value is string => typeof value === 'string') : []);

/**
 * MongoDB's data filter: an object matches field by field (nested objects by their leaves, like
 * MongoDB's dotted keys), anything else matches the whole `data` by equality.
 */
function dataMatcher(filter: unknown): (row: AgendaJobRow) => boolean {
  const leaves: [string[], unknown][] = [];
  const collect = (value: unknown, path: string[]): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
      for (const [key, child] of Object.entries(value)) collect(child, [...path, key]);
    } else leaves.push([path, value]);
  };
  const whole = filter === null || typeof filter !== 'object' || Array.isArray(filter);
  if (!whole) collect(filter, []);
  return (row) => {
    const data = decodeAttrs(row.attrs).data;
    if (whole) return isDeepStrictEqual(data ?? null, filter);
    return leaves.every(([path, expected]) => {
      let value: unknown = data;
      for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      return isDeepStrictEqual(value ?? null, expected ?? null);
    });
  };
}

/** MongoDB's query building for remove/disable/enable (id or ids, name or names or notNames, data). */
function removeFilter(options: RemoveJobsOptions): JobFilter | null {
  const parts: Sql[] = [];
  if (options.id) parts.push(sql`"id" = ${String(options.id)}`);
  else if (Array.isArray(options.ids) && options.ids.length > 0) parts.push(sql`"id" IN (${join(options.ids.map(String))})`);
  const names = onlyStrings(options.names);
  const notNames = onlyStrings(options.notNames);
  if (options.name && typeof options.name === 'string') parts.push(sql`"name" = ${options.name}`);
  else if (names.length > 0) parts.push(sql`"name" IN (${join(names)})`);
  else if (notNames.length > 0) parts.push(sql`"name" NOT IN (${join(notNames)})`);
  const data = options.data === undefined ? undefined : dataMatcher(options.data);
  // No criteria: MongoDB deletes nothing rather than everything.
  if (parts.length === 0 && !data) return null;
  return { where: parts.length > 0 ? join(parts, ' AND ') : sql`1 = 1`, data };
}

/** Ids of the rows a filter selects (the data check runs on the decoded rows). */
async function matchingIds(filter: JobFilter, extra: Sql = sql`1 = 1`): Promise<string[]> {
  const rows = await queryRows(sql`SELECT "id", "attrs" FROM "AgendaJob" WHERE ${filter.where} AND ${extra}`);
  return rows.filter((row) => !filter.data || filter.data(row)).map((row) => row.id);
}

/** Runs `change` on the matching rows (by ids when a data check is involved); returns rows changed. */
async function changeMatching(filter: JobFilter, extra: Sql, change: (where: Sql) => Sql): Promise<number> {
  if (!filter.data) return execute(change(sql`${filter.where} AND ${extra}`));
  let changed = 0;
  for (const part of chunks(await matchingIds(filter, extra), maxListValues)) changed += await execute(change(sql`"id" IN (${join(part)})`));
  return changed;
}

const sortable: (keyof JobsSort)[] = ['nextRunAt', 'lastRunAt', 'lastFinishedAt', 'priority', 'name'];

/** MongoDB's sort (default: nextRunAt, lastRunAt descending; nulls first ascending, last descending). */
function orderBy(sort: JobsSort | undefined): Sql {
  const keys = sortable.filter((key) => sort?.[key] !== undefined);
  const order = keys.length > 0 ? keys.map((key) => [key, sort?.[key]] as const) : ([['nextRunAt', 'desc'], ['lastRunAt', 'desc']] as const);
  return join(
    order.map(([key, direction]) => raw(`"${key}" ${direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST'}`)),
    ', ',
  );
}

/** The read side of the SQL job store: listing, counting, removing, enabling and disabling jobs. */
export class SqlJobQueries {
  /** Jobs with their computed state, filtered, sorted and paginated like MongoDB's queryJobs. */
  async queryJobs(options: JobsQueryOptions = {}): Promise<JobsResult> {
    const { name, names, state, id, ids, search, data, includeDisabled = true, sort, skip = 0, limit = 0 } = options;
    const now = new Date();
    const parts: Sql[] = [];
    // As in MongoDB, a search replaces a name filter.
    // SQLite's LIKE ignores ASCII case.
    if (search && typeof search === 'string') parts.push(sql`"name" LIKE ${`%${search.replace(/[\\%_]/g, '\\$&')}%`} ESCAPE '\\'`);
    else if (name && typeof name === 'string') parts.push(sql`"name" = ${name}`);
    else if (onlyStrings(names).length > 0) parts.push(sql`"name" IN (${join(onlyStrings(names))})`);
    if (id && typeof id === 'string') parts.push(sql`"id" = ${id}`);
    else if (onlyStrings(ids).length > 0) parts.push(sql`"id" IN (${join(onlyStrings(ids))})`);
    if (!includeDisabled) parts.push(sql`"disabled" = false`);
    const where = parts.length > 0 ? join(parts, ' AND ') : sql`1 = 1`;
    const withState = (row: AgendaJobRow): JobWithState => {
      const job = rowToJob(row) as JobWithState;
      return { ...job, state: computeJobState(job, now) };
    };
    if (!state && data === undefined) {
      // State and data do not exclude rows here, so the database paginates.
      const page = limit > 0 || skip > 0 ? sql`LIMIT ${limit > 0 ? limit : Number.MAX_SAFE_INTEGER} OFFSET ${skip}` : sql``;
      const [rows, counted] = await Promise.all([
        queryRows(sql`SELECT * FROM "AgendaJob" WHERE ${where} ORDER BY ${orderBy(sort)} ${page}`),
        this.count(where),
      ]);
      return { jobs: rows.map(withState), total: counted };
    }
    const matchesData = data === undefined ? () => true : dataMatcher(data);
    const rows = (await queryRows(sql`SELECT * FROM "AgendaJob" WHERE ${where} ORDER BY ${orderBy(sort)}`)).filter(matchesData);
    const jobs = rows.map(withState).filter((job) => !state || (state === 'paused' ? job.disabled === true : job.state === state));
    return { jobs: limit > 0 ? jobs.slice(skip, skip + limit) : jobs.slice(skip), total: jobs.length };
  }

  private async count(where: Sql): Promise<number> {
    const [row] = await db().$queryRaw<{ total: number | bigint | string }[]>(sql`SELECT COUNT(*) AS "total" FROM "AgendaJob" WHERE ${where}`);
    return Number(row?.total ?? 0);
  }

  /** Per job name: the total and the number of jobs in each state (paused counted besides its state). */
  async getJobsOverview(): Promise<JobsOverview[]> {
    const now = new Date();
    const rows = await queryRows(sql`SELECT * FROM "AgendaJob" ORDER BY "name"`);
    const overviews = new Map<string, JobsOverview>();
    for (const row of rows) {
      let overview = overviews.get(row.name);
      if (!overview) {
        overview = { name: row.name, total: 0, running: 0, scheduled: 0, queued: 0, completed: 0, failed: 0, repeating: 0, paused: 0 };
        overviews.set(row.name, overview);
      }
      const job: JobParameters = rowToJob(row);
      overview.total += 1;
      overview[computeJobState(job, now)] += 1;
      if (job.disabled === true) overview.paused += 1;
    }
    return [...overviews.values()];
  }

  /** Every job name in the store. */
  async getDistinctJobNames(): Promise<string[]> {
    const rows = await queryRows(sql`SELECT DISTINCT "name" FROM "AgendaJob" ORDER BY "name"`);
    return rows.map((row) => row.name);
  }

  /** One job by id, or null. */
  async getJobById(id: string): Promise<JobParameters | null> {
    const [row] = await queryRows(sql`SELECT * FROM "AgendaJob" WHERE "id" = ${String(id)}`);
    return row ? rowToJob(row) : null;
  }

  /** Number of jobs whose nextRunAt has passed. */
  async getQueueSize(): Promise<number> {
    return this.count(sql`"nextRunAt" < ${Date.now()}`);
  }

  /** Removes the jobs the options select (none when no option is given); returns how many. */
  async removeJobs(options: RemoveJobsOptions): Promise<number> {
    const filter = removeFilter(options);
    return filter ? changeMatching(filter, sql`1 = 1`, (where) => sql`DELETE FROM "AgendaJob" WHERE ${where}`) : 0;
  }

  /** Disables the selected jobs; returns how many changed. */
  async disableJobs(options: RemoveJobsOptions): Promise<number> {
    const filter = removeFilter(options);
    return filter ? changeMatching(filter, sql`"disabled" = false`, (where) => sql`UPDATE "AgendaJob" SET "disabled" = true WHERE ${where}`) : 0;
  }

  /** Enables the selected jobs; returns how many changed. */
  async enableJobs(options: RemoveJobsOptions): Promise<number> {
    const filter = removeFilter(options);
    return filter ? changeMatching(filter, sql`"disabled" = true`, (where) => sql`UPDATE "AgendaJob" SET "disabled" = false WHERE ${where}`) : 0;
  }

  /** Removes every job; returns how many. */
  async purgeAllJobs(): Promise<number> {
    return execute(sql`DELETE FROM "AgendaJob"`);
  }
}

