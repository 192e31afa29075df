import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { createLiveUpdates, TooManyStreamsError } from '../../src/library/live-updates.ts';
import { createLogger } from '../../src/log.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';

// The hub behind libraryChanged, on the test database: a bumped feed version reaches each of the
// account's streams once (the latest of several), a removed account's streams end, the bound, a
// stream's return() frees its place, and close() ends every stream.
initSecretKey(await useTestDatabase());
const logger = createLogger({ level: 'silent', format: 'json' });
const bump = (accountId: number) => db().account.update({ where: { id: accountId }, data: { feedVersion: { increment: 1 } } });
const soon = <T>(promise: Promise<T>, ms = 3_000) => Promise.race([promise, new Promise<'nothing'>((done) => setTimeout(() => done('nothing'), ms))]);

describe('the live updates hub', () => {
  it('tells every stream of the account of a change, coalesces a burst, and ends streams of a removed account', async () => {
    const live = createLiveUpdates({ logger, pollMs: 50, maxStreamsPerAccount: 3 });
    const alice = await makeAccount();
    const bob = await makeAccount();
    const [first, second] = [live.open(alice.id), live.open(alice.id)];
    const theirs = live.open(bob.id);
    await new Promise((done) => setTimeout(done, 200));
    const before = (await db().account.findUniqueOrThrow({ where: { id: alice.id } })).feedVersion;
    await bump(alice.id);
    expect(await soon(first.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 1 }) });
    expect(await soon(second.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 1 }) });
    // A burst read as one: the latest versions, once.
    await Promise.all([bump(alice.id), bump(alice.id), bump(alice.id)]);
    await new Promise((done) => setTimeout(done, 300));
    expect(await soon(first.next())).toEqual({ done: false, value: expect.objectContaining({ feedVersion: before + 4 }) });
    expect(await soon(first.next(), 300)).toBe('nothing');
    // Bob heard nothing of Alice's changes.
    expect(await soon(theirs.next(), 300)).toBe('nothing');

    expect(() => live.open(alice.id)).not.toThrow();
    expect(() => live.open(alice.id)).toThrow(TooManyStreamsError);
    await first.return!();
    expect(() => live.open(alice.id)).not.toThrow();

    await db().account.delete({ where: { id: bob.id } });
    expect(await soon(theirs.next())).toEqual({ done: true, value: undefined });
    live.close();
    expect(await soon(second.next())).toEqual({ done: true, value: undefined });
    expect(live.size()).toBe(0);
    expect(() => live.open(alice.id)).toThrow('the server is busy');
  });
});
