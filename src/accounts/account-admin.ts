import { db, databaseKind } from '../db/client.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import type { Account, Prisma } from '../generated/prisma/client.ts';
import type { AccountRole } from './accounts.ts';
import { dropInvitationsBy } from './setup-links.ts';

/**
 * What administrators do to accounts, with the two rules that keep a server manageable: nobody
 * removes their own account here, and the server never has zero administrators.
 */

/** An account as the administration page lists it. */
export type AdminAccount = Account & { sessionCount: number };

/** ForbiddenError unless `accountId` is an administrator now (read fresh: a demotion counts at once). */
export async function requireAdmin(accountId: number): Promise<void> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { role: true } });
  if (account?.role !== 'admin') throw new ForbiddenError('only administrators may do this');
}

/** A page of the accounts (checked by the caller against listLimits.adminAccounts), oldest first, with how many sessions each has. */
export async function listAccountsForAdmin(props: { first: number; offset: number }): Promise<AdminAccount[]> {
  const { first, offset } = props;
  const rows = await db().account.findMany({ orderBy: { id: 'asc' }, take: first, skip: offset, include: { _count: { select: { sessions: true } } } });
  return rows.map(({ _count, ...account }) => ({ ...account, sessionCount: _count.sessions }));
}

/** One account for the administration page; NotFoundError when it does not exist. */
export async function adminAccount(id: number): Promise<AdminAccount> {
  const row = await db().account.findUnique({ where: { id }, include: { _count: { select: { sessions: true } } } });
  if (!row) throw new NotFoundError(`unknown account ${id}`);
  const { _count, ...account } = row;
  return { ...account, sessionCount: _count.sessions };
}

/**
 * Runs `change` in a transaction that holds the administrators still (PostgreSQL: their rows
 * locked; SQLite runs one write transaction at a time), so two concurrent changes cannot each
 * remove a different one of the last two administrators.
 */
async function withAdminsHeld<T>(change: (tx: Prisma.TransactionClient, adminCount: number) => Promise<T>): Promise<T> {
  return db().$transaction(async (tx) => {
    if (databaseKind() === 'postgres') await tx.$queryRawUnsafe(`SELECT "id" FROM "Account" WHERE "role" = 'admin' FOR UPDATE`);
    const adminCount = await tx.account.count({ where: { role: 'admin' } });
    return change(tx, adminCount);
  });
}

/**
 * Removes an account and, through the database's cascades, everything of it: library, history,
 * notifications, token, sessions, pending imports; and its unused invitations. Not the
 * administrator's own account; not the last administrator.
 */
export async function removeAccount(props: { actorId: number; id: number }): Promise<void> {
  if (props.id === props.actorId) throw new ForbiddenError('you cannot remove your own account');
  await withAdminsHeld(async (tx, adminCount) => {
    const target = await tx.account.findUnique({ where: { id: props.id }, select: { role: true } });
    if (!target) throw new NotFoundError(`unknown account ${props.id}`);
    if (target.role === 'admin' && adminCount <= 1) throw new ForbiddenError('the last administrator cannot be removed');
    await dropInvitationsBy(props.id, tx);
    await tx.account.delete({ where: { id: props.id } });
  });
}

/**
 * Makes an account an administrator or a user; refuses to leave the server without administrators.
 * A demoted administrator's unused invitations are deleted with the change.
 */
export async function setAccountRole(props: { id: number; role: AccountRole }): Promise<void> {
  await withAdminsHeld(async (tx, adminCount) => {
    const target = await tx.account.findUnique({ where: { id: props.id }, select: { role: true } });
    if (!target) throw new NotFoundError(`unknown account ${props.id}`);
    if (target.role === props.role) return;
    if (target.role === 'admin' && adminCount <= 1) throw new ForbiddenError('the server must keep at least one administrator');
    await tx.account.update({ where: { id: props.id }, data: { role: props.role } });
    if (target.role === 'admin') await dropInvitationsBy(props.id, tx);
  });
}
