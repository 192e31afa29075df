import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { showWebhookSecret } from '../../src/accounts/tokens.ts';
import { testDatabaseKind, useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { startServer, type ServerProcess } from '../support/processes.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

/**
 * Issue 22's run, shortened to fit CI: `serve` processes on one database (three on PostgreSQL;
 * on SQLite the single-process case, one), 20 accounts that each follow six items releasing today
 * and then ask for a sync, one after another, while processes are killed (SIGKILL) at random
 * moments and started again at once. A sync refreshes the account's items from TMDB first; the
 * stand-in here answers each request after 100–500 ms (with 404: the items stay as they are), as a
 * network catalog takes its time, so the kills find syncs running, as deliveries. The kills are random but seeded: the seed is printed, and
 * AIRDATE_TEST_SEED=<seed> replays a run's choices (the moments the processes reach are the
 * machine's).
 *
 * What must hold: every notification due is delivered, by its own webhook-id, one id per
 * (account, item) and no id for anything else; a repeat (a send cut off by a kill after the
 * receiver got it) carries the same id and body; every delivery is signed; no request is answered
 * 5xx; and each is delivered within the bound, from the moment its sync was acknowledged:
 * (kills + 1) × (lock lifetime + poll) + webhook timeout + 5 s for the machine's load, plus, with a
 * single process, the time it took to start again after each kill (nobody can take its jobs over
 * meanwhile) (docs/webhooks.md).
 */
const config = await useTestDatabase();
initSecretKey(config);

const seed = Number(process.env.AIRDATE_TEST_SEED) || Math.floor(Math.random() * 2 ** 31);
const processCount = testDatabaseKind() === 'postgres' ? 3 : 1;
const accountCount = 20;
const kills = 4;
const lockMs = 1_500;
const pollMs = 100;
const webhookTimeoutMs = 1_500;
/** The bound on the time from a sync's answer to the delivery of each notification it made due. */
const boundFor = (restartMs: number[]) =>
  (kills + 1) * (lockMs + pollMs) + webhookTimeoutMs + 5_000 + (processCount === 1 ? restartMs.reduce((sum, ms) => sum + ms, 0) : 0);
const tmdb = await startCatalogServer(async () => {
  await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(Math.random() * 400)));
  return { status: 404, json: { success: false, status_code: 34, status_message: 'The resource you requested could not be found.' } };
});
const env = {
  TMDB_API_KEY: 'k',
  AIRDATE_TMDB_URL: tmdb.url,
  AIRDATE_DATA_DIR: config.dataDir,
  DATABASE_URL: config.database.url,
  AIRDATE_LOG_LEVEL: 'warn',
  AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  AIRDATE_WEBHOOK_TIMEOUT_MS: String(webhookTimeoutMs),
  AIRDATE_JOB_POLL_MS: String(pollMs),
  AIRDATE_JOB_LOCK_MS: String(lockMs),
};
const today = new Date().toISOString().slice(0, 10);

