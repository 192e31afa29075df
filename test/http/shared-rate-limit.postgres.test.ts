import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { migratePostgres } from '../../src/db/migrate.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { createRateLimiter } from '../../src/http/rate-limit.ts';
import { createLogger } from '../../src/log.ts';
import { createPostgresDatabase } from '../support/database.ts';
import { runCli, startServer, type ServerProcess } from '../support/processes.ts';

// The request rate limit on PostgreSQL: one limit for all server processes on the database, and
// no failed request when the database cannot count for a while.

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function migratedDatabase(): Promise<string> {
  const database = await createPostgresDatabase();
  cleanups.push(database.drop);
  await migratePostgres(database.url);
  return database.url;
}

/**
 * A TCP relay to `target` on a port of its own that can be cut (every connection dropped, new
 * ones refused) and opened again on the same port: PostgreSQL becoming unreachable and coming back.
 */
function relay(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  return {
    get port() {
      return port;
    },
    open: () =>
      new Promise<void>((resolve) => {
        server = net.createServer((client) => {
          const upstream = net.connect(Number(target.port || 5432), target.hostname);
          keep(client);
          keep(upstream);
          client.pipe(upstream).pipe(client);
          client.on('close', () => upstream.destroy());
          upstream.on('close', () => client.destroy());
        });
        server.listen(port, '127.0.0.1', () => {
          port = (server!.address() as net.AddressInfo).port;
          resolve();
        });
      }),
    cut: () =>
      new Promise<void>((resolve) => {
        server?.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** How each of `count` takes of `key` ends: 'ok', or 'limited' for a RateLimitedError. */
async function takes(take: (key: string) => Promise<void>, key: string, count: number): Promise<string[]> {
  const results: string[] = [];
  for (let index = 0; index < count; index += 1) {
    results.push(await take(key).then(() => 'ok', (error: unknown) => (error instanceof RateLimitedError ? 'limited' : Promise.reject(error))));
  }
  return results;
}

describe('the shared rate limit when PostgreSQL cannot count', () => {
  it('counts in the process meanwhile (no request fails because of it), logs why once, and shares again once it can', async () => {
    const url = new URL(await migratedDatabase());
    const proxy = relay(url);
    await proxy.open();
    cleanups.push(() => proxy.cut());
    const throughProxy = new URL(url);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);
    const pool = new pg.Pool({ connectionString: throughProxy.toString(), connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
    cleanups.push(() => pool.end());
    const direct = new pg.Client({ connectionString: url.toString() });
    await direct.connect();
    cleanups.push(() => direct.end());
    const points = async () => (await direct.query<{ points: number }>(`SELECT points FROM "RateLimit" WHERE key = 'outage:k'`)).rows[0]?.points;

    const logger = createLogger({ level: 'silent', format: 'json' });
    const warnings = vi.spyOn(logger, 'warn');
    const { take } = createRateLimiter({ name: 'outage', points: 3, windowSeconds: 60 }, { pool, logger });
    expect(await takes(take, 'k', 2)).toEqual(['ok', 'ok']);
    expect(await points()).toBe(2);

    await proxy.cut();
    // Unreachable: counted in this process from nothing, so the limit still holds per process.
    expect(await takes(take, 'k', 4)).toEqual(['ok', 'ok', 'ok', 'limited']);
    expect(warnings).toHaveBeenCalledTimes(1);
    const [fields, message] = warnings.mock.calls[0]! as unknown[];
    expect(message).toBe('rate limit "outage": the database could not count this request, counting in this process until it can');
    expect((fields as { err: unknown }).err).toBeInstanceOf(Error);
    expect(await points()).toBe(2);

    await proxy.open();
    // Back: the shared count goes on from where the database left it (2 of 3).
    expect(await takes(take, 'k', 2)).toEqual(['ok', 'limited']);
    expect(await points()).toBe(4);
  });
});

describe('several serve processes on one PostgreSQL', () => {
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('give an account the limit once, not once per process', { timeout: 90_000 }, async () => {
    const url = await migratedDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-rate-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATABASE_URL: url, AIRDATE_DATA_DIR: dataDir, AIRDATE_SECRET_KEY: 'b'.repeat(64), AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '10' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const tokenOf = async (name: string) => {
      expect((await runCli(['user', 'create', name], env)).code).toBe(0);
      return (await runCli(['token', 'show', name], env)).stdout.trim();
    };
    const summary = (server: ServerProcess, token: string) =>
      fetch(`${server.baseUrl}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });

    // 20 requests, alternating between the processes: the first 10 pass, whichever process.
    const alternating = await tokenOf('alternating');
    const statuses: number[] = [];
    for (let request = 0; request < 20; request += 1) statuses.push(await summary(servers[request % 2]!, alternating));
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);

    // 30 at once, split between them: exactly 10 pass.
    const burst = await tokenOf('burst');
    const concurrent = await Promise.all(Array.from({ length: 30 }, (_, index) => summary(servers[index % 2]!, burst)));
    expect(concurrent.filter((status) => status === 200)).toHaveLength(10);
    expect(concurrent.filter((status) => status === 429)).toHaveLength(20);
    for (const server of servers) expect(server.output()).not.toMatch(/"level":"(warn|error)"/);
  });
});
