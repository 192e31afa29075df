import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { db } from '../src/db/client.ts';
import { tuneHeap } from '../src/heap-tuning.ts';
import { connect } from '../src/media-servers/connections.ts';
import { mediaServerPath } from '../src/media-servers/media-servers-route.ts';
import { localDate } from '../src/time/dates.ts';
import { serveOverHttp } from './bench-app.ts';
import { issueLibrary, seedLibrary } from './seed-library.ts';

/**
 * `npm run bench:media-servers`: what a busy media server's progress events cost. A Jellyfin
 * connection receives PlaybackProgress deliveries ("Send All Properties", text/plain, ~2 KB, as
 * the plugin sends several a second per viewer) over 8 connections as fast as the server answers
 * them (the per-connection limit turned off), while another account's widget polls its summary
 * (500 followed shows × 50 episodes) at 20 a second; then the same poll with no deliveries. Printed:
 * deliveries a second with their p50/p99, the poll's p50/p99 and the server's event-loop delay in
 * each phase, and the delivery rows written (progress is acknowledged without a write: 0).
 *
 * The server runs in this process (its event loop measured directly), the load comes from
 * autocannon over real HTTP. BENCH_SECONDS (default 10) per phase; BENCH_DATABASE_URL=postgres://…
 * runs it on PostgreSQL (an empty database; it is filled, not cleaned).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
tuneHeap();
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-media-bench-'));
const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', AIRDATE_MEDIA_SERVER_PER_MINUTE: '0', DATABASE_URL: process.env.BENCH_DATABASE_URL });
const app = await createApp(config);
await app.started;
const today = localDate('UTC', new Date());

const victim = await createAccount({ name: `victim-${Date.now()}`, timezone: 'UTC' });
await seedLibrary(victim.id, today, issueLibrary);
const victimToken = await showToken({ accountId: victim.id });
const server = await createAccount({ name: `jellyfin-${Date.now()}`, timezone: 'UTC' });
const connection = await connect({ accountId: server.id, source: 'jellyfin' });
const deliveryPath = `${mediaServerPath('jellyfin')}?token=${connection.token}`;
const progress = readFileSync(new URL('../test/media-servers/fixtures/jellyfin/official-episode-playback-progress.json', import.meta.url), 'utf8');

const served = await serveOverHttp(app);
const baseUrl = served.baseUrl;
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(1);

const poll = () => autocannon({ url: `${baseUrl}/api/machine/summary`, headers: { authorization: `Bearer ${victimToken}` }, connections: 1, overallRate: 20, duration: seconds, workers: 1 });
const burst = () =>
  autocannon({ url: `${baseUrl}${deliveryPath}`, method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: progress, connections: 8, duration: seconds, workers: 1 });

async function phase(label: string, withDeliveries: boolean) {
  loopDelay.reset();
  loopDelay.enable();
  const [polled, delivered] = await Promise.all([poll(), withDeliveries ? burst() : undefined]);
  loopDelay.disable();
  console.log(
    `  ${label.padEnd(20)} event loop p50 ${ms(loopDelay.percentile(50))} / p99 ${ms(loopDelay.percentile(99))} / max ${ms(loopDelay.max)} ms;` +
      ` summary p50 ${polled.latency.p50} / p99 ${polled.latency.p99} ms (${polled.requests.total} polls, ${polled.non2xx + polled.errors} failed)` +
      (delivered
        ? `; progress deliveries ${delivered.requests.average.toFixed(0)}/s, p50 ${delivered.latency.p50} / p99 ${delivered.latency.p99} ms (${delivered.requests.total} in all, ${delivered.non2xx + delivered.errors} failed)`
        : ''),
  );
}

console.log(`${config.database.kind}: Jellyfin progress deliveries (${Buffer.byteLength(progress)} bytes, text/plain) over 8 connections for ${seconds} s, beside a summary poll at 20/s (500 shows × 50 episodes)`);
await phase('quiet', false);
await phase('progress burst', true);
await served.close(); // every answer out first: the count is of what the deliveries wrote
console.log(`  delivery rows written: ${await db().mediaServerDelivery.count({ where: { accountId: server.id } })}`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
