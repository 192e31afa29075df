import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initSecretKey } from '../src/keys/secret-key.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { memoryOf, serverKind, startBenchServer } from './server-process.ts';
import { seedIssueLibrary } from './seed-library.ts';

/**
 * `npm run bench:memory`: the server's resident memory idle and through a long mixed run, against
 * a real `serve` process (dist/main.js as `npm start` runs it) holding issue 14's library (500
 * shows × 50 episodes, 100 movies, 100 games). BENCH_CLIENTS (default 8) clients send, without
 * pause, a mix like a household's programs: summaries and narrow feeds (Home Assistant, widgets),
 * watched toggles, GraphQL reads, calendar fetches (some revalidating with If-None-Match, some
 * gzip) and now and then a follow change, which makes the calendar render again. RSS is sampled
 * every BENCH_SAMPLE_SECONDS (10) for BENCH_MINUTES (10); the curve is printed, then the growth
 * from the second minute to the last (a leak shows as a steady slope, not as a step up to a
 * working set). BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database).
 */
const minutes = Number(process.env.BENCH_MINUTES ?? 10);
const sampleSeconds = Number(process.env.BENCH_SAMPLE_SECONDS ?? 10);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-memory-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
const config = loadConfig(env);
await openDatabase(config, { migrate: true });
initSecretKey(config);
const account = await createAccount({ name: `bench-memory-${Date.now()}`, timezone: 'UTC' });
const token = await showToken({ accountId: account.id });
await seedIssueLibrary(account.id, config.database.kind);
const episodes = (await db().episode.findMany({ where: { show: { libraryRows: { some: { accountId: account.id } } } }, select: { id: true }, take: 2_000 })).map((row) => row.id);
const shows = (await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, select: { showId: true }, take: 20 })).map((row) => row.showId!);
await closeDatabase();

const server = await startBenchServer(env);
const pid = server.child.pid!;
const idle = memoryOf(pid).rss;
console.log(`${config.database.kind}, ${serverKind}: idle RSS after start ${idle.toFixed(0)} MB`);

const auth = { authorization: `Bearer ${token}` };
const post = (pathName: string, body: unknown) =>
  fetch(`${server.baseUrl}${pathName}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
let calendarTag: string | null = null;
let turn = 0;
/** One request of the mix (weights out of 100), answering its status. */
async function oneRequest(): Promise<number> {
  turn += 1;
  const roll = turn % 100;
  let response: Response;
  if (roll < 40) response = await fetch(`${server.baseUrl}/api/machine/summary`, { headers: { ...auth, 'accept-encoding': roll % 2 ? 'gzip' : 'identity' } });
  else if (roll < 55) response = await fetch(`${server.baseUrl}/api/machine/${['releases', 'airing', 'widget'][roll % 3]}`, { headers: auth });
  else if (roll < 80) response = await post('/api/machine/watched', { kind: 'episode', id: episodes[turn % episodes.length], watched: Math.floor(turn / episodes.length) % 2 === 0 });
  else if (roll < 92) response = await post('/graphql', { query: roll % 2 ? '{ viewer { name } }' : '{ library(first: 20) { edges { node { kind followed } } } }' });
  else if (roll < 99) {
    response = await fetch(`${server.baseUrl}/api/calendar.ics?token=${token}`, { headers: { 'accept-encoding': 'gzip', ...(calendarTag && roll % 2 ? { 'if-none-match': calendarTag } : {}) } });
    calendarTag = response.headers.get('etag') ?? calendarTag;
  } else response = await post('/api/machine/follow', { kind: 'show', id: shows[turn % shows.length], followed: Math.floor(turn / 100) % 2 === 0 });
  await response.arrayBuffer();
  return response.status;
}

const statuses = new Map<number, number>();
const deadline = Date.now() + minutes * 60_000;
const load = Array.from({ length: clients }, async () => {
  while (Date.now() < deadline) {
    const status = await oneRequest();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
});
const curve: { seconds: number; rss: number; requests: number }[] = [];
const started = Date.now();
const sampler = setInterval(() => {
  const requests = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const sample = { seconds: Math.round((Date.now() - started) / 1000), rss: memoryOf(pid).rss, requests };
  curve.push(sample);
  console.log(`  t=${String(sample.seconds).padStart(4)} s  RSS ${sample.rss.toFixed(0).padStart(4)} MB  ${requests} requests`);
}, sampleSeconds * 1000);
await Promise.all(load);
clearInterval(sampler);

const requests = [...statuses.values()].reduce((sum, count) => sum + count, 0);
const failed = [...statuses].filter(([status]) => status >= 400);
const mean = (samples: typeof curve) => samples.reduce((sum, sample) => sum + sample.rss, 0) / Math.max(1, samples.length);
const second = curve.filter((sample) => sample.seconds > 60 && sample.seconds <= 120);
const last = curve.filter((sample) => sample.seconds > (minutes - 1) * 60);
// Least-squares slope after the first minute (the working set fills during it).
const settled = curve.filter((sample) => sample.seconds > 60);
const meanT = settled.reduce((sum, sample) => sum + sample.seconds, 0) / Math.max(1, settled.length);
const meanR = mean(settled);
const slope = settled.reduce((sum, sample) => sum + (sample.seconds - meanT) * (sample.rss - meanR), 0) / Math.max(1, settled.reduce((sum, sample) => sum + (sample.seconds - meanT) ** 2, 0));
console.log(`${requests} requests in ${minutes} min (${(requests / (minutes * 60)).toFixed(0)}/s), statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
console.log(`RSS: idle ${idle.toFixed(0)} MB, peak ${Math.max(...curve.map((sample) => sample.rss)).toFixed(0)} MB, second minute ${mean(second).toFixed(0)} MB, last minute ${mean(last).toFixed(0)} MB, slope after the first minute ${(slope * 60).toFixed(2)} MB/min`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
if (failed.length > 0) throw new Error(`requests failed: ${JSON.stringify(failed)}`);
