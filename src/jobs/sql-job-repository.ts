import { randomUUID } from 'node:crypto';
import type { JobId, JobParameters, JobRepository, JobRepositoryOptions } from 'agenda';
import { db } from '../db/client.ts';
import { chunks } from '../db/limits.ts';
import { epochMs, rowToJob, storeJob, uniqueKeyFor, type StoredJob } from './job-row.ts';
import {
  assignments,
  assignmentsFromExcluded,
  execute,
  insertStatement,
  join,
  maxListValues,
  mergedAttrs,
  queryRows,
  sql,
} from './sql-job-sql.ts';
import { SqlJobQueries } from './sql-job-queries.ts';

/**
 * Agenda's JobRepository on the application's SQLite database (the AgendaJob table; on
 * PostgreSQL the jobs are @agendajs/postgres-backend's). It mirrors @agendajs/mongo-backend's
 * MongoJobRepository: the same filters, the same fields written, the same results; where MongoDB
 * uses findOneAndUpdate, this uses one conditional UPDATE … RETURNING, so locking stays atomic
 * across processes.
 */
export class SqlJobRepository extends SqlJobQueries implements JobRepository {
  /** Nothing to connect: the store uses the process's database (`db()`), opened by the app. */
  async connect(): Promise<void> {}

  /** Inserts or updates a job (MongoDB's saveJob: by id, `single` upsert by name, unique upsert, debounce). */
  async saveJob<DATA = unknown>(job: JobParameters<DATA>, options: JobRepositoryOptions | undefined): Promise<JobParameters<DATA>> {
    const { _id, unique, uniqueOpts, ...props } = job;
    const stored = storeJob(props, options?.lastModifiedBy ?? null);
    if (_id) {
      const [row] = await queryRows(sql`UPDATE "AgendaJob" SET ${assignments(stored)} WHERE "id" = ${String(_id)} AND "name" = ${stored.name} RETURNING *`);
      // Removed meanwhile: MongoDB returns the job as it was given.
      return row ? (rowToJob(row) as JobParameters<DATA>) : job;
    }
    const uniqueKey = uniqueKeyFor({ name: stored.name, type: stored.type, unique });
    if (stored.type === 'single') {
      // An every() job saved again keeps a due nextRunAt it already has (MongoDB's $setOnInsert).
      const keepNextRunAt = stored.nextRunAt !== null && stored.nextRunAt <= Date.now();
      return (await this.upsert(uniqueKey as string, stored, keepNextRunAt ? ['nextRunAt'] : [])) as JobParameters<DATA>;
    }
    if (uniqueKey !== null) {
      const debounce = uniqueOpts?.debounce;
      if (debounce) return (await this.saveDebounced(uniqueKey, stored, debounce)) as JobParameters<DATA>;
      if (uniqueOpts?.insertOnly) return (await this.insertOnly(uniqueKey, stored)) as JobParameters<DATA>;
      return (await this.upsert(uniqueKey, stored)) as JobParameters<DATA>;
    }
    const id = randomUUID();
    await execute(insertStatement(id, null, stored));
    return rowToJob({ id, uniqueKey: null, ...stored }) as JobParameters<DATA>;
  }

  /** Inserts, or on a uniqueKey collision updates the existing row (all but `keep`); returns the row. */
  private async upsert(uniqueKey: string, stored: StoredJob, keep: readonly string[] = []): Promise<JobParameters> {
    const [row] = await queryRows(
      sql`${insertStatement(randomUUID(), uniqueKey, stored)} ON CONFLICT ("uniqueKey") DO UPDATE SET ${assignmentsFromExcluded(keep)} RETURNING *`,
    );
    if (!row) throw new Error(`saving job "${stored.name}" returned no row`);
    return rowToJob(row);
  }

