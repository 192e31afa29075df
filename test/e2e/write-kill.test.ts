import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

/**
 * Every acknowledged write is kept, tested the way it fails: a real `serve` process killed with
 * SIGKILL in the middle of a load of watched toggles (20 connections), restarted on the same
 * database. Each toggle answered 200 must be there, and each change whole: the state, its history
 * entry and its feed version bump together. On SQLite the writer commits the changes of one
 * event-loop turn together and answers after the commit: answering earlier (or committing part
 * of a change) loses writes here.
 */
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config);

const connections = 20;
const episodesCount = 4_000;

describe('watched toggles when the server is killed (SIGKILL)', () => {
  it('keeps every acknowledged toggle, each with its history entry and version bump', { timeout: 120_000 }, async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: Array.from({ length: episodesCount }, (_, index) => ({ season: 1 + Math.floor(index / 100), number: 1 + (index % 100), airDate: null })) });
    const ids = show.episodes.map((episode) => episode.id);
    const before = await db().account.findUniqueOrThrow({ where: { id: account.id }, select: { feedVersion: true } });
    const server = await serve();
    const exited = new Promise((resolve) => server.child.once('close', resolve));

    const acknowledged: number[] = [];
    let next = 0;
    let cutOff = 0;
    const loop = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        try {
          const response = await fetch(`${server.baseUrl}/api/machine/watched`, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ kind: 'episode', id, watched: true }),
          });
          const body = await response.json();
          expect([response.status, body]).toEqual([200, { ok: true }]);
          acknowledged.push(id);
        } catch (error) {
          if ((error as Error).name === 'AssertionError') throw error;
          cutOff += 1;
          return;
        }
      }
    };
    const loops = Array.from({ length: connections }, loop);
    while (acknowledged.length < 600) await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGKILL');
    await exited;
    await Promise.all(loops);
    // Killed under load (else this says nothing): requests were in flight and cut off.
    expect(cutOff).toBeGreaterThan(0);
    expect(acknowledged.length).toBeLessThan(ids.length);

    const states = await db().watchState.findMany({ where: { accountId: account.id }, select: { episodeId: true, watched: true } });
    const stored = new Set(states.filter((state) => state.watched).map((state) => state.episodeId));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // Each change whole: one history entry per state, one version bump per entry.
    const history = await db().watchEvent.count({ where: { accountId: account.id } });
    expect(history).toBe(states.length);
    const after = await db().account.findUniqueOrThrow({ where: { id: account.id }, select: { feedVersion: true } });
    expect(after.feedVersion - before.feedVersion).toBe(history);

    // Restarted on the same database, it serves and writes again.
    const restarted = await serve();
    const unwatch = await fetch(`${restarted.baseUrl}/api/machine/watched`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: acknowledged[0], watched: false }),
    });
    expect(unwatch.status).toBe(200);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(history + 1);
  });
});
