import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';

/**
 * The in-process server most benchmarks measure: a fresh data folder, SQLite there or PostgreSQL
 * with BENCH_DATABASE_URL (an empty database; it is filled, not cleaned), warnings only, and the
 * rate limit off (the load generator is one account far over any sane rate), with one account
 * `bench` in UTC and its token.
 */
export async function startBenchApp(prefix = 'airdate-bench-') {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: process.env.BENCH_DATABASE_URL });
  const app = await createApp(config);
  const account = await createAccount({ name: 'bench', timezone: 'UTC' });
  const token = await showToken({ accountId: account.id });
  return { dataDir, config, app, account, token };
}
