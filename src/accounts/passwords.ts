import { checkPasswordRules, dummyVerify, hashPassword, verifyPassword } from './password-hash.ts';
import { endSessions } from './sessions.ts';
import type { TrustedDevice } from './device-cookie.ts';
import type { Reservation, SignInLimiter } from './sign-in-limit.ts';
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
 * verification). The check is reserved with the limiter before any hashing and given back only
 * when the password was right, so each failure counts against the name (or the trusted device)
 * and the address, and concurrent attempts never pass the limit: RateLimitedError once a key has
 * failed too often, before any verification, even for the right password. RateLimitedError or
 * ServiceBusyError too when the hashing queue cannot take the check (nothing counted then).
 */
export async function signInWithPassword(props: {
  name: string;
  password: string;
  /** The client's address (public-origin.ts clientAddress). */
  address: string | undefined;
  /** The device of the request's device cookie, if any (device-cookie.ts): trusted for its account only. */
  device: TrustedDevice | undefined;
  limiter: SignInLimiter;
}): Promise<Account> {
  const name = props.name.trim();
  const account = exceedsLength(name, inputLengths.accountName) ? null : await db().account.findUnique({ where: { name: name.normalize('NFC') } });
  const deviceId = account !== null && props.device?.accountId === account.id ? props.device.deviceId : undefined;
  const reservation = await props.limiter.reserveSignIn({ name: props.name, address: props.address, deviceId });
  const matches = await checked(reservation, () =>
    account?.passwordHash ? verifyPassword(props.password, account.passwordHash, props.address) : dummyVerify(props.address),
  );
  if (!account || !matches) throw new WrongCredentialsError();
  return account;
}

/**
 * Runs a reserved password check: gives the reservation back when the password was right, and
 * when the check did not run (the hashing queue refused it); a wrong password keeps it taken.
 */
async function checked(reservation: Reservation, check: () => Promise<boolean>): Promise<boolean> {
  let matches: boolean;
  try {
    matches = await check();
  } catch (error) {
    await reservation.giveBack();
    throw error;
  }
  if (matches) await reservation.giveBack();
  return matches;
}

/**
 * Sets the account's password (8–200 characters) and ends every session it has: sessions begun
 * before `passwordChangedAt` are refused on every server instance even if one survived the delete.
 * NotFoundError when the account does not exist.
 */
export async function setPassword(props: {
  accountId: number;
  password: string;
  /** Who asked (the client's address, for the hashing queue); undefined from the command line. */
  address?: string | undefined;
}): Promise<void> {
  const passwordHash = await hashPassword(props.password, props.address);
  const { count } = await db().account.updateMany({ where: { id: props.accountId }, data: { passwordHash, passwordChangedAt: new Date() } });
  if (count === 0) throw new NotFoundError(`unknown account ${props.accountId}`);
  await endSessions({ accountId: props.accountId });
}

/**
 * The signed-in person changes their own password: `currentPassword` must match when the account
 * has one (an account made by single sign-on sets its first password without). Its check is
 * limited like a sign-in's, per account and address (RateLimitedError past it): a stolen session
 * cannot be used to guess the password. Ends every session of the account; the caller starts a
 * new one for the person who changed it.
 */
export async function changeOwnPassword(props: {
  accountId: number;
  currentPassword: string | null | undefined;
  newPassword: string;
  /** The client's address (public-origin.ts clientAddress). */
  address: string | undefined;
  limiter: SignInLimiter;
}): Promise<void> {
  checkPasswordRules(props.newPassword, 'newPassword');
  const account = await db().account.findUnique({ where: { id: props.accountId }, select: { passwordHash: true } });
  if (!account) throw new NotFoundError(`unknown account ${props.accountId}`);
  const { passwordHash } = account;
  if (passwordHash !== null) {
    if (props.currentPassword === undefined || props.currentPassword === null || props.currentPassword === '') {
      throw new InputError('enter your current password', 'currentPassword');
    }
    const currentPassword = props.currentPassword;
    const reservation = await props.limiter.reservePasswordCheck({ accountId: props.accountId, address: props.address });
    if (!(await checked(reservation, () => verifyPassword(currentPassword, passwordHash, props.address)))) {
      throw new InputError('the current password is wrong', 'currentPassword');
    }
  }
  await setPassword({ accountId: props.accountId, password: props.newPassword, address: props.address });
}
