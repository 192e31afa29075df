import { databaseKind, db } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { encodeAttrs, writtenColumns, type AgendaJobRow, type StoredJob } from './job-row.ts';

/**
 * SQL pieces the job store shares. Everything goes through Prisma's raw API with bound values
 * (Prisma writes each database's placeholders); identifiers are constants of this module.
 */

export type Sql = Prisma.Sql;
export const sql = Prisma.sql;
export const join = Prisma.join;
export const raw = Prisma.raw;
export const empty = Prisma.empty;

/** Runs a statement that returns AgendaJob rows (SELECT, or a write with RETURNING). */
export function queryRows(query: Sql): Promise<AgendaJobRow[]> {
  return db().$queryRaw<AgendaJobRow[]>(query);
}

/** Runs a write; resolves to the number of rows it changed. */
export function execute(query: Sql): Promise<number> {
  return db().$executeRaw(query);
}

/** A quoted column name. */
export function column(name: string): Sql {
  return raw(`"${name}"`);
}

/**
 * `attrs` with the given top-level fields replaced (a shallow merge, so `data` is untouched).
 * SQLite's json_patch drops a field set to null, PostgreSQL's `||` keeps it as null: both read
 * back as unset. Patch values here are plain scalars, so json_patch's recursive merge of objects
 * never applies.
 */
export function mergedAttrs(patch: Record<string, unknown>): Sql {
  const text = encodeAttrs(patch);
  return databaseKind() === 'postgres' ? sql`("attrs"::jsonb || ${text}::jsonb)::text` : sql`json_patch("attrs", ${text})`;
}

/** Case-insensitive LIKE on both databases (SQLite's LIKE already ignores ASCII case). */
export function likeInsensitive(): Sql {
  return raw(databaseKind() === 'postgres' ? 'ILIKE' : 'LIKE');
}

/**
 * Row lock for the candidate subselect of `getNextJobToRun`: on PostgreSQL a concurrent locker
 * skips a row another transaction holds instead of waiting for it; SQLite runs one writing
 * statement at a time, so the statement alone is atomic there.
 */
export function skipLockedRows(): Sql {
  return databaseKind() === 'postgres' ? raw('FOR UPDATE SKIP LOCKED') : empty;
}

/** The values of `job` in `writtenColumns` order. */
export function storedValues(job: StoredJob): unknown[] {
  return writtenColumns.map((name) => job[name]);
}

/** `INSERT INTO "AgendaJob" (...) VALUES (...)` for a new row. */
export function insertStatement(id: string, uniqueKey: string | null, job: StoredJob): Sql {
  const names = join(['id', 'uniqueKey', ...writtenColumns].map(column));
  return sql`INSERT INTO "AgendaJob" (${names}) VALUES (${join([id, uniqueKey, ...storedValues(job)])})`;
}

/** `"col" = value, ...` for every written column, optionally leaving some out. */
export function assignments(job: StoredJob, leaveOut: readonly string[] = []): Sql {
  return join(
    writtenColumns.filter((name) => !leaveOut.includes(name)).map((name) => sql`${column(name)} = ${job[name]}`),
    ', ',
  );
}

/** `"col" = excluded."col", ...` for an upsert's DO UPDATE, optionally leaving some out. */
export function assignmentsFromExcluded(leaveOut: readonly string[] = []): Sql {
  return raw(
    writtenColumns
      .filter((name) => !leaveOut.includes(name))
      .map((name) => `"${name}" = excluded."${name}"`)
      .join(', '),
  );
}

/** Bound values per `IN (...)` list, well under both databases' parameter limits. */
export const maxListValues = 5_000;