/** mulberry32: a small seeded generator, so a run's random choices can be replayed. */
function seeded(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Delivery {
  at: number;
  accountId: number;
  webhookId: string;
  body: string;
  headers: IncomingMessage['headers'];
}

describe('release notifications while server processes are killed at random', () => {
  it(`every due notification is delivered once by its webhook-id within the bound (${processCount} process(es))`, { timeout: 120_000 }, async () => {
    const random = seeded(seed);
    console.log(`crash run: seed ${seed} (AIRDATE_TEST_SEED=${seed} replays it), ${processCount} process(es), ${kills} kills`);

    // The receiver answers each request after 0–200 ms, so kills land during sends too.
    const deliveries: Delivery[] = [];
    const receiver = await startReceiver({
      respond: (request, response, body) => {
        deliveries.push({ at: Date.now(), accountId: Number(request.url!.split('/').at(-1)), webhookId: String(request.headers['webhook-id']), body, headers: request.headers });
        setTimeout(() => response.writeHead(204).end(), Math.floor(random() * 200));
      },
    });
    const movies = await Promise.all([1, 2, 3].map(() => makeMovie({ releaseDate: today })));
    const show = await makeShow({ episodes: [1, 2, 3].map((number) => ({ number, airDate: today })) });
    const follows = [...movies.map((movie) => ({ kind: 'movie', id: movie.id })), { kind: 'show', id: show.id }];
    const itemsPerAccount = movies.length + show.episodes.length;
    const accounts = [];
    for (let index = 0; index < accountCount; index++) {
      const account = await makeAccount();
      await updateAccount({ name: account.name, webhookUrl: `${receiver.url}/hooks/${account.id}` });
      accounts.push(account);
    }

    /**
     * A process started again on a free port, timed from its spawn to the first request it
     * answers (it serves before its start is complete; its listening line comes after).
     */
    const restart = async (token: string): Promise<ServerProcess> => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const spawned = performance.now();
      const starting = startServer({ ...env, PORT: String(port) });
      starting.catch(() => undefined);
      for (;;) {
        const response = await fetch(`http://127.0.0.1:${port}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
        await response?.arrayBuffer();
        if (response?.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      restartMs.push(Math.round(performance.now() - spawned));
      return starting;
    };

    // The processes, each slot empty while its process is restarted.
    const slots: (ServerProcess | undefined)[] = await Promise.all(Array.from({ length: processCount }, () => startServer(env)));
    onTestFinished(() => void slots.forEach((slot) => slot?.child.kill('SIGKILL')));
    const restartMs: number[] = [];
    const answers: number[] = [];
    /** A request to a random live process, tried again elsewhere (or later) while processes die. */
    const request = async (path: string, token: string, body?: unknown): Promise<void> => {
      for (;;) {
        const live = slots.filter((slot): slot is ServerProcess => slot !== undefined);
        const server = live[Math.floor(random() * live.length)];
        if (server) {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          }).catch(() => undefined);
          if (response) {
            answers.push(response.status);
            const text = await response.text();
            if (response.status === 200) return;
            if (response.status < 500) throw new Error(`POST ${path}: ${response.status} ${text}`);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    // Accounts follow their items and sync, one every 250 ms; the release is due from the sync's answer.
    const dueAt = new Map<number, number>();
    const syncing = (async () => {
      for (const account of accounts) {
        for (const follow of follows) await request('/api/machine/follow', account.token, { ...follow, followed: true });
        await request('/api/machine/sync', account.token);
        dueAt.set(account.id, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    // Kills at random moments over the syncs, each process started again at once.
    const killLog: string[] = [];
    const started = Date.now();
    for (let kill = 0; kill < kills; kill++) {
      await new Promise((resolve) => setTimeout(resolve, 800 + Math.floor(random() * 1_500)));
      const slot = Math.floor(random() * processCount);
      const victim = slots[slot]!;
      const closed = new Promise((resolve) => victim.child.once('close', resolve));
      victim.child.kill('SIGKILL');
      await closed;
      slots[slot] = undefined;
      killLog.push(`${Date.now() - started} ms: killed process ${slot}`);
      slots[slot] = await restart(accounts[0]!.token);
    }
    await syncing;

    // Every notification due: one per account and item.
    const expected = accountCount * itemsPerAccount;
    const boundMs = boundFor(restartMs);
    const deadline = Math.max(...dueAt.values()) + boundMs;
    const distinct = () => new Set(deliveries.map((delivery) => delivery.webhookId)).size;
    while (distinct() < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    // Repeats that are still on their way (a job taken over after its send) arrive meanwhile.
    await new Promise((resolve) => setTimeout(resolve, lockMs + 4 * pollMs));
    await Promise.all(slots.map((slot) => slot?.stop()));

    const rows = await db().notification.findMany({ where: { accountId: { in: accounts.map((account) => account.id) } } });
    const firstAt = new Map<string, Delivery>();
    for (const delivery of deliveries) if (!firstAt.has(delivery.webhookId)) firstAt.set(delivery.webhookId, delivery);
    const repeats = deliveries.filter((delivery) => firstAt.get(delivery.webhookId) !== delivery);
    const lateness = rows.map((row) => (firstAt.get(row.webhookId)?.at ?? Infinity) - dueAt.get(row.accountId)!);
    const maxLateness = Math.max(...lateness);
    console.log(
      `crash run: ${killLog.join('; ')}\n` +
        `due ${accountCount * itemsPerAccount}, recorded ${rows.length}, delivered ${firstAt.size} distinct webhook-ids, ${repeats.length} repeat(s) (same id), ` +
        `latest ${maxLateness} ms after its sync (bound ${boundMs} ms), restarted processes served ${restartMs.join(', ')} ms after their spawn (sources under tsx)`,
    );

    expect(rows).toHaveLength(expected);
    expect(rows.filter((row) => row.status !== 'delivered')).toEqual([]);
    // Every id delivered is a notification's, and every notification's id was delivered.
    expect([...firstAt.keys()].sort()).toEqual(rows.map((row) => row.webhookId).sort());
    // One id per (account, item), each to its own account; a repeat is the same request again.
    const idsByItem = new Map<string, Set<string>>();
    for (const delivery of deliveries) {
      const key = `${delivery.accountId} ${(JSON.parse(delivery.body) as { item_key: string }).item_key}`;
      idsByItem.set(key, (idsByItem.get(key) ?? new Set()).add(delivery.webhookId));
    }
    expect(idsByItem.size).toBe(expected);
    expect([...idsByItem.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    for (const repeat of repeats) expect(repeat.body).toBe(firstAt.get(repeat.webhookId)!.body);
    // Every delivery signed with its account's secret.
    const secrets = new Map(await Promise.all(accounts.map(async (account) => [account.id, await showWebhookSecret({ accountId: account.id })] as const)));
    for (const delivery of deliveries) expect(() => new Webhook(secrets.get(delivery.accountId)!).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
    expect(answers.filter((status) => status >= 500)).toEqual([]);
    expect(maxLateness).toBeLessThanOrEqual(boundMs);
  });
});
