import { randomBytes } from 'node:crypto';
import { db, fastReader, unawaitedWrite } from '../db/client.ts';
import { asEpochMs } from '../db/fast-read.ts';
import { chunks, prismaListValues } from '../db/limits.ts';
import { registerCache } from '../metrics/cache-sizes.ts';
import { isSecureOrigin, type WebSettings } from '../http/public-origin.ts';
import { sessionTimes, sessionUserAgentChars } from '../limits.ts';
import type { AuthenticatedAccount } from '../graphql/context.ts';
import { safeEqual, sha256Hex } from '../keys/crypto.ts';

/**
 * Sessions of the web app: an opaque random id (32 bytes, base64url) in an HttpOnly,
 * SameSite=Lax cookie; only its SHA-256 digest is stored, so a copy of the database cannot be
 * replayed as cookies, and every server instance on the database sees every session. A session
 * ends when idle for sessionTimes.idleMs, sessionTimes.absoluteMs after it began, when signed out,
 * or when its account's password changes after it began.
 *
 * The cookie is `airdate_session`, or `__Host-airdate_session` with `Secure` when the public
 * origin is https (public-origin.ts): the prefix makes browsers refuse it from a sibling subdomain
 * or over plain http.
 */

/** How a session was started: the Session row's `method`. */
export type SessionMethod = 'password' | 'setup' | 'oidc';

/** A signed-in request: its session's row id and its account. */
export interface RequestSession {
  sessionId: number;
  account: AuthenticatedAccount;
}

let web: WebSettings = { publicUrl: undefined, trustProxy: false, allowedHosts: [] };

/** Sets the settings the cookie's name and `Secure` follow (config.web); createApp calls it once. */
export function initSessions(settings: WebSettings): void {
  web = { publicUrl: settings.publicUrl, trustProxy: settings.trustProxy, allowedHosts: settings.allowedHosts };
}

/** A cookie of ours named `base` as `request`'s public origin names it: `__Host-` prefixed on https. */
export function ownCookieName(request: Request, base: string): string {
  return isSecureOrigin(request, web) ? `__Host-${base}` : base;
}

/** The cookie's name for `request`'s public origin. */
export function sessionCookieName(request: Request): string {
  return ownCookieName(request, 'airdate_session');
}

/** Cookie attributes: readable by no script, sent on same-site requests and top-level links only. */
export function cookieAttributes(request: Request, maxAgeSeconds: number): string {
  const secure = isSecureOrigin(request, web) ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** What startSession takes. */
export interface StartSessionProps {
  accountId: number;
  method: SessionMethod;
  /** The sign-in request: its public origin names the cookie, its User-Agent is kept for the session list. */
  request: Request;
  /** Kept for the session list (public-origin.ts clientAddress). */
  clientAddress: string | undefined;
}

/**
 * Starts a session for `accountId` and returns the `Set-Cookie` header value that carries it.
 * Also removes the account's sessions that have expired (no separate cleanup job is needed).
 */
export async function startSession(props: StartSessionProps): Promise<string> {
  return (await openSession(props)).cookie;
}

/** startSession, also giving the new row's id (the GraphQL operations mark it `current`). */
export async function openSession(props: StartSessionProps): Promise<{ cookie: string; sessionId: number }> {
  const value = randomBytes(32).toString('base64url');
  const now = new Date();
  const userAgent = props.request.headers.get('user-agent');
  const { id } = await db().session.create({
    select: { id: true },
    data: {
      accountId: props.accountId,
      digest: sha256Hex(value),
      method: props.method,
      userAgent: userAgent === null || userAgent === '' ? null : [...userAgent].slice(0, sessionUserAgentChars).join(''),
      address: props.clientAddress ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + sessionTimes.absoluteMs),
    },
  });
  await db().session.deleteMany({ where: { accountId: props.accountId, OR: expiredWhere(now) } });
  return { cookie: `${sessionCookieName(props.request)}=${value}; ${cookieAttributes(props.request, Math.floor(sessionTimes.absoluteMs / 1000))}`, sessionId: id };
}

/** `Set-Cookie` value that removes the session cookie from the browser. */
export function clearCookieHeader(request: Request): string {
  return `${sessionCookieName(request)}=; ${cookieAttributes(request, 0)}`;
}

/** The value of `request`'s first cookie named `name`, trimmed; undefined when there is none. */
export function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator >= 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** The session cookie's value in `request`, or undefined (absent, empty, or not one we could have set). */
export function sessionCookieValue(request: Request): string | undefined {
  const value = cookieValue(request, sessionCookieName(request));
  // 32 bytes of base64url; anything else is refused without a lookup.
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
}

/**
 * The session and account of `request`'s cookie, or null when it has none or it is no longer
 * valid. One indexed query on the reader (fast-read.ts): on SQLite that is the read-only
 * connection, so the lookup never waits behind the writes queued at the one writer (another
 * account's bulk marks or import held every signed-in request for seconds when it ran there,
 * issue 31); on PostgreSQL the pool's next free connection. What the lookup writes is bookkeeping
 * that the request never waits for: an expired session's row is deleted, and the use is noted in
 * `lastSeenAt` at most once per sessionTimes.lastSeenWriteMs per session and process (noteSessionUse).
 */
