import { describe, expect, it } from 'vitest';
import { removeAccount } from '../../src/accounts/account-admin.ts';
import { endSession, endSessions, openSession } from '../../src/accounts/sessions.ts';
import { setPassword } from '../../src/accounts/passwords.ts';
import { regenerateToken } from '../../src/accounts/tokens.ts';
import { db } from '../../src/db/client.ts';
import type { Credential } from '../../src/graphql/context.ts';
import { sha256Hex } from '../../src/keys/crypto.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { createLiveUpdates, TooManyStreamsError } from '../../src/library/live-updates.ts';
import { createLogger } from '../../src/log.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';

// The hub behind libraryChanged, on the test database: a bumped feed version reaches each of the
// account's streams once (the latest of several), a removed account's streams end, the bounds per
// credential and per account, a stream's return() frees its place, close() ends every stream; and
// a stream ends with the session or token that opened it, however that ends, hearing nothing of a
// change made after, and its place is free for the owner's next stream at once.
initSecretKey(await useTestDatabase());
const logger = createLogger({ level: 'silent', format: 'json' });
const bump = (accountId: number) => db().account.update({ where: { id: accountId }, data: { feedVersion: { increment: 1 } } });
const soon = <T>(promise: Promise<T>, ms = 3_000) => Promise.race([promise, new Promise<'nothing'>((done) => setTimeout(() => done('nothing'), ms))]);
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** An account with its API token as the credential a request with it carries. */
async function withToken() {
  const account = await makeAccount();
  return { ...account, credential: { kind: 'token', digest: sha256Hex(account.token) } as Credential };
}

/** A new session of the account, as signing in starts one. */
async function session(accountId: number): Promise<Credential & { kind: 'session' }> {
  const { sessionId } = await openSession({ accountId, method: 'password', request: new Request('http://airdate.test/graphql'), clientAddress: undefined });
  return { kind: 'session', sessionId };
}

