import { db, fastReader, unawaitedWrite } from '../db/client.ts';
import { isForeignKeyViolation } from '../db/prisma-errors.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { decryptSecret, encryptSecret, safeEqual, sha256Hex } from '../keys/crypto.ts';
import { secretKey } from '../keys/secret-key.ts';
import { connectionTokenPrefix, generateToken, isWellFormedToken } from '../keys/token-format.ts';
import { mediaServerLimits } from '../limits.ts';
import type { MediaServerSource } from './sources/media-event.ts';

/**
 * An account's media server connections: one per source, each with its own token in the URL the
 * server calls. The token (`adw_…`, keys/token-format.ts) can only record watches through that
 * URL: it is not an API token and opens nothing else. Stored as the API token is: a SHA-256 digest
 * for the lookup, an AES-256-GCM copy to show the URL again. Regenerating replaces it (the old one
 * fails on the next delivery); revoking deletes the connection (its delivery log stays).
 */

export interface Connection {
  id: number;
  accountId: number;
  source: MediaServerSource;
  /** The server's user names whose plays count; empty: every user's. */
  users: string[];
  /** Whether manual marks on the server count. */
  manualMarks: boolean;
}

export interface ConnectionView extends Connection {
  token: string;
  createdAt: Date;
  rotatedAt: Date | null;
  lastUsedAt: Date | null;
}

const stored = (token: string) => ({ digest: sha256Hex(token), encrypted: encryptSecret(token, secretKey()) });

const unknownAccount = (accountId: number) => new NotFoundError(`unknown account ${accountId}`);

type Row = { id: number; accountId: number; source: string; users: string; manualMarks: boolean; encrypted: string; createdAt: Date; rotatedAt: Date | null; lastUsedAt: Date | null };

function view(row: Row): ConnectionView {
  return {
    id: row.id,
    accountId: row.accountId,
    source: row.source as MediaServerSource,
    users: readUsers(row.users),
    manualMarks: row.manualMarks,
    token: decryptSecret(row.encrypted, secretKey()),
    createdAt: row.createdAt,
    rotatedAt: row.rotatedAt,
    lastUsedAt: row.lastUsedAt,
  };
}

function readUsers(json: string): string[] {
  try {
    const users: unknown = JSON.parse(json);
    return Array.isArray(users) ? users.filter((user): user is string => typeof user === 'string') : [];
  } catch {
    return [];
  }
}

/** The account's connections, in source order. */
export async function listConnections(accountId: number): Promise<ConnectionView[]> {
  const rows = await db().mediaServerConnection.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
  return rows.map(view);
}

/**
 * Connects `source`: a new token when there is no connection yet, else a new token in place of
 * the old one (regenerate), the options kept. Returns the connection with its token.
 */
export async function connect(props: { accountId: number; source: MediaServerSource }): Promise<ConnectionView> {
  const token = generateToken(connectionTokenPrefix);
  try {
    const row = await db().mediaServerConnection.upsert({
      where: { accountId_source: { accountId: props.accountId, source: props.source } },
      update: { ...stored(token), rotatedAt: new Date(), lastUsedAt: null },
      create: { accountId: props.accountId, source: props.source, ...stored(token) },
    });
    return view(row);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw unknownAccount(props.accountId);
    throw error;
  }
}

/** Deletes the connection: its URL fails (401) on the next delivery. False when there was none. */
export async function revoke(props: { accountId: number; source: MediaServerSource }): Promise<boolean> {
  const { count } = await db().mediaServerConnection.deleteMany({ where: { accountId: props.accountId, source: props.source } });
  return count > 0;
}

/** Sets a connection's options (each left as it is when undefined); NotFoundError when it is not connected. */
export async function setOptions(props: { accountId: number; source: MediaServerSource; users?: string[]; manualMarks?: boolean }): Promise<ConnectionView> {
  const users = props.users === undefined ? undefined : cleanUsers(props.users);
  const { count } = await db().mediaServerConnection.updateMany({
    where: { accountId: props.accountId, source: props.source },
    data: { ...(users === undefined ? {} : { users: JSON.stringify(users) }), ...(props.manualMarks === undefined ? {} : { manualMarks: props.manualMarks }) },
  });
  if (count === 0) throw new NotFoundError(`${props.source} is not connected`);
  const row = await db().mediaServerConnection.findUniqueOrThrow({ where: { accountId_source: { accountId: props.accountId, source: props.source } } });
  return view(row);
}

/** User names trimmed, blanks and repeats dropped; InputError past the bounds. */
function cleanUsers(users: string[]): string[] {
  const kept = [...new Set(users.map((user) => user.trim()).filter((user) => user !== ''))];
  if (kept.length > mediaServerLimits.usersPerConnection) throw new InputError(`at most ${mediaServerLimits.usersPerConnection} user names`, 'users');
  if (kept.some((user) => [...user].length > mediaServerLimits.userNameLength)) throw new InputError(`a user name has at most ${mediaServerLimits.userNameLength} characters`, 'users');
  return kept;
}

/**
 * The connection `token` belongs to, or null: a malformed token (not `adw_`, bad checksum, an API
 * token) costs no query; otherwise one indexed read, decided by a constant-time comparison.
 */
export async function authenticateConnection(token: string): Promise<Connection | null> {
  if (!isWellFormedToken(token, connectionTokenPrefix)) return null;
  const digest = sha256Hex(token);
  const [row] = await fastReader().rows(
    `SELECT c."id", c."accountId", c."source", c."digest", c."users", c."manualMarks" FROM "MediaServerConnection" c WHERE c."digest" = ?`,
    [digest],
  );
  if (!row) return null;
  const [id, accountId, source, storedDigest, users, manualMarks] = row;
  if (!safeEqual(String(storedDigest), digest)) return null;
  noteUse(Number(id));
  return { id: Number(id), accountId: Number(accountId), source: String(source) as MediaServerSource, users: readUsers(String(users)), manualMarks: manualMarks === true || Number(manualMarks) === 1 };
}

/** `lastUsedAt` is written at most once a minute per connection (progress events come every few seconds). */
const lastUseWrites = new Map<number, number>();

function noteUse(id: number): void {
  const now = Date.now();
  const previous = lastUseWrites.get(id);
  if (previous !== undefined && now - previous < 60_000) return;
  if (lastUseWrites.size >= 10_000) lastUseWrites.clear();
  lastUseWrites.set(id, now);
  unawaitedWrite(
    db()
      .mediaServerConnection.updateMany({ where: { id }, data: { lastUsedAt: new Date(now) } })
      .then(
        () => undefined,
        () => void lastUseWrites.delete(id),
      ),
  );
}
