import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { postgresCountersPool } from '../src/db/client.ts';
import { createRateLimiter } from '../src/http/rate-limit.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';

/**
 * `npx tsx bench/rate-limit.ts`: what the request rate limit adds to each token-carrying request.
 * BENCH_DATABASE_URL=postgres://… (an empty database) measures the shared limit (one upsert on
 * the RateLimit table per request); without it, SQLite and the in-process limit. Reports the
 * limit's own take (alone, and 10 at a time), and a cheap authenticated request (GET
 * /api/machine/releases of an empty library, in-process) with the limit on and off, interleaved.
 */
const samples = Number(process.env.BENCH_SAMPLES ?? 2_000);
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-rate-'));
const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', DATABASE_URL: process.env.BENCH_DATABASE_URL };
// Far above what the benchmark sends, so every request is counted and none refused.
const limited = await createApp(loadConfig({ ...env, AIRDATE_RATE_LIMIT_PER_MINUTE: '1000000' }));
const unlimited = await createApp(loadConfig({ ...env, AIRDATE_RATE_LIMIT_PER_MINUTE: '0' }));
const kind = postgresCountersPool() ? 'PostgreSQL (shared limit)' : 'SQLite (in-process limit)';
const account = await createAccount({ name: `bench-${Date.now()}`, timezone: 'UTC' });
const token = await showToken({ accountId: account.id });

const percentiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(3);
  return `p50 ${at(50)} ms, p99 ${at(99)} ms`;
};
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const { take } = createRateLimiter({ name: 'bench', points: 1_000_000, windowSeconds: 60 }, { pool: postgresCountersPool(), logger: limited.logger });
for (let warm = 0; warm < 200; warm += 1) await take('warm');
const alone: number[] = [];
for (let sample = 0; sample < samples; sample += 1) alone.push(await timed(() => take(String(account.id))));
const together: number[] = [];
for (let round = 0; round < samples / 10; round += 1) {
  together.push(...(await Promise.all(Array.from({ length: 10 }, (_, caller) => timed(() => take(`caller-${caller}`))))));
}

const request = () => new Request('http://bench.local/api/machine/releases', { headers: { authorization: `Bearer ${token}` } });
const on: number[] = [];
const off: number[] = [];
for (let sample = 0; sample < samples; sample += 1) {
  on.push(await timed(async () => (await limited.fetch(request())).text()));
  off.push(await timed(async () => (await unlimited.fetch(request())).text()));
}
console.log(`${kind}, ${samples} samples`);
console.log(`  limit take alone:            ${percentiles(alone)}`);
console.log(`  limit take, 10 at a time:    ${percentiles(together)}`);
console.log(`  GET releases, limit on:      ${percentiles(on)}`);
console.log(`  GET releases, limit off:     ${percentiles(off)}`);
await limited.close();
await unlimited.close().catch(() => undefined);
rmSync(dataDir, { recursive: true, force: true });
