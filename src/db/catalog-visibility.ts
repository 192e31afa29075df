import { Prisma } from '../generated/prisma/client.ts';

/**
 * Who sees a catalog row (docs/security.md, "Rows created from import files, and posters"). A
 * show, movie or game an import file created carries its importer's id in `ownerAccountId`: its
 * title, poster and overview are what the file said, so only that account sees it, follows it or
 * marks it (and its episodes), until a catalog answers for one of its ids; the catalog's data then
 * replaces the file's and the row is shared (`ownerAccountId` null). Every read or write of
 * catalog rows on an account's behalf goes through one of these conditions; the rule is written
 * once, here, in the forms the code needs: a Prisma filter and SQL.
 */

/** Prisma filter of the show, movie or game rows `accountId` may see. */
export function visibleTo(accountId: number): { OR: [{ ownerAccountId: null }, { ownerAccountId: number }] } {
  return { OR: [{ ownerAccountId: null }, { ownerAccountId: accountId }] };
}

/** Prisma filter of the episodes `accountId` may see: those of a show it may see. */
export function episodesVisibleTo(accountId: number): { show: ReturnType<typeof visibleTo> } {
  return { show: visibleTo(accountId) };
}

/** SQL condition on a show, movie or game row (`alias` names it, when the query aliases the table). */
export function visibleSql(accountId: number, alias?: string): Prisma.Sql {
  const column = Prisma.raw(alias ? `${alias}."ownerAccountId"` : '"ownerAccountId"');
  return Prisma.sql`(${column} IS NULL OR ${column} = ${accountId})`;
}

/**
 * The same condition as text for the fast writer's prepared statements, over `table`'s row `id`
 * and the account parameter `accountParam` (`?` on SQLite, `$1::int` on PostgreSQL). An episode is
 * visible when its show is.
 */
export function visibleItemSql(table: 'Show' | 'Movie' | 'Game' | 'Episode', accountParam: string): string {
  const own = (alias: string) => `(${alias}."ownerAccountId" IS NULL OR ${alias}."ownerAccountId" = ${accountParam})`;
  if (table === 'Episode') return `EXISTS (SELECT 1 FROM "Show" s WHERE s.id = "Episode"."showId" AND ${own('s')})`;
  return own(`"${table}"`);
}
