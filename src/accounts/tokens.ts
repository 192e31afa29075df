import type { AuthenticatedAccount } from '../graphql/context.ts';
import { decryptSecret, encryptSecret, safeEqual, sha256Hex } from '../keys/crypto.ts';
import { secretKey } from '../keys/secret-key.ts';
import { generateToken, generateWebhookSecret, isWellFormedToken } from '../keys/token-format.ts';
import { databaseGeneration, db, fastReader, unawaitedWrite } from '../db/client.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { NotFoundError } from '../errors.ts';
import { registerCache } from '../metrics/cache-sizes.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../db/prisma-errors.ts';


/**
 * The account's API token, created on first view. Only a SHA-256 digest (for lookup) and an
 * AES-256-GCM copy under `secretKey()` (to show it again) are stored. Two first views racing
 * each other get the same token. NotFoundError when the account does not exist.
 */
export async function showToken(props: { accountId: number }): Promise<string> {
  const existing = await db().apiToken.findUnique({ where: { accountId: props.accountId }, select: { encrypted: true } });
  if (existing) return decryptSecret(existing.encrypted, secretKey());
  const token = generateToken();
  try {
    await db().apiToken.create({ data: { accountId: props.accountId, ...storedForm(token) } });
    return token;
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownAccount(props.accountId);
    if (!isUniqueViolation(error)) throw error;
    // Another request created the account's token between our read and our insert: show theirs.
    const winner = await db().apiToken.findUnique({ where: { accountId: props.accountId }, select: { encrypted: true } });
    if (!winner) throw error;
    return decryptSecret(winner.encrypted, secretKey());
  }
}

/**
 * Replaces the account's token with a new one and returns it. The old token fails on the very
 * next request, on every server instance: authentication keeps a row only while the database has
 * seen no commit at all since it was read (checkedTokens).
 */
