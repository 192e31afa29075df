import { checkPasswordRules, dummyVerify, hashPassword, verifyPassword } from '../auth/password.ts';
import { endSessions } from '../auth/sessions.ts';
import type { SignInLimiter } from '../auth/sign-in-limit.ts';
import { db } from '../db/client.ts';
import { InputError, NotFoundError, WrongCredentialsError } from '../errors.ts';
import type { Account } from '../generated/prisma/client.ts';
import { inputLengths } from '../limits.ts';
import { exceedsLength } from '../value-bounds.ts';

/**
 * Password sign-in and password changes, shared by the GraphQL operations and the command line.
 */

/**
 * The account `name` and `password` sign in to. A wrong password, an unknown name and an account
 * without a password all fail alike (WrongCredentialsError after the time of one scrypt
 * verification), and each failure counts against the name and the address; RateLimitedError
 * once either has failed too often, before any verification.
 */
export async function signInWithPassword(props: {
  name: string;
  password: string;
  /** The client's address (public-origin.ts clientAddress). */
  address: string | undefined;
  limiter: SignInLimiter;
}): Promise<Account> {
  await props.limiter.check({ name: props.name, address: props.address });
  const name = props.name.trim();
  const account = exceedsLength(name, inputLengths.accountName) ? null : await db().account.findUnique({ where: { name: name.normalize('NFC') } });
  const matches = account?.passwordHash ? await verifyPassword(props.password, account.passwordHash) : await dummyVerify();
  if (!account || !matches) {
    await props.limiter.fail({ name: props.name, address: props.address });
    throw new WrongCredentialsError();
  }
  return account;
}

/**
 * Sets the account's password (8–200 characters) and ends every session it has: sessions begun
 * before `passwordChangedAt` are refused on every server instance even if one survived the delete.
 * NotFoundError when the account does not exist.
 */
export async function setPassword(props: { accountId: number; password: string }): Promise<void> {
  const passwordHash = await hashPassword(props.password);
  const { count } = await db().account.updateMany({ where: { id: props.accountId }, data: { passwordHash, passwordChangedAt: new Date() } });
  if (count === 0) throw new NotFoundError(`unknown account ${props.accountId}`);
  await endSessions({ accountId: props.accountId });
}

/**
 * The signed-in person changes their own password: `currentPassword` must match when the account
 * has one (an account made by single sign-on sets its first password without). Ends every session
 * of the account; the caller starts a new one for the person who changed it.
 */
export async function changeOwnPassword(props: { accountId: number; currentPassword: string | null | undefined; newPassword: string }): Promise<void> {
  checkPasswordRules(props.newPassword, 'newPassword');
  const account = await db().account.findUnique({ where: { id: props.accountId }, select: { passwordHash: true } });
  if (!account) throw new NotFoundError(`unknown account ${props.accountId}`);
  if (account.passwordHash !== null) {
    if (props.currentPassword === undefined || props.currentPassword === null || props.currentPassword === '') {
      throw new InputError('enter your current password', 'currentPassword');
    }
    if (!(await verifyPassword(props.currentPassword, account.passwordHash))) throw new InputError('the current password is wrong', 'currentPassword');
  }
  await setPassword({ accountId: props.accountId, password: props.newPassword });
}
