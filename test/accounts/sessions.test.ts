import { describe, expect, it } from 'vitest';
import { clearCookieHeader, endSession, endSessions, initSessions, sessionFromRequest, startSession } from '../../src/accounts/sessions.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db, settleUnawaitedWrites } from '../../src/db/client.ts';
import { sessionTimes } from '../../src/limits.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';

initSecretKey(await useTestDatabase());
initSessions({ publicUrl: undefined, trustProxy: false, allowedHosts: [] });

const page = (headers: Record<string, string> = {}) => new Request('http://airdate.test/graphql', { headers });

/** Starts a session and returns its cookie (`name=value`) and the Set-Cookie header. */
async function signIn(accountId: number, request = page({ 'user-agent': 'Firefox/140' })) {
  const header = await startSession({ accountId, method: 'password', request, clientAddress: '192.0.2.4' });
  return { header, cookie: header.split(';')[0]! };
}

describe('startSession / sessionFromRequest', () => {
  it('sets an HttpOnly SameSite=Lax cookie and stores only the digest', async () => {
    const account = await makeAccount();
    const { header, cookie } = await signIn(account.id);
    expect(header).toMatch(/^airdate_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    const value = cookie.split('=')[1]!;
    const rows = await db().session.findMany({ where: { accountId: account.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: 'password', userAgent: 'Firefox/140', address: '192.0.2.4' });
    expect(rows[0]!.digest).not.toContain(value);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(sessionTimes.absoluteMs);
    const found = await sessionFromRequest(page({ cookie: `other=1; ${cookie}` }));
    expect(found).toMatchObject({ sessionId: rows[0]!.id, account: { id: account.id, name: account.name } });
  });

  it('is Secure and __Host- prefixed when the public origin is https', async () => {
    const account = await makeAccount();
    initSessions({ publicUrl: 'https://airdate.example.com', trustProxy: false, allowedHosts: [] });
    try {
      const { header, cookie } = await signIn(account.id);
      expect(header).toMatch(/^__Host-airdate_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000; Secure$/);
      expect(await sessionFromRequest(page({ cookie }))).not.toBeNull();
      // The plain name is not read on an https origin (a cookie set by a sibling over http).
      expect(await sessionFromRequest(page({ cookie: cookie.replace('__Host-', '') }))).toBeNull();
      expect(clearCookieHeader(page())).toBe('__Host-airdate_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure');
    } finally {
      initSessions({ publicUrl: undefined, trustProxy: false, allowedHosts: [] });
    }
  });

  it('answers null for no cookie, a malformed one, or an unknown one', async () => {
    expect(await sessionFromRequest(page())).toBeNull();
    expect(await sessionFromRequest(page({ cookie: 'airdate_session=' }))).toBeNull();
    expect(await sessionFromRequest(page({ cookie: `airdate_session=${'x'.repeat(5000)}` }))).toBeNull();
    expect(await sessionFromRequest(page({ cookie: `airdate_session=${'A'.repeat(43)}` }))).toBeNull();
  });

  it('ends a session idle for 14 days, and one 30 days old, deleting the row', async () => {
    const account = await makeAccount();
    const idle = await signIn(account.id);
    const old = await signIn(account.id);
    const [idleRow, oldRow] = await db().session.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
    const now = Date.now();
    await db().session.update({ where: { id: idleRow!.id }, data: { lastSeenAt: new Date(now - sessionTimes.idleMs - 1000) } });
    await db().session.update({ where: { id: oldRow!.id }, data: { expiresAt: new Date(now - 1000) } });
    expect(await sessionFromRequest(page({ cookie: idle.cookie }))).toBeNull();
    expect(await sessionFromRequest(page({ cookie: old.cookie }))).toBeNull();
    // Deleted without the request waiting for it.
    await settleUnawaitedWrites();
    expect(await db().session.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('keeps a session seen 13 days ago and writes lastSeenAt, at most once a minute', async () => {
    const account = await makeAccount();
    const { cookie } = await signIn(account.id);
    const row = await db().session.findFirstOrThrow({ where: { accountId: account.id } });
    const thirteenDays = new Date(Date.now() - 13 * 24 * 60 * 60 * 1000);
    await db().session.update({ where: { id: row.id }, data: { lastSeenAt: thirteenDays } });
    expect(await sessionFromRequest(page({ cookie }))).not.toBeNull();
    await settleUnawaitedWrites();
    const seen = (await db().session.findUniqueOrThrow({ where: { id: row.id } })).lastSeenAt;
    expect(seen.getTime()).toBeGreaterThan(Date.now() - 10_000);
    expect(await sessionFromRequest(page({ cookie }))).not.toBeNull();
    await settleUnawaitedWrites();
    expect((await db().session.findUniqueOrThrow({ where: { id: row.id } })).lastSeenAt).toEqual(seen);
  });

  it('refuses sessions that began before the password changed', async () => {
    const account = await makeAccount();
    const { cookie } = await signIn(account.id);
    await db().account.update({ where: { id: account.id }, data: { passwordChangedAt: new Date(Date.now() + 5) } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await sessionFromRequest(page({ cookie }))).toBeNull();
    const after = await signIn(account.id);
    expect(await sessionFromRequest(page({ cookie: after.cookie }))).not.toBeNull();
  });
});

describe('endSession / endSessions', () => {
  it('ends one session, or all of an account but one, leaving other accounts alone', async () => {
    const [account, other] = [await makeAccount(), await makeAccount()];
    const sessions = [await signIn(account.id), await signIn(account.id), await signIn(account.id)];
    const others = await signIn(other.id);
    const ids = (await db().session.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } })).map((row) => row.id);
    await endSession(ids[0]!);
    expect(await sessionFromRequest(page({ cookie: sessions[0]!.cookie }))).toBeNull();
    expect(await endSessions({ accountId: account.id, exceptId: ids[2] })).toBe(1);
    expect(await sessionFromRequest(page({ cookie: sessions[1]!.cookie }))).toBeNull();
    expect(await sessionFromRequest(page({ cookie: sessions[2]!.cookie }))).not.toBeNull();
    expect(await endSessions({ accountId: account.id })).toBe(1);
    expect(await sessionFromRequest(page({ cookie: others.cookie }))).not.toBeNull();
    expect(clearCookieHeader(page())).toBe('airdate_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});