export async function regenerateToken(props: { accountId: number }): Promise<string> {
  const token = generateToken();
  const stored = storedForm(token);
  try {
    await db().apiToken.upsert({
      where: { accountId: props.accountId },
      update: { ...stored, rotatedAt: new Date(), lastUsedAt: null },
      create: { accountId: props.accountId, ...stored },
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownAccount(props.accountId);
    throw error;
  }
  return token;
}

/** What the token check read for a digest, and when (the database's change counter). */
interface CheckedToken {
  generation: number;
  changes: number;
  /** Undefined: no token has this digest (a 401). */
  tokenId: number | undefined;
  account: AuthenticatedAccount | null;
}

/** Digests whose check (an account, or none: a 401) is kept at most: ~300 bytes each; more tokens than this still work, by query. */
export const checkedTokensCapacity = 1_000;

/**
 * Token checks kept while nothing at all has been committed to the database since they were read
 * (SQLite: its data_version, which any commit of any connection of any process changes, so a
 * regenerated token, a renamed account, a bumped feed version or a write of another process is
 * seen by the very next request, as without the cache). On a database that has changed the row
 * is read again; on PostgreSQL, which has no such check, it is always read. Oldest first out.
 */
const checkedTokens = new Map<string, CheckedToken>();
registerCache('token-checks', { size: () => checkedTokens.size, max: checkedTokensCapacity, unit: 'entries' });

/**
 * The per-request check: the account `token` belongs to, or null. Malformed tokens (wrong shape
 * or checksum) are refused without touching the database; otherwise it is one indexed query that
 * also reads the version counters the feed cache needs, so a request costs no second round trip —
 * or, on SQLite while nothing was committed since the same token's last check, none (checkedTokens).
 */
export async function authenticateToken(token: string): Promise<AuthenticatedAccount | null> {
  if (!isWellFormedToken(token)) return null;
  const digest = sha256Hex(token);
  const reader = fastReader();
  // Read before the row: a commit between the two leaves an entry that the next check refuses.
  const changes = reader.changeCounter();
  const generation = databaseGeneration();
  const kept = checkedTokens.get(digest);
  if (kept !== undefined && changes !== undefined && kept.changes === changes && kept.generation === generation) {
    if (kept.tokenId !== undefined) noteTokenUse(digest, kept.tokenId);
    return kept.account;
  }
  const keep = (tokenId: number | undefined, account: AuthenticatedAccount | null) => {
    if (changes === undefined) return;
    checkedTokens.delete(digest);
    checkedTokens.set(digest, { generation, changes, tokenId, account });
    if (checkedTokens.size > checkedTokensCapacity) checkedTokens.delete(checkedTokens.keys().next().value!);
  };
  // Identifiers quoted so the same statement runs on PostgreSQL, where unquoted names fold to lower case.
  const [row] = await reader.rows(
    `SELECT a."id", a."name", a."timezone", a."feedVersion", a."summaryProfile", t."id", t."digest", a."calendarVersion",
            COALESCE((SELECT s."catalogVersion" FROM "ServerState" s WHERE s."id" = 1), 0)
     FROM "ApiToken" t JOIN "Account" a ON a."id" = t."accountId"
     WHERE t."digest" = ?`,
    [digest],
  );
  if (!row) {
    // An unknown token (an old one still configured somewhere) is refused from memory too, until a commit.
    keep(undefined, null);
    return null;
  }
  const [id, name, timezone, feedVersion, summaryProfile, tokenId, storedDigest, calendarVersion, catalogVersion] = row;
  // The index lookup finds the row; the constant-time comparison is what decides.
  if (!safeEqual(String(storedDigest), digest)) return null;
  noteTokenUse(digest, Number(tokenId));
  // Frozen: a kept one is handed to every request of the token.
  const account: AuthenticatedAccount = Object.freeze({
    id: Number(id),
    name: String(name),
    timezone: String(timezone),
    feedVersion: Number(feedVersion),
    calendarVersion: Number(calendarVersion),
    catalogVersion: Number(catalogVersion),
    summaryProfile: String(summaryProfile),
    credential: Object.freeze({ kind: 'token', digest }),
  });
  keep(Number(tokenId), account);
  return account;
}

/**
 * Which of `digests` are API tokens now: a regenerated token's old digest is gone, and so is a
 * removed account's token. What a live update stream opened with a token checks every second
 * (src/library/live-updates.ts); on the reader, prismaListValues digests a query.
 */
export async function currentTokenDigests(digests: readonly string[]): Promise<Set<string>> {
  const current = new Set<string>();
  for (const part of chunks(digests, prismaListValues)) {
    const rows = await fastReader().rows(`SELECT "digest" FROM "ApiToken" WHERE "digest" IN (${part.map(() => '?').join(', ')})`, part);
    for (const [digest] of rows) current.add(String(digest));
  }
  return current;
}

/** How often `lastUsedAt` is written at most, per token: a write per request would double the cost of every call. */
export const lastUsedWriteInterval = 60_000;

/** Digests whose last `lastUsedAt` write is remembered at most (then all are forgotten at once). */
const lastUsedCapacity = 10_000;

/** Last `lastUsedAt` write per token digest, in this process. */
const lastUsedWrites = new Map<string, number>();
registerCache('token-last-used', { size: () => lastUsedWrites.size, max: lastUsedCapacity, unit: 'entries' });

function noteTokenUse(digest: string, tokenId: number): void {
  const now = Date.now();
  const previous = lastUsedWrites.get(digest);
  if (previous !== undefined && now - previous < lastUsedWriteInterval) return;
  // Old digests (rotated tokens) would otherwise pile up in a long-running process.
  if (lastUsedWrites.size >= lastUsedCapacity) lastUsedWrites.clear();
  lastUsedWrites.set(digest, now);
  const write = db()
    .apiToken.updateMany({ where: { id: tokenId, digest }, data: { lastUsedAt: new Date(now) } })
    .then(
      () => undefined,
      () => {
        // Bookkeeping only: never fail (or slow down) the request; try again on the next one.
        lastUsedWrites.delete(digest);
      },
    );
  unawaitedWrite(write);
}


/**
 * The account's Standard Webhooks signing secret (`whsec_…`), created on first view and stored
 * only encrypted in `Account.webhookSecretEnc`. Racing first views get the same secret.
 */
export async function showWebhookSecret(props: {
  accountId: number;
  /** The account's `webhookSecretEnc` when the caller has already read the row (saves a query). */
  stored?: string | null;
}): Promise<string> {
  let stored = props.stored;
  if (stored === undefined) {
    const account = await db().account.findUnique({ where: { id: props.accountId }, select: { webhookSecretEnc: true } });
    if (!account) throw unknownAccount(props.accountId);
    stored = account.webhookSecretEnc;
  }
  if (stored) return decryptSecret(stored, secretKey());
  const secret = generateWebhookSecret();
  // Conditional write: only the first of several concurrent first views stores its secret.
  const { count } = await db().account.updateMany({
    where: { id: props.accountId, webhookSecretEnc: null },
    data: { webhookSecretEnc: encryptSecret(secret, secretKey()) },
  });
  if (count === 1) return secret;
  const winner = await db().account.findUnique({ where: { id: props.accountId }, select: { webhookSecretEnc: true } });
  if (!winner?.webhookSecretEnc) throw unknownAccount(props.accountId);
  return decryptSecret(winner.webhookSecretEnc, secretKey());
}

function storedForm(token: string): { digest: string; encrypted: string } {
  return { digest: sha256Hex(token), encrypted: encryptSecret(token, secretKey()) };
}

function unknownAccount(accountId: number): NotFoundError {
  return new NotFoundError(`unknown account ${accountId}`);
}
