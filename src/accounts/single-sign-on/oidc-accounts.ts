import { randomBytes } from 'node:crypto';
import { db } from '../../db/client.ts';
import { inputLengths } from '../../limits.ts';
import { ConflictError } from '../../errors.ts';
import { insertAccount } from '../accounts.ts';
import { isUniqueViolation } from '../../db/prisma-errors.ts';
import type { VerifiedIdentity } from './oidc.ts';
import { OidcError } from './oidc.ts';

/**
 * Which Airdate account an identity from the OpenID provider signs in to. Accounts are matched by
 * `oidcSubject` (issuer + " " + sub) only, never by name or email: a provider's usernames and
 * addresses can change hands, its `sub` cannot.
 */

/** Refusal when the identity is unknown and AIRDATE_OIDC_CREATE_USERS is off. */
export const noLinkedAccountMessage =
  'no Airdate account is linked to this sign-in; ask an administrator to create an account for you, then link it in your account settings';

/**
 * The account linked to `identity`; when there is none and `createUsers`, a new one (a user, never
 * an administrator; time zone UTC; no password) named after the identity: the first candidate
 * name neither taken nor looking like a taken one (services/account-names.ts). Throws OidcError
 * with noLinkedAccountMessage otherwise.
 */
export async function accountForIdentity(identity: VerifiedIdentity, createUsers: boolean): Promise<{ id: number; created: boolean }> {
  const linked = await db().account.findUnique({ where: { oidcSubject: identity.subject }, select: { id: true } });
  if (linked) return { id: linked.id, created: false };
  if (!createUsers) throw new OidcError(noLinkedAccountMessage);
  const base = accountNameBase(identity);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = candidateName(base, attempt);
    try {
      const account = await insertAccount({ name, timezone: 'UTC', role: 'user', passwordHash: null, oidcSubject: identity.subject });
      return { id: account.id, created: true };
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Either the name is taken or looks like a taken one (try the next one), or a simultaneous
      // sign-in of the same person created the account first (use it).
      const raced = await db().account.findUnique({ where: { oidcSubject: identity.subject }, select: { id: true } });
      if (raced) return { id: raced.id, created: false };
    }
  }
  throw new OidcError('could not find a free account name for this sign-in; ask an administrator to create your account');
}

/**
 * Links `identity` to the signed-in account `accountId` (replacing an identity linked before).
 * Refused when another account holds it: one identity signs in to one account.
 */
export async function linkIdentity(accountId: number, identity: VerifiedIdentity): Promise<void> {
  const holder = await db().account.findUnique({ where: { oidcSubject: identity.subject }, select: { id: true } });
  if (holder && holder.id !== accountId) throw new OidcError('this sign-in is already linked to another Airdate account');
  try {
    const { count } = await db().account.updateMany({ where: { id: accountId }, data: { oidcSubject: identity.subject } });
    if (count === 0) throw new OidcError('the account to link no longer exists');
  } catch (error) {
    if (isUniqueViolation(error)) throw new OidcError('this sign-in is already linked to another Airdate account');
    throw error;
  }
}

const accountNameChars = /[^\p{L}\p{N}._@-]+/gu;

/**
 * A valid account name (letters, digits, `._-@`, NFKC; see services/accounts.ts) from the
 * identity's preferred_username, else the local part of its email, else "user"; other characters
 * become `-`.
 */
export function accountNameBase(identity: Pick<VerifiedIdentity, 'preferredUsername' | 'email'>): string {
  const emailLocal = identity.email?.includes('@') ? identity.email.slice(0, identity.email.lastIndexOf('@')) : undefined;
  for (const source of [identity.preferredUsername, emailLocal]) {
    const name = (source ?? '')
      .normalize('NFKC')
      .replace(accountNameChars, '-')
      .replace(/^-+|-+$/g, '');
    if (name !== '') return [...name].slice(0, inputLengths.accountName).join('');
  }
  return 'user';
}

/** `base` for the first attempt, then `base-2`, `base-3`…, then a random suffix; always within inputLengths.accountName. */
function candidateName(base: string, attempt: number): string {
  if (attempt === 1) return base;
  const suffix = attempt <= 20 ? `-${attempt}` : `-${randomBytes(4).toString('hex')}`;
  return [...base].slice(0, inputLengths.accountName - suffix.length).join('') + suffix;
}