export async function sessionFromRequest(request: Request): Promise<RequestSession | null> {
  const value = sessionCookieValue(request);
  if (value === undefined) return null;
  const digest = sha256Hex(value);
  // Identifiers quoted so the same statement runs on PostgreSQL, where unquoted names fold to lower case.
  const [row] = await fastReader().rows(
    `SELECT s."id", s."digest", s."createdAt", s."lastSeenAt", s."expiresAt",
            a."id", a."name", a."timezone", a."feedVersion", a."calendarVersion", a."summaryProfile", a."passwordChangedAt",
            COALESCE((SELECT v."catalogVersion" FROM "ServerState" v WHERE v."id" = 1), 0)
     FROM "Session" s JOIN "Account" a ON a."id" = s."accountId"
     WHERE s."digest" = ?`,
    [digest],
  );
  // The index lookup finds the row; the constant-time comparison is what decides.
  if (!row || !safeEqual(String(row[1]), digest)) return null;
  const [id, , createdAt, lastSeenAt, expiresAt, accountId, name, timezone, feedVersion, calendarVersion, summaryProfile, passwordChangedAt, catalogVersion] = row;
  const sessionId = Number(id);
  const now = Date.now();
  const seen = asEpochMs(lastSeenAt);
  const expired = sessionEnded(
    { createdAt: asEpochMs(createdAt), lastSeenAt: seen, expiresAt: asEpochMs(expiresAt), passwordChangedAt: passwordChangedAt === null ? null : asEpochMs(passwordChangedAt) },
    now,
  );
  if (expired) {
    // Refused at once; the row goes when the writer gets to it (a failed delete is tried again on the next use).
    unawaitedWrite(db().session.deleteMany({ where: { id: sessionId } }).catch(() => undefined));
    return null;
  }
  if (now - seen >= sessionTimes.lastSeenWriteMs) noteSessionUse(sessionId, now);
  return {
    sessionId,
    account: {
      id: Number(accountId),
      name: String(name),
      timezone: String(timezone),
      feedVersion: Number(feedVersion),
      calendarVersion: Number(calendarVersion),
      catalogVersion: Number(catalogVersion),
      summaryProfile: String(summaryProfile),
      credential: { kind: 'session', sessionId },
    },
  };
}

/** Sessions whose `lastSeenAt` write is remembered at most (then all are forgotten at once). */
const lastSeenCapacity = 10_000;

/** The last `lastSeenAt` write asked for, per session id, in this process. */
const lastSeenWrites = new Map<number, number>();
registerCache('session-last-seen', { size: () => lastSeenWrites.size, max: lastSeenCapacity, unit: 'entries' });

/**
 * Writes `lastSeenAt` = `now` for the session, unawaited, unless this process asked for one within
 * sessionTimes.lastSeenWriteMs: while the writer is busy (SQLite's one writer behind a burst of
 * writes) the stored `lastSeenAt` stays old, and without this every request of the session would
 * queue one more write. A failed write is forgotten, so the next request tries again.
 */
function noteSessionUse(sessionId: number, now: number): void {
  const previous = lastSeenWrites.get(sessionId);
  if (previous !== undefined && now - previous < sessionTimes.lastSeenWriteMs) return;
  if (lastSeenWrites.size >= lastSeenCapacity) lastSeenWrites.clear();
  lastSeenWrites.set(sessionId, now);
  const write = db()
    .session.updateMany({ where: { id: sessionId }, data: { lastSeenAt: new Date(now) } })
    .then(
      () => undefined,
      () => {
        // Bookkeeping only: never fail (or slow down) the request; try again on the next one.
        if (lastSeenWrites.get(sessionId) === now) lastSeenWrites.delete(sessionId);
      },
    );
  unawaitedWrite(write);
}

/** A session's times, in epoch milliseconds, and its account's last password change (null: never). */
interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  passwordChangedAt: number | null;
}

/** The rule of a session's end at `now`: past its absolute expiry, idle too long, or begun before the password last changed. */
function sessionEnded(session: SessionTimes, now: number): boolean {
  return (
    session.expiresAt <= now ||
    session.lastSeenAt + sessionTimes.idleMs <= now ||
    (session.passwordChangedAt !== null && session.createdAt < session.passwordChangedAt)
  );
}

/**
 * Which of `ids` are sessions that still stand at `now` (not signed out, not ended by sign out
 * everywhere, a password change or a reset, not expired, their account not removed): what a live
 * update stream opened with a session checks every second (src/library/live-updates.ts). On the
 * reader, prismaListValues ids a query; nothing is deleted or written here.
 */
export async function standingSessionIds(ids: readonly number[], now: number = Date.now()): Promise<Set<number>> {
  const standing = new Set<number>();
  for (const part of chunks(ids, prismaListValues)) {
    const rows = await fastReader().rows(
      `SELECT s."id", s."createdAt", s."lastSeenAt", s."expiresAt", a."passwordChangedAt"
       FROM "Session" s JOIN "Account" a ON a."id" = s."accountId"
       WHERE s."id" IN (${part.map(() => '?').join(', ')})`,
      part,
    );
    for (const [id, createdAt, lastSeenAt, expiresAt, passwordChangedAt] of rows) {
      const times = { createdAt: asEpochMs(createdAt), lastSeenAt: asEpochMs(lastSeenAt), expiresAt: asEpochMs(expiresAt), passwordChangedAt: passwordChangedAt === null ? null : asEpochMs(passwordChangedAt) };
      if (!sessionEnded(times, now)) standing.add(Number(id));
    }
  }
  return standing;
}

/** Ends one session (signing out); no error when it is already gone. */
export async function endSession(id: number): Promise<void> {
  await db().session.deleteMany({ where: { id } });
}

/** Ends every session of the account but `exceptId` (when given); returns how many ended. */
export async function endSessions(props: { accountId: number; exceptId?: number }): Promise<number> {
  const { count } = await db().session.deleteMany({
    where: { accountId: props.accountId, ...(props.exceptId === undefined ? {} : { id: { not: props.exceptId } }) },
  });
  return count;
}

/** Prisma filter for sessions past their absolute or idle expiry at `now`. */
function expiredWhere(now: Date) {
  return [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - sessionTimes.idleMs) } }];
}
