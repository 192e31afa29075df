import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { saveHistoryServer } from '../../src/media-servers/history/history-pulls.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';
import { fixture, generatedJellyfinLibrary, startFakeServer, type FakeServerOptions } from '../media-servers/history/fake-media-server.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { serverProcesses } from '../support/server-processes.ts';

/**
 * A history pull survives its process: a real `serve` process reading a Jellyfin stand-in's
 * 3 000 plays is killed with SIGKILL after the first page of 1 000 (the second page hangs), and
 * nothing of the pull is written; a new process on the same database takes the job over once its
 * lock lapses (AIRDATE_JOB_LOCK_MS) and runs the pull again from its first page, to the end.
 */
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config, { AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_WEBHOOK_TIMEOUT_MS: '60000', AIRDATE_JOB_LOCK_MS: '1000', AIRDATE_JOB_POLL_MS: '100' });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a history pull killed mid-way', () => {
  it('writes nothing, and a new process runs it again from the first page to the end', { timeout: 120_000 }, async () => {
    const options: FakeServerOptions = { kind: 'jellyfin', key: 'jf-key', ...generatedJellyfinLibrary(3_000), hangFrom: 1_000 };
    const jellyfin = await startFakeServer(options);
    const account = await makeAccount();
    const target = { policy: parseTargetPolicy('loopback'), timeoutMs: 60_000 };
    const saved = await saveHistoryServer({ accountId: account.id, kind: 'jellyfin', address: jellyfin.url, key: 'jf-key', target });
    const first = await serve();
    const started = await fetch(`${first.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($u: String!) { startMediaServerPull(kind: JELLYFIN, userId: $u, dryRun: false) { __typename } }', variables: { u: fixture('jellyfin-users.json')[0].Id } }),
    });
    expect(((await started.json()) as any).data.startMediaServerPull.__typename).toBe('MutationStartMediaServerPullSuccess');
    const row = () => db().mediaServerHistory.findUniqueOrThrow({ where: { id: saved.id } });
    expect(await until(row, (value) => value.read === 1_000, 30_000)).toMatchObject({ state: 'running', read: 1_000, total: 3_000 });

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
    expect((await row()).state).toBe('running');

    options.hangFrom = undefined;
    await serve();
    const done = await until(row, (value) => value.state !== 'running' && value.state !== 'queued', 60_000);
    expect(done).toMatchObject({ state: 'done', read: 3_000, total: 3_000, error: null });
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(3_000);
    // The second process read every page, the first one again.
    expect(jellyfin.requests.filter((path) => path.includes('IsPlayed=true') && path.includes('StartIndex=0&'))).toHaveLength(2);
    await jellyfin.close();
  });
});
