import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';

/**
 * The in-process server most benchmarks measure: a fresh data folder, SQLite there or PostgreSQL
 * with BENCH_DATABASE_URL (an empty database; it is filled, not cleaned), warnings only, and the
 * rate limit off (the load generator is one account far over any sane rate), with one account
 * `bench` in UTC and its token. `env` adds settings (a catalog's URL and key, say).
 */
export async function startBenchApp(prefix = 'airdate-bench-', env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: process.env.BENCH_DATABASE_URL, ...env });
  const app = await createApp(config);
  const account = await createAccount({ name: 'bench', timezone: 'UTC' });
  const token = await showToken({ accountId: account.id });
  return { dataDir, config, app, account, token };
}

/**
 * Serves `app` over real HTTP on a free loopback port, counting the requests in flight, so that a
 * benchmark can wait until every answer is out (`drained`) before it closes the server and reads
 * what was written.
 */
export async function serveOverHttp(app: Pick<App, 'fetch'>) {
  let inFlight = 0;
  const server = createServer(
    createServerAdapter(async (request: Request) => {
      inFlight += 1;
      try {
        return await app.fetch(request);
      } finally {
        inFlight -= 1;
      }
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Waits for the requests in flight, then closes the server. */
    async close() {
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
