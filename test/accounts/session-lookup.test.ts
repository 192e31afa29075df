import { describe, expect, it } from 'vitest';
import { databaseKind, db, fastReader, settleUnawaitedWrites } from '../../src/db/client.ts';
import { asEpochMs } from '../../src/db/fast-read.ts';
import { useTestApp } from '../support/database.ts';
import { signedInPerson, testOrigin } from '../support/browser.ts';
import { makeAccount } from '../support/factories.ts';

/**
 * A signed-in person's request never waits behind other accounts' writes (issue 31, item 2): the
 * session lookup reads on the reader, and what it writes (lastSeenAt, an expired row's removal) is
 * done after the answer. Checked by construction: while a write transaction of another account
 * stays open — on SQLite it holds the one writer, and every query of the write connection waits
 * for it — a request with a session cookie is answered. Before, the lookup ran on the write
 * connection and waited for the transaction to end (the bench's 1.9–2.8 s stalls during
 * 20 × markWatched(990)). Runs on SQLite and PostgreSQL.
 */
const { app } = await useTestApp();

/** A GraphQL request with the browser's cookie, answered without waiting for the writes it leaves behind. */
async function cookieRead(cookie: string): Promise<{ status: number; json: any }> {
  const response = await app.fetch(
    new Request(new URL('/graphql', testOrigin), {
      method: 'POST',
      headers: { cookie, origin: testOrigin, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { name } }' }),
    }),
    { clientAddress: '198.51.100.250' },
  );
  return { status: response.status, json: await response.json() };
}

/** Opens a write transaction of `accountId` and keeps it open until the returned release is called. */
async function holdWriter(accountId: number): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let begun!: () => void;
  const started = new Promise<void>((resolve) => (begun = resolve));
  const transaction = db().$transaction(
    async (tx) => {
      await tx.account.update({ where: { id: accountId }, data: { updatedAt: new Date() } });
      begun();
      await released;
    },
    { maxWait: 30_000, timeout: 60_000 },
  );
  await started;
  return {
    release: async () => {
      release();
      await transaction;
    },
  };
}

/** The session's stored lastSeenAt, read on the reader (the writer is held). */
async function storedLastSeen(sessionId: number): Promise<number> {
  const [row] = await fastReader().rows('SELECT "lastSeenAt" FROM "Session" WHERE "id" = ?', [sessionId]);
  return asEpochMs(row![0]);
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

describe('the session lookup and queued writes', () => {
  it("answers a cookie request while another account's write transaction holds the writer, and notes the use afterwards", { timeout: 60_000 }, async () => {
    const person = await signedInPerson(app);
    const [session] = await db().session.findMany({ where: { accountId: person.id } });
    // Last seen two minutes ago: this request is due to write lastSeenAt.
    const twoMinutesAgo = Date.now() - 120_000;
    await db().session.update({ where: { id: session!.id }, data: { lastSeenAt: new Date(twoMinutesAgo) } });
    // And a second session of the person, past its expiry: refused, its row removed later.
    const expired = await signedInPerson(app);
    await db().session.updateMany({ where: { accountId: expired.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });

    const other = await makeAccount();
    const writer = await holdWriter(other.id);
    try {
      const answer = await within(cookieRead(person.browser.cookie!), 10_000);
      expect(answer).toEqual({ status: 200, json: { data: { viewer: { name: person.name } } } });
      const refused = await within(cookieRead(expired.browser.cookie!), 10_000);
      expect(refused).not.toBe('still waiting');
      expect(refused).toMatchObject({ status: 401 });
      // On SQLite the write is queued behind the held transaction, not done: the request did not wait for it.
      if (databaseKind() === 'sqlite') expect(await storedLastSeen(session!.id)).toBe(twoMinutesAgo);
      // A second request of the same session queues no second write.
      expect(await within(cookieRead(person.browser.cookie!), 10_000)).toMatchObject({ status: 200 });
    } finally {
      await writer.release();
    }
    await settleUnawaitedWrites();
    expect(await storedLastSeen(session!.id)).toBeGreaterThan(twoMinutesAgo + 60_000);
    expect(await db().session.count({ where: { accountId: expired.id } })).toBe(0);
  });
});
