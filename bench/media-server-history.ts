import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { db } from '../src/db/client.ts';
import { runPull, saveHistoryServer } from '../src/media-servers/history/history-pulls.ts';
import { generatedJellyfinLibrary, startFakeServer } from '../test/media-servers/history/fake-media-server.ts';
import { startBenchApp } from './bench-app.ts';

/**
 * `npm run bench:media-server-history`: a pull of a Jellyfin user's whole history (issue 35):
 * BENCH_PLAYS (default 20 000) played episodes of 200 shows the catalog does not hold (the import
 * makes their rows), served by the tests' Jellyfin stand-in (test/media-servers/history/
 * fake-media-server.ts, a real HTTP server on a loopback port in this process, pages of 1000),
 * pulled by the job's own work (runPull) into one account: a dry run, the import, then the import
 * again (which adds nothing). Per run: seconds, plays a second, and the process's peak RSS and
 * heap, sampled every 50 ms. The stand-in's serving runs in the same process and is counted in
 * both. BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database). The load
 * average is printed first: figures from a loaded machine are noisy.
 */
const plays = Number(process.env.BENCH_PLAYS ?? 20_000);
console.log(`load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}; ${plays} plays`);

const { app, account, dataDir, config } = await startBenchApp('airdate-bench-history-', { AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_WEBHOOK_TIMEOUT_MS: '60000' });
const library = generatedJellyfinLibrary(plays);
const jellyfin = await startFakeServer({ kind: 'jellyfin', key: 'bench-key', ...library });
const target = { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs };
const saved = await saveHistoryServer({ accountId: account.id, kind: 'jellyfin', address: jellyfin.url, key: 'bench-key', target });

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
async function measured(name: string, dryRun: boolean) {
  await db().mediaServerHistory.update({ where: { id: saved.id }, data: { state: 'queued', dryRun, serverUserId: 'bench-user', serverUserName: 'bench' } });
  global.gc?.();
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    rss = Math.max(rss, usage.rss);
    heap = Math.max(heap, usage.heapUsed);
  };
  const timer = setInterval(sample, 50);
  const started = performance.now();
  await runPull({ historyId: saved.id, target, logger: console });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  sample();
  const row = await db().mediaServerHistory.findUniqueOrThrow({ where: { id: saved.id } });
  const report = row.report ? (JSON.parse(row.report) as { imported: { history: number; episodes: number } }) : undefined;
  console.log(
    `${name.padEnd(16)} ${row.state.padEnd(6)} ${seconds.toFixed(1).padStart(6)} s ${(plays / seconds).toFixed(0).padStart(7)} plays/s  peak RSS ${mib(rss)} MiB, heap ${mib(heap)} MiB; ` +
      `episodes ${report?.imported.episodes ?? '-'}, history added ${report?.imported.history ?? '-'}${row.error ? `; ${row.error}` : ''}`,
  );
}

await measured('dry run', true);
await measured('import', false);
await measured('import again', false);
await jellyfin.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