describe('the live updates hub', () => {
  it('tells every stream of the account of a change, coalesces a burst, and ends streams of a removed account', async () => {
    const live = createLiveUpdates({ logger, pollMs: 50, maxStreamsPerCredential: 3, maxStreamsPerAccount: 6 });
    const alice = await withToken();
    const bob = await withToken();
    const [first, second] = await Promise.all([live.open(alice.id, alice.credential), live.open(alice.id, alice.credential)]);
    const theirs = await live.open(bob.id, bob.credential);
    await pause(200);
    const before = (await db().account.findUniqueOrThrow({ where: { id: alice.id } })).feedVersion;
    await bump(alice.id);
    expect(await soon(first.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 1 }) });
    expect(await soon(second.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 1 }) });
    // A burst read as one: the latest versions, once.
    await Promise.all([bump(alice.id), bump(alice.id), bump(alice.id)]);
    await pause(300);
    expect(await soon(first.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 4 }) });
    expect(await soon(first.next(), 300)).toBe('nothing');
    // Bob heard nothing of Alice's changes.
    expect(await soon(theirs.next(), 300)).toBe('nothing');

    await expect(live.open(alice.id, alice.credential)).resolves.toBeDefined();
    await expect(live.open(alice.id, alice.credential)).rejects.toThrow(new TooManyStreamsError('token', 3));
    await first.return!();
    await expect(live.open(alice.id, alice.credential)).resolves.toBeDefined();

    await db().account.delete({ where: { id: bob.id } });
    expect(await soon(theirs.next())).toEqual({ done: true, value: undefined });
    live.close();
    expect(await soon(second.next())).toEqual({ done: true, value: undefined });
    expect(live.size()).toBe(0);
    await expect(live.open(alice.id, alice.credential)).rejects.toThrow('the server is busy');
  });

  it('counts streams per credential, and the account as a whole', async () => {
    const live = createLiveUpdates({ logger, pollMs: 60_000, maxStreamsPerCredential: 2, maxStreamsPerAccount: 4 });
    const carol = await withToken();
    const [phone, laptop, tablet] = [await session(carol.id), await session(carol.id), await session(carol.id)];
    for (const credential of [carol.credential, carol.credential, phone, phone]) await live.open(carol.id, credential);
    // Each credential holds its own two: a leaked token's streams leave the owner's browsers theirs.
    await expect(live.open(carol.id, carol.credential)).rejects.toThrow('this API token already has 2 live update streams open');
    await expect(live.open(carol.id, phone)).rejects.toThrow('this browser already has 2 live update streams open (one per tab)');
    // The account's bound holds whatever number of sessions it has.
    await expect(live.open(carol.id, laptop)).rejects.toThrow('this account already has 4 live update streams open');
    await expect(live.open(carol.id, tablet)).rejects.toThrow(TooManyStreamsError);
    // Another account is held back by none of it.
    const dave = await withToken();
    await expect(live.open(dave.id, dave.credential)).resolves.toBeDefined();
    live.close();
    const off = createLiveUpdates({ logger, pollMs: 60_000, maxStreamsPerCredential: 1, maxStreamsPerAccount: 0 });
    await expect(off.open(dave.id, dave.credential)).rejects.toThrow('live updates are turned off on this server');
  });

  /** Each way a credential ends: what ends it, and the credential the owner holds afterwards. */
  const ways: { name: string; end: (owner: { id: number; session: Credential & { kind: 'session' } }) => Promise<Credential | undefined> }[] = [
    { name: 'signing out', end: async ({ id, session: ended }) => (await endSession(ended.sessionId), session(id)) },
    { name: 'signing out everywhere', end: async ({ id }) => (await endSessions({ accountId: id }), session(id)) },
    { name: 'a password change (or a reset by an administrator)', end: async ({ id }) => (await setPassword({ accountId: id, password: 'a new password' }), session(id)) },
    {
      name: 'the session expiring (idle, or at its absolute end)',
      end: async ({ id, session: ended }) => {
        await db().session.update({ where: { id: ended.sessionId }, data: { expiresAt: new Date(Date.now() - 1) } });
        return session(id);
      },
    },
    { name: 'the account removed', end: async ({ id }) => (await removeAccount({ actorId: -1, id }), undefined) },
  ];

  for (const way of ways) {
    it(`ends a session's streams on ${way.name}, tells them nothing after, and frees their places at once`, async () => {
      // No periodic read: only the reads a new stream or the bound starts can end the old streams.
      const live = createLiveUpdates({ logger, pollMs: 60_000, maxStreamsPerCredential: 2, maxStreamsPerAccount: 4 });
      const owner = await withToken();
      const browser = await session(owner.id);
      const tabs = [await live.open(owner.id, browser), await live.open(owner.id, browser)];
      const scripts = [await live.open(owner.id, owner.credential), await live.open(owner.id, owner.credential)];
      await pause(100);
      const next = await way.end({ id: owner.id, session: browser });
      if (way.name !== 'the account removed') await bump(owner.id);
      if (next) {
        // The account's four places are taken by streams of a credential that has ended: the
        // owner's new tab is let in, not refused.
        const tab = await live.open(owner.id, next);
        expect(live.size()).toBe(3);
        await tab.return!();
      } else {
        // Another account's new stream starts a read.
        const other = await withToken();
        await live.open(other.id, other.credential);
      }
      for (const stream of tabs) expect(await soon(stream.next())).toEqual({ done: true, value: undefined });
      if (next) {
        // The token still stands: its streams hear the change the ended session's did not.
        for (const stream of scripts) expect(await soon(stream.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: expect.any(Number) }) });
      } else for (const stream of scripts) expect(await soon(stream.next())).toEqual({ done: true, value: undefined });
      live.close();
    });
  }

  it("ends a token's streams when it is regenerated, tells them nothing after, and frees their places at once", async () => {
    const live = createLiveUpdates({ logger, pollMs: 60_000, maxStreamsPerCredential: 2, maxStreamsPerAccount: 4 });
    const owner = await withToken();
    const browser = await session(owner.id);
    const scripts = [await live.open(owner.id, owner.credential), await live.open(owner.id, owner.credential)];
    const tabs = [await live.open(owner.id, browser), await live.open(owner.id, browser)];
    await pause(100);
    const token = await regenerateToken({ accountId: owner.id });
    await bump(owner.id);
    const script = await live.open(owner.id, { kind: 'token', digest: sha256Hex(token) });
    for (const stream of scripts) expect(await soon(stream.next())).toEqual({ done: true, value: undefined });
    for (const stream of tabs) expect(await soon(stream.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: expect.any(Number) }) });
    await script.return!();
    live.close();
  });

  it('ends streams on the periodic read too, with no new stream to start one', async () => {
    const live = createLiveUpdates({ logger, pollMs: 100, maxStreamsPerCredential: 2, maxStreamsPerAccount: 4 });
    const owner = await withToken();
    const browser = await session(owner.id);
    const tab = await live.open(owner.id, browser);
    await pause(200);
    await endSession(browser.sessionId);
    await bump(owner.id);
    expect(await soon(tab.next())).toEqual({ done: true, value: undefined });
    expect(live.size()).toBe(0);
    live.close();
  });
});