  /** Inserts unless a job with the same uniqueKey exists; returns the new or the existing job unchanged. */
  private async insertOnly(uniqueKey: string, stored: StoredJob): Promise<JobParameters> {
    // The existing row can vanish between the refused insert and the read (a job finishing and
    // being removed); then the insert is simply tried again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const [inserted] = await queryRows(sql`${insertStatement(randomUUID(), uniqueKey, stored)} ON CONFLICT ("uniqueKey") DO NOTHING RETURNING *`);
      if (inserted) return rowToJob(inserted);
      const [existing] = await queryRows(sql`SELECT * FROM "AgendaJob" WHERE "uniqueKey" = ${uniqueKey}`);
      if (existing) return rowToJob(existing);
    }
    throw new Error(`job "${stored.name}": could not insert or read its unique job`);
  }

  /** MongoDB's debounce: trailing pushes nextRunAt to now + delay (until maxWait), leading keeps it. */
  private async saveDebounced(
    uniqueKey: string,
    stored: StoredJob,
    debounce: NonNullable<NonNullable<JobParameters['uniqueOpts']>['debounce']>,
  ): Promise<JobParameters> {
    const now = Date.now();
    const [existingRow] = await queryRows(sql`SELECT * FROM "AgendaJob" WHERE "uniqueKey" = ${uniqueKey}`);
    const withAttrs = (nextRunAt: number | null, debounceStartedAt: Date | null): StoredJob => {
      const restored = rowToJob({ id: '', uniqueKey, ...stored });
      return storeJob({ ...restored, nextRunAt: nextRunAt === null ? null : new Date(nextRunAt), debounceStartedAt: debounceStartedAt ?? undefined }, restored.lastModifiedBy ?? null);
    };
    if (existingRow) {
      const existing = rowToJob(existingRow);
      const startedAt = existing.debounceStartedAt ?? new Date(now);
      let next: StoredJob;
      if (debounce.strategy === 'leading') next = withAttrs(epochMs(existing.nextRunAt, 'nextRunAt', stored.name), startedAt);
      else if (debounce.maxWait && now - startedAt.getTime() >= debounce.maxWait) next = withAttrs(now, null);
      else next = withAttrs(now + debounce.delay, startedAt);
      const [row] = await queryRows(sql`UPDATE "AgendaJob" SET ${assignments(next)} WHERE "uniqueKey" = ${uniqueKey} RETURNING *`);
      if (row) return rowToJob(row);
    }
    const first = debounce.strategy === 'leading' ? withAttrs(stored.nextRunAt, new Date(now)) : withAttrs(now + debounce.delay, new Date(now));
    return this.upsert(uniqueKey, first);
  }

  /** Writes the fields the job processor changes (MongoDB's saveJobState); fails if the job is gone. */
  async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    if (!job._id) throw new Error('Cannot save job state without job ID');
    const patch = {
      progress: job.progress ?? null,
      failReason: job.failReason ?? null,
      failCount: job.failCount ?? null,
      lastModifiedBy: options?.lastModifiedBy ?? null,
    };
    const changed = await execute(sql`
      UPDATE "AgendaJob" SET
        "lockedAt" = ${epochMs(job.lockedAt, 'lockedAt', job.name)},
        "nextRunAt" = ${epochMs(job.nextRunAt, 'nextRunAt', job.name)},
        "lastRunAt" = ${epochMs(job.lastRunAt, 'lastRunAt', job.name)},
        "failedAt" = ${epochMs(job.failedAt, 'failedAt', job.name)},
        "lastFinishedAt" = ${epochMs(job.lastFinishedAt, 'lastFinishedAt', job.name)},
        "attrs" = ${mergedAttrs(patch)}
      WHERE "id" = ${String(job._id)} AND "name" = ${job.name}`);
    if (changed !== 1) throw new Error(`job ${job._id} (name: ${job.name}) cannot be updated in the database, maybe it does not exist anymore?`);
  }

  /** Locks this exact job if it is unlocked, enabled and still due at the time it was read. */
  async lockJob(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<JobParameters | undefined> {
    if (!job._id) return undefined;
    const nextRunAt = epochMs(job.nextRunAt, 'nextRunAt', job.name);
    const [row] = await queryRows(sql`
      UPDATE "AgendaJob" SET "lockedAt" = ${Date.now()}, "attrs" = ${mergedAttrs({ lastModifiedBy: options?.lastModifiedBy ?? null })}
      WHERE "id" = ${String(job._id)} AND "name" = ${job.name} AND "lockedAt" IS NULL AND "disabled" = false
        AND ${nextRunAt === null ? sql`"nextRunAt" IS NULL` : sql`"nextRunAt" = ${nextRunAt}`}
      RETURNING *`);
    return row ? rowToJob(row) : undefined;
  }

  /** Renews the locks of `ids` that `owner` holds (held-locks.ts's RenewLocks); returns the ids renewed. */
  async renewLocks(ids: string[], owner: string, at: Date): Promise<string[]> {
    const renewed: string[] = [];
    for (const part of chunks(ids, maxListValues)) {
      const rows = await db().$queryRaw<{ id: string }[]>(sql`
        UPDATE "AgendaJob" SET "lockedAt" = ${at.getTime()}
        WHERE "id" IN (${join(part)}) AND "lockedAt" IS NOT NULL AND json_extract("attrs", '$.lastModifiedBy') = ${owner}
        RETURNING "id"`);
      renewed.push(...rows.map((row) => row.id));
    }
    return renewed;
  }

  /** Unlocks a job that is not running (one whose nextRunAt is set). */
  async unlockJob(job: JobParameters): Promise<void> {
    if (!job._id) return;
    await execute(sql`UPDATE "AgendaJob" SET "lockedAt" = NULL WHERE "id" = ${String(job._id)} AND "nextRunAt" IS NOT NULL`);
  }

  /** Unlocks the given jobs whatever their nextRunAt (Agenda's stop() for jobs it locked but did not start). */
  async unlockJobs(jobIds: (JobId | string)[]): Promise<void> {
    for (const part of chunks(jobIds.map(String), maxListValues)) await execute(sql`UPDATE "AgendaJob" SET "lockedAt" = NULL WHERE "id" IN (${join(part)})`);
  }

  /**
   * Finds and locks, in one statement, the next job of `jobName` to run: unlocked and due by
   * `nextScanAt`, or locked before `lockDeadline` (its worker died); earliest nextRunAt first
   * (unset first, as MongoDB sorts nulls), then highest priority.
   */
  async getNextJobToRun(
    jobName: string,
    nextScanAt: Date,
    lockDeadline: Date,
    now: Date | undefined,
    options: JobRepositoryOptions | undefined,
  ): Promise<JobParameters | undefined> {
    const lockTime = (now ?? new Date()).getTime();
    const lockable = sql`"name" = ${jobName} AND "disabled" = false
      AND (("lockedAt" IS NULL AND "nextRunAt" <= ${nextScanAt.getTime()}) OR "lockedAt" <= ${lockDeadline.getTime()})`;
    // SQLite runs one writing statement at a time, so finding and locking in one statement is
    // atomic across processes; the condition is checked again on the row being updated all the same.
    const [row] = await queryRows(sql`
      UPDATE "AgendaJob" SET "lockedAt" = ${lockTime}, "attrs" = ${mergedAttrs({ lastModifiedBy: options?.lastModifiedBy ?? null })}
      WHERE "id" = (
        SELECT "id" FROM "AgendaJob" WHERE ${lockable}
        ORDER BY "nextRunAt" ASC NULLS FIRST, "priority" DESC LIMIT 1
      ) AND ${lockable}
      RETURNING *`);
    return row ? rowToJob(row) : undefined;
  }
}
