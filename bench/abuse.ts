import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { db } from '../src/db/client.ts';
import { localDate } from '../src/time/dates.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { tuneHeap } from '../src/heap-tuning.ts';
import { serveOverHttp } from './bench-app.ts';
import { issueLibrary, seedLibrary } from './seed-library.ts';
import { worstAllowedRequests } from './worst-queries.ts';

/**
 * `npm run bench:abuse`: what the most expensive requests the limits still allow do to everyone
 * else. Two accounts with 500 followed shows × 50 episodes, 100 movies and 100 games each (a
 * catalog of 1 000 shows and 50 000 episodes). First each worst allowed request alone: its time
 * and the server's memory. Then a victim's widget polls its summary (20 requests a second, one
 * connection) while nothing else runs, and again while the other account sends the worst allowed
 * requests over 4 connections as fast as the server answers them; the event-loop delay of the
 * server and the victim's latency are measured in each phase (targets: p99 event-loop delay
 * < 50 ms, victim p99 < 100 ms while the abuse runs).
 *
 * The server runs in this process (so its event loop is measured directly); the load comes from
 * autocannon in worker threads, over real HTTP.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
// The server's own V8 setting (main.ts applies it at start).
tuneHeap();
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-abuse-'));
// BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database; it is filled, not cleaned).
// AIRDATE_GRAPHQL_* settings in the environment apply (to measure other limits).
const config = loadConfig({ ...process.env, AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: process.env.BENCH_DATABASE_URL });
const app = await createApp(config);
const today = localDate('UTC', new Date());

async function seededAccount(name: string) {
  const account = await createAccount({ name, timezone: 'UTC' });
  await seedLibrary(account.id, today, issueLibrary);
  return { id: account.id, token: await showToken({ accountId: account.id }) };
}
let started = performance.now();
const victim = await seededAccount('victim');
const abuser = await seededAccount('abuser');
console.log(`limits: cost ${config.limits.graphql.maxCost}, depth ${config.limits.graphql.maxDepth}, aliases ${config.limits.graphql.maxAliases}, tokens ${config.limits.graphql.maxTokens}`);
console.log(`${config.database.kind}: seeded two accounts of 500 shows × 50 episodes, 100 movies, 100 games in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const served = await serveOverHttp(app);
const baseUrl = served.baseUrl;

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
const ms = (nanoseconds: number) => (nanoseconds / 1e6).toFixed(1);
const rssMb = () => process.memoryUsage().rss / 1024 / 1024;
/** Peak RSS since the last reset (Linux: VmHWM, reset by writing 5 to clear_refs). */
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');
const peakMb = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

const requests = worstAllowedRequests(abuser.token, config.limits.graphql);
// While the abuse runs, the abuser also changes its library and fetches its calendar again after
// each change: every fetch renders a 6 000-event calendar.
const episode = await db().episode.findFirstOrThrow({ where: { show: { libraryRows: { some: { accountId: abuser.id } } } }, select: { id: true } });
const toggle = (watched: boolean) => ({
  method: 'POST' as const,
  path: '/api/machine/watched',
  headers: { authorization: `Bearer ${abuser.token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ kind: 'episode', id: episode.id, watched }),
});
const calendar = { method: 'GET' as const, path: '/api/calendar.ics', headers: { authorization: `Bearer ${abuser.token}` } };

// 1. Each worst allowed request alone (after one warm-up), five times: median time, loop delay, memory.
console.log('\nworst allowed requests, each alone (median of 5; max event-loop delay; peak RSS over the 5)');
for (const request of requests) {
  const send = async () => {
    const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
    const body = await response.arrayBuffer();
    if (response.status !== request.expectStatus) throw new Error(`${request.label}: ${response.status} ${Buffer.from(body).toString('utf8', 0, 300)}`);
    if (request.expectStatus === 200 && /"errors"/.test(Buffer.from(body).toString('utf8', 0, 200))) throw new Error(`${request.label}: ${Buffer.from(body).toString('utf8', 0, 300)}`);
    return body.byteLength;
  };
  if (request.before) await request.before(db(), abuser.id);
  await send();
  const times: number[] = [];
  let bytes = 0;
  const rssBefore = rssMb();
  resetPeak();
  loopDelay.reset();
  loopDelay.enable();
  for (let run = 0; run < 5; run += 1) {
    if (request.before) await request.before(db(), abuser.id);
    const at = performance.now();
    bytes = await send();
    times.push(performance.now() - at);
  }
  loopDelay.disable();
  times.sort((a, b) => a - b);
  console.log(
    `  ${request.label.padEnd(58)} ${times[2]!.toFixed(1).padStart(7)} ms  ${(bytes / 1024).toFixed(0).padStart(6)} KB  loop max ${ms(loopDelay.max).padStart(6)} ms  RSS ${rssBefore.toFixed(0)} → peak ${peakMb().toFixed(0)} MB`,
  );
}

// 2. The victim's summary, without and with the abuse running.
const probeOptions = {
  url: `${baseUrl}/api/machine/summary`,
  headers: { authorization: `Bearer ${victim.token}` },
  connections: 1,
  overallRate: 20,
  duration: seconds,
  workers: 1,
};
async function phase(label: string, abuse: boolean) {
  loopDelay.reset();
  loopDelay.enable();
  const probe = autocannon(probeOptions);
  const load = abuse
    ? autocannon({
        url: baseUrl,
        connections: 4,
        duration: seconds,
        workers: 1,
        requests: [
          ...requests.filter((request) => !request.before).map(({ method, path: requestPath, headers, body }) => ({ method, path: requestPath, headers, body })),
          toggle(true),
          calendar,
          toggle(false),
          calendar,
        ],
      })
    : undefined;
  const [victimResult, abuseResult] = await Promise.all([probe, load]);
  loopDelay.disable();
  const latency = victimResult.latency;
  console.log(
    `  ${label.padEnd(22)} event loop p50 ${ms(loopDelay.percentile(50))} / p99 ${ms(loopDelay.percentile(99))} / max ${ms(loopDelay.max)} ms;` +
      ` victim summary p50 ${latency.p50} / p99 ${latency.p99} / max ${latency.max} ms (${victimResult.requests.total} requests, ${victimResult.non2xx + victimResult.errors} failed)` +
      (abuseResult ? `; abuse ${abuseResult.requests.average.toFixed(1)} req/s, ${abuseResult.non2xx} non-2xx, ${abuseResult.errors} errors` : ''),
  );
}
console.log(`\nvictim polling GET /api/machine/summary at 20/s for ${seconds} s (targets with abuse: event loop p99 < 50 ms, summary p99 < 100 ms)`);
await phase('quiet', false);
await phase('under abuse', true);

// Requests still in flight (autocannon stops sending, not waiting) finish before the database closes.
await served.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
