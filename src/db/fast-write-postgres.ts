import type pg from 'pg';
import { itemColumn, itemTable, type FastWriter, type FollowKind, type WatchKind, type WriteResult } from './fast-write.ts';
import { DatabaseError } from './errors.ts';
import { accountVersionAssignments } from './stale-versions.ts';
import { visibleItemSql } from './catalog-visibility.ts';

/**
 * A watched toggle as one statement: the item's existence, the conditional flip of the state (or
 * its creation on the first watch), the history entry and the feed version bump, each a CTE that
 * runs only when the flip or the creation did. Concurrent toggles of one item stay correct under
 * READ COMMITTED: the flip's `watched = NOT $3` is re-checked on the row a concurrent writer left,
 * and a concurrent first watch makes the creation a no-op (ON CONFLICT DO NOTHING) that changed nothing.
 * Timestamps go as UTC text: the columns are zone-less and Prisma writes UTC there.
 */
const watchedSql = (kind: WatchKind) => `
  WITH item AS (SELECT id FROM "${itemTable[kind]}" WHERE id = $2::int AND ${visibleItemSql(itemTable[kind], '$1::int')}),
  flipped AS (
    UPDATE "WatchState" SET watched = $3::boolean, "changedAt" = $4::timestamp
    WHERE "accountId" = $1::int AND "${itemColumn[kind]}" = $2::int AND watched = NOT $3::boolean
    RETURNING id
  ),
  created AS (
    INSERT INTO "WatchState" ("accountId", kind, "${itemColumn[kind]}", watched, "changedAt")
    SELECT $1::int, $5::text, id, true, $4::timestamp FROM item
    WHERE $3::boolean AND NOT EXISTS (SELECT 1 FROM flipped)
    ON CONFLICT ("accountId", "${itemColumn[kind]}") DO NOTHING
    RETURNING id
  ),
  changed AS (SELECT id FROM flipped UNION ALL SELECT id FROM created),
  event AS (
    INSERT INTO "WatchEvent" ("accountId", kind, "${itemColumn[kind]}", watched, at, source)
    SELECT $1::int, $5::text, $2::int, $3::boolean, $4::timestamp, $6::text WHERE EXISTS (SELECT 1 FROM changed)
  ),
  bumped AS (
    UPDATE "Account" SET ${accountVersionAssignments({ watches: true })}, "updatedAt" = $4::timestamp
    WHERE id = $1::int AND EXISTS (SELECT 1 FROM changed)
    RETURNING "feedVersion"
  )
  SELECT EXISTS (SELECT 1 FROM item) AS found, EXISTS (SELECT 1 FROM changed) AS changed, (SELECT "feedVersion" FROM bumped) AS "feedVersion"`;

/**
 * A follow/archive change as one upsert: a new row takes the given flags (false when omitted),
 * an existing one keeps what is omitted; both remember what was set explicitly, and followedAt
 * moves when the follow flag turns on. The update runs only when a flag differs, so `RETURNING`
 * says whether anything changed, and only then are the feed and calendar versions bumped.
 */
const followSql = (kind: FollowKind) => {
  const old = '"LibraryItem"';
  const next = `COALESCE($4::boolean, ${old}.followed), COALESCE($5::boolean, ${old}.archived),
    ${old}."followExplicit" OR $4::boolean IS NOT NULL, ${old}."archiveExplicit" OR $5::boolean IS NOT NULL`;
  return `
  WITH item AS (SELECT id FROM "${itemTable[kind]}" WHERE id = $2::int AND ${visibleItemSql(itemTable[kind], '$1::int')}),
  upserted AS (
    INSERT INTO "LibraryItem" ("accountId", kind, "${itemColumn[kind]}", followed, archived, "followExplicit", "archiveExplicit", "followedAt", "createdAt", "updatedAt")
    SELECT $1::int, $3::text, id, COALESCE($4::boolean, false), COALESCE($5::boolean, false), $4::boolean IS NOT NULL, $5::boolean IS NOT NULL,
      CASE WHEN $4::boolean THEN $6::timestamp END, $6::timestamp, $6::timestamp
    FROM item
    ON CONFLICT ("accountId", "${itemColumn[kind]}") DO UPDATE SET
      (followed, archived, "followExplicit", "archiveExplicit") = (${next}),
      "followedAt" = CASE WHEN $4::boolean AND NOT ${old}.followed THEN $6::timestamp ELSE ${old}."followedAt" END,
      "updatedAt" = $6::timestamp
    WHERE (${old}.followed, ${old}.archived, ${old}."followExplicit", ${old}."archiveExplicit") IS DISTINCT FROM (${next})
    RETURNING id
  ),
  bumped AS (
    UPDATE "Account" SET ${accountVersionAssignments({ library: true })}, "updatedAt" = $6::timestamp
    WHERE id = $1::int AND EXISTS (SELECT 1 FROM upserted)
    RETURNING "feedVersion"
  )
  SELECT EXISTS (SELECT 1 FROM item) AS found, EXISTS (SELECT 1 FROM upserted) AS changed, (SELECT "feedVersion" FROM bumped) AS "feedVersion"`;
};

interface ResultRow {
  found: boolean;
  changed: boolean;
  feedVersion: number | null;
}

function result(row: ResultRow): WriteResult {
  if (!row.found) return { outcome: 'missing', feedVersion: null };
  if (!row.changed) return { outcome: 'unchanged', feedVersion: null };
  // A change whose account is gone bumped nothing: like SQLite's writer, that is an error.
  if (row.feedVersion === null) throw new DatabaseError('the account does not exist');
  return { outcome: 'changed', feedVersion: Number(row.feedVersion) };
}

/**
 * The PostgreSQL writer: each change is one named prepared statement on the shared pool (parsed
 * and planned once per connection), one round trip, its own implicit transaction.
 */
export function openPostgresWriter(pool: pg.Pool, onQuery: () => void): FastWriter {
  const run = async (name: string, text: string, values: unknown[]): Promise<WriteResult> => {
    onQuery();
    const answer = await pool.query<ResultRow>({ name, text, values });
    return result(answer.rows[0]!);
  };
  const watched = { episode: watchedSql('episode'), movie: watchedSql('movie'), game: watchedSql('game') };
  const follow = { show: followSql('show'), movie: followSql('movie'), game: followSql('game') };
  return {
    setWatched: (change) =>
      run(`airdate-watched-${change.kind}`, watched[change.kind], [change.accountId, change.id, change.watched, change.at.toISOString(), change.kind, change.source]),
    setFollow: (change) =>
      run(`airdate-follow-${change.kind}`, follow[change.kind], [
        change.accountId,
        change.id,
        change.kind,
        change.followed ?? null,
        change.archived ?? null,
        change.now.toISOString(),
      ]),
    // The pool is Prisma's and the reader's too; client.ts ends it.
    async close() {},
  };
}
