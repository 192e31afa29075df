import { db } from '../db/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { encodeAttrs, writtenColumns, type AgendaJobRow, type StoredJob } from './job-row.ts';

/**
 * SQL pieces the job store shares, in SQLite's dialect: the store runs on SQLite only (on
 * PostgreSQL the jobs are @agendajs/postgres-backend's). Everything goes through Prisma's raw API
 * with bound values; identifiers are constants of this module.
 */

export type Sql = Prisma.Sql;
export const sql = Prisma.sql;
export const join = Prisma.join;
export const raw = Prisma.raw;

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
 * json_patch drops a field set to null, which reads back as unset. Patch values here are plain
 * scalars, so json_patch's recursive merge of objects never applies.
 */
export function mergedAttrs(patch: Record<string, unknown>): Sql {
  return sql`json_patch("attrs", ${encodeAttrs(patch)})`;
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

/** Bound values per `IN (...)` list, well under SQLite's parameter limit (32 766). */
export const maxListValues = 5_000;


