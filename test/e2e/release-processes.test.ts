import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { jobRows, jobRowsFor } from '../support/jobs.ts';
import { jobNames } from '../../src/jobs.ts';
import type { ServerProcess } from '../support/processes.ts';
import { serverProcesses } from '../support/server-processes.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Real `serve` processes on the test's database (the SQLite file or PostgreSQL database this file
 * gets), killed and restarted: what "exactly once, even across restarts and several processes"
 * means in practice.
 */
const config = await useTestDatabase();
initSecretKey(config);

const startWith = serverProcesses(config, {
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  AIRDATE_WEBHOOK_TIMEOUT_MS: '1500',
  // A short lock makes the jobs of a killed worker pass to another within seconds.
  AIRDATE_JOB_LOCK_MS: '1500',
  AIRDATE_JOB_POLL_MS: '200',
});
const today = new Date().toISOString().slice(0, 10);

const serve = (role: 'all' | 'web' | 'worker' = 'all') => startWith({ AIRDATE_ROLE: role });

async function sync(server: ServerProcess, token: string) {
  const response = await fetch(`${server.baseUrl}/api/machine/sync`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  expect(await response.json()).toEqual({ ok: true });
}

async function userFollowing(url: string, items: number) {
  const user = await makeAccount();
  await updateAccount({ name: user.name, webhookUrl: url });
  for (let index = 0; index < items; index++) {
    const movie = await makeMovie({ releaseDate: today });
    await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
  }
  return user;
}

describe('release notifications across processes', () => {
  it('a server killed (SIGKILL) mid-delivery delivers after restart: same webhook-id, one notification', { timeout: 90_000 }, async () => {
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
    const user = await userFollowing(receiver.url, 1);
    const first = await serve();
    await sync(first, user.token);
    await receiver.waitFor(1, 30_000);
    // The attempt is in flight (the receiver has not answered): kill the process outright.
    const killed = new Promise((resolve) => first.child.once('close', resolve));
    first.child.kill('SIGKILL');
    await killed;
    const [pending] = await db().notification.findMany({ where: { accountId: user.id } });
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

    await serve();
    await receiver.waitFor(2, 45_000);
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toEqual([pending!.webhookId, pending!.webhookId]);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const waitDelivered = async () => {
      for (let tries = 0; tries < 100; tries++) {
        const rows = await db().notification.findMany({ where: { accountId: user.id } });
        if (rows[0]?.status === 'delivered') return rows;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the notification was never marked delivered');
    };
    const rows = await waitDelivered();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 1, webhookId: pending!.webhookId });
  });

  it('two worker processes on one database notify each release exactly once', { timeout: 90_000 }, async () => {
    const receiver = await startWebhookReceiver();
    const users = [];
    for (let index = 0; index < 6; index++) users.push(await userFollowing(receiver.url, 3));
    const show = await makeShow({ episodes: [{ number: 1, airDate: today }, { number: 2, airDate: today }] });
    for (const user of users) await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
    const expected = users.length * 5;

    const servers = [await serve(), await serve()];
    // Every account is synced on both servers at once; the 30-minute check also runs at start.
    await Promise.all(users.flatMap((user) => servers.map((server) => sync(server, user.token))));
    await receiver.waitFor(expected, 45_000);
    // Let any duplicate that would come arrive: both servers run the check once more.
    await Promise.all(users.flatMap((user) => servers.map((server) => sync(server, user.token))));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(expected);
    expect(await db().notification.count({ where: { accountId: { in: users.map((user) => user.id) } } })).toBe(expected);
  });

  it('AIRDATE_ROLE=web only queues; a worker process runs the jobs', { timeout: 60_000 }, async () => {
    const receiver = await startWebhookReceiver();
    const user = await userFollowing(receiver.url, 2);
    const web = await serve('web');
    await sync(web, user.token);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(0);
    expect(await db().notification.count({ where: { accountId: user.id } })).toBe(0);
    // The web process queued the sync (the worker's own 30-minute check would find the account too).
    const queued = await jobRowsFor(jobNames.accountSync, user.id);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.lastRunAt).toBeNull();
    const worker = await serve('worker');
    expect(worker.output()).toMatch(/no HTTP listener/);
    await receiver.waitFor(2, 30_000);
    expect(await jobRowsFor(jobNames.accountSync, user.id)).toHaveLength(0); // the worker ran it (finished jobs are removed)
    expect((await fetch(`${web.baseUrl}/readyz`)).status).toBe(200);
  });

  it('SIGTERM lets a delivery in flight finish before the process exits', { timeout: 60_000 }, async () => {
    const receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 1_000 }));
    const user = await userFollowing(receiver.url, 1);
    const server = await serve();
    await sync(server, user.token);
    await receiver.waitFor(1, 30_000);
    // The receiver answers a second later; the process must wait for it.
    expect(await server.stop()).toBe(0);
    const [row] = await db().notification.findMany({ where: { accountId: user.id } });
    expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await jobRows(jobNames.delivery)).filter((row) => row.lockedAt !== null)).toEqual([]);
  });

  it('SIGTERM lets a request in progress finish (an upload still arriving) before the process exits', { timeout: 60_000 }, async () => {
    const user = await makeAccount();
    const server = await serve();
    const boundary = 'airdate-test-boundary';
    const play = [{ id: 1, watched_at: '2025-01-01T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { title: 'Slow Upload', year: 2020, ids: { tmdb: 7_700_001 } } }];
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="watched-history-1.json"\r\n` +
        `Content-Type: application/json\r\n\r\n${JSON.stringify(play)}\r\n--${boundary}--\r\n`,
    );
    const { request } = await import('node:http');
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = request(`${server.baseUrl}/api/import/trakt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
      }, (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text }));
      });
      outgoing.on('error', reject);
      outgoing.write(body.subarray(0, 40));
      // The rest arrives after the server was told to stop.
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => outgoing.end(body.subarray(40)), 500);
      }, 300);
    });
    const exited = new Promise<number | null>((resolve) => server.child.once('close', resolve));
    expect(await answer).toMatchObject({ status: 200 });
    expect(await exited).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId: user.id } })).toBe(1);
  });
});
