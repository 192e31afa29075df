import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../keys/crypto.ts';
import { db, databaseKind } from '../db/client.ts';
import { InputError } from '../errors.ts';
import type { Account, Prisma } from '../generated/prisma/client.ts';
import { setupLinkValidityMs } from '../limits.ts';
import { insertAccount, newAccountData } from './accounts.ts';

/**
 * One-time links that create an account: `first-admin` (printed by the server while no account
 * exists; it makes the administrator, and only while there is still no account) and `invite`
 * (made by an administrator, or by `airdate setup-link`; it makes a user). The code is 32 random
 * bytes (base64url); only its SHA-256 digest is stored; a link works once, within
 * setupLinkValidityMs. An administrator's invitation works only while its maker is one: demoting
 * or removing an administrator deletes the invitations they made that are still unused
 * (account-admin.ts), and a link whose maker is not an administrator now is refused in any case.
 */
export type SetupLinkPurpose = 'first-admin' | 'invite';

/** Creates a link and returns its code (shown once: only the digest is kept) and its expiry. */
export async function createSetupLink(props: { purpose: SetupLinkPurpose; createdById?: number }): Promise<{ code: string; expiresAt: Date }> {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + setupLinkValidityMs);
  await db().setupLink.create({ data: { digest: sha256Hex(code), purpose: props.purpose, createdById: props.createdById ?? null, expiresAt } });
  return { code, expiresAt };
}

/** The page a link opens: the code in the fragment, which browsers never send to a server or a log. */
export function setupLinkUrl(origin: string, code: string): string {
  return `${origin}/setup#code=${code}`;
}

/** Whether the server has no account yet (first run: the setup link is the only way in). */
export async function setupRequired(): Promise<boolean> {
  return (await db().account.count()) === 0;
}

/**
 * The link's purpose and expiry while it can still be used; null when unknown, used, expired, a
 * first-admin link once an account exists, or an invitation whose maker is no longer an
 * administrator (demoted or removed).
 */
export async function usableSetupLink(code: string): Promise<{ purpose: SetupLinkPurpose; expiresAt: Date } | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(code)) return null;
  const link = await db().setupLink.findUnique({ where: { digest: sha256Hex(code) } });
  if (!link || link.usedAt !== null || link.expiresAt.getTime() <= Date.now()) return null;
  const purpose = link.purpose === 'first-admin' ? 'first-admin' : 'invite';
  if (purpose === 'first-admin' && !(await setupRequired())) return null;
  if (link.createdById !== null) {
    const maker = await db().account.findUnique({ where: { id: link.createdById }, select: { role: true } });
    if (maker?.role !== 'admin') return null;
  }
  return { purpose, expiresAt: link.expiresAt };
}

/**
 * Deletes the unused invitations `accountId` made: in the transaction that demotes or removes that
 * administrator, so a link redeemed at the same moment either committed first (made while its
 * maker was one) or finds nothing to mark used (PostgreSQL's row lock orders the two).
 */
export async function dropInvitationsBy(accountId: number, tx: Prisma.TransactionClient): Promise<void> {
  await tx.setupLink.deleteMany({ where: { createdById: accountId, usedAt: null } });
}

/**
 * Uses the link: creates the account (an administrator for a first-admin link, a user for an
 * invitation) and marks the link used, in one transaction; a conditional update makes sure two
 * requests with the same code cannot both succeed. InputError for a link that cannot be used.
 */
export async function redeemSetupLink(props: { code: string; name: string; password: string; timezone?: string; address?: string | undefined }): Promise<Account> {
  const unusable = new InputError('this setup link is unknown, used or expired; ask for a new one', 'code');
  const link = await usableSetupLink(props.code);
  if (!link) throw unusable;
  // Validates name, zone and password (and hashes it) before the transaction, which stays short.
  const data = await newAccountData({
    name: props.name,
    timezone: props.timezone,
    password: props.password,
    role: link.purpose === 'first-admin' ? 'admin' : 'user',
    address: props.address,
  });
  return db().$transaction(async (tx) => {
    // PostgreSQL: take the accounts' lock so two first-admin links cannot both see "no account".
    if (databaseKind() === 'postgres' && link.purpose === 'first-admin') await tx.$executeRawUnsafe('LOCK TABLE "Account" IN SHARE ROW EXCLUSIVE MODE');
    const { count } = await tx.setupLink.updateMany({
      where: { digest: sha256Hex(props.code), usedAt: null, expiresAt: { gt: new Date() } },
      data: { usedAt: new Date() },
    });
    if (count !== 1) throw unusable;
    if (link.purpose === 'first-admin' && (await tx.account.count()) > 0) throw unusable;
    return insertAccount(data, tx);
  });
}

/**
 * First run: when no account exists, a new first-admin link for `origin` (the server prints it at
 * start, `airdate setup-link` on demand); otherwise an invitation when `inviteOtherwise`, else null.
 */
export async function setupLinkForServer(props: { origin: string; inviteOtherwise: boolean }): Promise<{ url: string; purpose: SetupLinkPurpose } | null> {
  const purpose: SetupLinkPurpose | null = (await setupRequired()) ? 'first-admin' : props.inviteOtherwise ? 'invite' : null;
  if (purpose === null) return null;
  const { code } = await createSetupLink({ purpose });
  return { url: setupLinkUrl(props.origin, code), purpose };
}
