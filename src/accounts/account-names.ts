import unhomoglyph from 'unhomoglyph';
import { databaseKind } from '../db/client.ts';
import { ConflictError, InputError } from '../errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Look-alike account names. A new name is refused when it is not in Unicode NFKC form (full-width
 * or styled letters, ligatures: "ｂob" is "bob" to a reader) or when it is confusable with an
 * existing account's name per Unicode TR39: their skeletons match (NFD, each character replaced by
 * its prototype in Unicode's confusables.txt, through the unhomoglyph package, NFD again), so
 * "аdmin" with a Cyrillic "а", "adrnin" or "Admln" cannot sit beside "admin". Case is kept, as
 * names are case-sensitive ("Admin" and "admin" look different and may both exist).
 *
 * Names that only mix scripts are not refused on their own: a look-alike matters when there is an
 * account to be mistaken for, and TR39's script-mixing levels would need per-script tables to let
 * the usual mixes (Japanese Han with kana and Latin) through. Accounts made before these rules
 * keep their names and sign in as ever: the rules apply when a name is chosen.
 */

/** The TR39 skeleton of `name`: equal skeletons look alike. */
export function nameSkeleton(name: string): string {
  return unhomoglyph(name.normalize('NFD')).normalize('NFD');
}

/** InputError when `name` (trimmed, NFC) changes under NFKC: it holds compatibility characters. */
export function refuseCompatibilityCharacters(name: string): void {
  const compatible = name.normalize('NFKC');
  if (compatible !== name) {
    throw new InputError(`the account name "${name}" holds full-width or styled characters; write it as "${compatible}"`, 'name');
  }
}

/** Key of the PostgreSQL advisory lock that makes account creations take turns (any number unique to this use). */
const accountNamesLock = 7_210_521;

/**
 * ConflictError when `name` looks like (has the skeleton of) another account's name (an identical
 * name is the unique index's ConflictError). Runs in the creating transaction `tx` after its
 * insert, waiting first for any other account creation on PostgreSQL to end (an advisory lock
 * until the transaction ends; each statement then sees what those committed; on SQLite the insert
 * holds the one write lock), so of two look-alikes made at once the second sees the first.
 */
export async function refuseLookAlike(name: string, tx: Prisma.TransactionClient): Promise<void> {
  if (databaseKind() === 'postgres') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${accountNamesLock})`);
  const skeleton = nameSkeleton(name);
  const accounts = await tx.account.findMany({ select: { name: true } });
  const twin = accounts.find((account) => account.name !== name && nameSkeleton(account.name) === skeleton);
  if (twin) throw new ConflictError(`the account name "${name}" looks like the existing account "${twin.name}"; choose another`);
}
