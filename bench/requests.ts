import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { initSecretKey } from '../src/keys/secret-key.ts';
import { generateToken } from '../src/keys/token-format.ts';
import { localDate } from '../src/time/dates.ts';
import { startServer, type ServerProcess } from '../test/support/processes.ts';
import { buildBaselineServer, sameSchema } from './baseline-server.ts';
import { memoryOf, serverKind, startBenchServer } from './server-process.ts';
import { issueLibrary, seedLibrary } from './seed-library.ts';

/**
 * `npm run bench:requests`: what one request costs the server, issue 27's table, in one run next
 * to a bare node:http server answering 9 KB. Both servers are processes of their own (`serve` as
 * `npm start` runs it, dist/main.js), loaded by wrk (BENCH_CONNECTIONS connections, one thread,
 * BENCH_SECONDS a row); a row's CPU per request is the server process's user + system time over
 * the row (from /proc/<pid>/stat) divided by the requests answered, and its share is its req/s
 * over the bare server's (measured before and after the rows, the mean). The accounts: 50 shows,
 * 500 shows (issue 14's library) and 2,000 shows, each × 50 episodes; the access log is on (info,
 * as a default install runs) and the rate limit off (one account far over any sane rate). The
 * resident memory is read after every 50- and 500-show row, before the 2,000-show account is
 * touched, and once more after BENCH_IDLE_SECONDS (15) without requests. SQLite, or PostgreSQL with BENCH_DATABASE_URL (an empty database; filled, not
 * cleaned). The machine may be busy with other work: compare rows with the bare server of the
 * same run, never across runs.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const coldSamples = Number(process.env.BENCH_COLD_SAMPLES ?? 100);
const bigShows = Number(process.env.BENCH_BIG_SHOWS ?? 2_000);
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

const metricsToken = 'bench-requests-metrics-token';
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-requests-'));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const env = {
  AIRDATE_DATA_DIR: dataDir,
  AIRDATE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  AIRDATE_LOG_FORMAT: 'json',
  AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
  // Metrics collected, as a monitored install runs; read at the end for the heap and the caches.
  AIRDATE_METRICS_TOKEN: metricsToken,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
};
const config = loadConfig(env);
await openDatabase(config, { migrate: true });
initSecretKey(config);
const today = localDate('UTC', new Date());
/** An account with `shows` shows × 50 episodes (and issue 14's movies and games) and its token. */
async function seededAccount(shows: number): Promise<{ id: number; token: string; shows: number }> {
  const account = await createAccount({ name: `bench-requests-${shows}-${Date.now()}`, timezone: 'UTC' });
  const started = performance.now();
  await seedLibrary(account.id, today, { ...issueLibrary, shows });
  console.log(`${config.database.kind}: seeded ${shows} shows × 50 episodes in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { id: account.id, token: await showToken({ accountId: account.id }), shows };
}
const small = await seededAccount(50);
const issue = await seededAccount(500);
const big = await seededAccount(bigShows);
/** Aired episodes of an account's followed shows, none watched yet: what the watched toggles flip. */
const episodesOf = async (accountId: number) =>
  (
    await db().episode.findMany({
      where: { show: { libraryRows: { some: { accountId } } }, airDate: { lte: today }, watchStates: { none: { accountId } } },
      select: { id: true },
      take: 50,
      orderBy: { id: 'asc' },
    })
  ).map(
    (row) => row.id,
  );
const issueEpisodes = await episodesOf(issue.id);
const bigEpisodes = await episodesOf(big.id);
await closeDatabase();

// The bare server: node:http answering 9 KB of JSON, in a process of its own like the real one.
const bareBody = JSON.stringify({ items: Array.from({ length: 120 }, (_, index) => ({ id: index, title: `Item ${index}`, airDate: '2026-01-01' })) }).slice(0, 9 * 1024 - 2);
const bareSource = `
  const body = ${JSON.stringify(bareBody)};
  const server = require('node:http').createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));`;
const bare = spawn(process.execPath, ['-e', bareSource], { stdio: ['ignore', 'pipe', 'inherit'] });
const bareUrl = await new Promise<string>((resolve) => bare.stdout!.on('data', (chunk: Buffer) => resolve(/listening on (\S+)/.exec(chunk.toString())![1]!)));

// BENCH_BASELINE=<commit>: that commit's server too (built from `git archive`, bench/baseline-server.ts),
// on the same database, each row measured on both in turn: a before and after in one run.
const baselineRev = process.env.BENCH_BASELINE;
if (baselineRev && !sameSchema(baselineRev)) throw new Error(`${baselineRev} has another Prisma schema: its server cannot share this database`);
const baselineMain = baselineRev ? buildBaselineServer(baselineRev, path.join(dataDir, 'baseline')) : undefined;

interface Served {
  name: string;
  pid: number;
  origin: string;
  stop(): Promise<unknown>;
}
/** A started server whose output is read and dropped (kept, the access lines would fill this process). */
function served(name: string, server: ServerProcess): Served {
  for (const stream of [server.child.stdout!, server.child.stderr!]) {
    stream.removeAllListeners('data');
    stream.resume();
  }
  return { name, pid: server.child.pid!, origin: server.baseUrl.replace('localhost', '127.0.0.1'), stop: () => server.stop() };
}
const servers: Served[] = [];
if (baselineMain) {
  servers.push(served(`before (${baselineRev})`, await startServer(env, { built: baselineMain })));
}
servers.push(served(baselineMain ? 'after (this checkout)' : 'this checkout', await startBenchServer(env)));

/** The process's user + system CPU time so far, in µs. */
function cpuMicros(processId: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${processId}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
}

/** Runs wrk with `args` to its end: its output. */
function runWrk(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
}

interface Target {
  label: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The status every answer must have. */
  status: number;
}

interface Measured {
  rps: number;
  cpuPerRequest: number;
  p99: string;
  bytes: number;
}

/** Checks one answer of `target`, then loads it with wrk; the server's CPU time over the load per request. */
async function measure(target: Target, processId: number): Promise<Measured> {
  const check = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
  const text = await check.text();
  if (check.status !== target.status || (target.url.endsWith('/graphql') && text.includes('"errors"'))) {
    throw new Error(`${target.label}: expected ${target.status}, got ${check.status} ${text.slice(0, 300)}`);
  }
  const script = path.join(dataDir, 'wrk.lua');
  const headers = Object.entries(target.headers ?? {}).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  writeFileSync(
    script,
    [`wrk.method = "${target.method ?? 'GET'}"`, ...(target.body ? [`wrk.body = ${JSON.stringify(target.body)}`] : []), ...headers].join('\n'),
  );
  const before = cpuMicros(processId);
  // Not spawnSync: this process must go on reading the server's log lines from its pipe meanwhile.
  const result = await runWrk(['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, target.url]);
  const used = cpuMicros(processId) - before;
  const output = result.stdout;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const failures = /Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1];
  const errors = /Socket errors: (.*)/.exec(output)?.[1];
  if (!requests) throw new Error(`${target.label}: wrk failed: ${output} ${result.stderr}`);
  if (target.status < 400 && failures) throw new Error(`${target.label}: ${failures} answers were not ${target.status}`);
  if (errors && /timeout [1-9]/.test(errors)) console.log(`  (${target.label}: wrk socket errors ${errors})`);
  return { rps, cpuPerRequest: used / requests, p99: /^\s+99%\s+(\S+)$/m.exec(output)?.[1] ?? '?', bytes: Buffer.byteLength(text) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The ETag a first GET answers with. */
async function etagOf(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return response.headers.get('etag') ?? '';
}

/** The rows of the table on the server at `origin`. */
async function targetsOf(origin: string): Promise<Target[]> {
  const summaryUrl = `${origin}/api/machine/summary`;
  const calendarUrl = (token: string) => `${origin}/api/calendar.ics?token=${token}`;
  const graphql = (label: string, query: string, token: string): Target => ({
    label,
    url: `${origin}/graphql`,
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    status: 200,
  });
  return [
    { label: 'summary 200, warm, 50 shows', url: summaryUrl, headers: bearer(small.token), status: 200 },
    { label: 'summary 304 (If-None-Match), 50 shows', url: summaryUrl, headers: { ...bearer(small.token), 'if-none-match': await etagOf(summaryUrl, bearer(small.token)) }, status: 304 },
    { label: 'calendar.ics 304, 50 shows', url: calendarUrl(small.token), headers: { 'if-none-match': await etagOf(calendarUrl(small.token)) }, status: 304 },
    { label: 'calendar.ics 304, 500 shows', url: calendarUrl(issue.token), headers: { 'if-none-match': await etagOf(calendarUrl(issue.token)) }, status: 304 },
    { label: 'calendar.ics 200, warm, 500 shows', url: calendarUrl(issue.token), status: 200 },
    // A well-formed token nobody has (a regenerated one still configured somewhere): a lookup, then 401.
    { label: '401 (unknown token)', url: summaryUrl, headers: bearer(unknownToken), status: 401 },
    graphql('GraphQL { __typename }', '{ __typename }', issue.token),
    graphql('GraphQL library(first: 20), 500 shows', '{ library(first: 20) { edges { node { kind followed } } } }', issue.token),
  ];
}
const unknownToken = generateToken();

console.log(`${config.database.kind}, ${servers.map((server) => server.name).join(' and ')} (${serverKind}); wrk -t1 -c${connections} -d${seconds}s a row; access log ${env.AIRDATE_LOG_LEVEL}`);
const bareBefore = await measure({ label: 'bare node:http, 9 KB', url: bareUrl, status: 200 }, bare.pid!);
// BENCH_ONLY=<regular expression>: only the rows whose label matches it (for a profile of one of them).
const only = new RegExp(process.env.BENCH_ONLY ?? '');
const targets = await Promise.all(servers.map((server) => targetsOf(server.origin)));
/** Each row's figures, one per server (in `servers` order), measured in turn. */
const rows: [string, Measured[]][] = [];
for (const [index, target] of targets[0]!.entries()) {
  if (!only.test(target.label)) continue;
  const figures: Measured[] = [];
  for (const [at, server] of servers.entries()) figures.push(await measure(targets[at]![index]!, server.pid));
  rows.push([target.label, figures]);
}
const bareAfter = await measure({ label: 'bare node:http, 9 KB', url: bareUrl, status: 200 }, bare.pid!);
const bareRps = (bareBefore.rps + bareAfter.rps) / 2;
const bareCpu = (bareBefore.cpuPerRequest + bareAfter.cpuPerRequest) / 2;

/**
 * A summary GET right after each of `coldSamples` watched toggles: its wall time (p50, p99) and
 * the server's CPU time for it (mean; /proc counts in 10 ms ticks, so only the mean is exact).
 * `encoding`: its Accept-Encoding (`identity`: plain, as the in-process figure of earlier rounds).
 */
const watchedNow = new Map<number, boolean>();
async function coldSummary(server: Served, token: string, episodes: number[], encoding: string): Promise<string> {
  const times: number[] = [];
  let cpu = 0;
  for (let sample = 0; sample < coldSamples; sample += 1) {
    // Every toggle flips its episode from what it last was, across calls and servers: a real change.
    const episode = episodes[sample % episodes.length]!;
    const watched = !(watchedNow.get(episode) ?? false);
    watchedNow.set(episode, watched);
    const toggle = await fetch(`${server.origin}/api/machine/watched`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: episode, watched }),
    });
    if (toggle.status !== 200) throw new Error(`watched failed: ${toggle.status} ${await toggle.text()}`);
    await toggle.arrayBuffer();
    const cpuBefore = cpuMicros(server.pid);
    const started = performance.now();
    const response = await fetch(`${server.origin}/api/machine/summary`, { headers: { ...bearer(token), 'accept-encoding': encoding } });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    cpu += cpuMicros(server.pid) - cpuBefore;
    if (response.status !== 200) throw new Error(`summary failed: ${response.status}`);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
  return `${(cpu / coldSamples / 1000).toFixed(2)} ms CPU; wall p50 ${at(50).toFixed(2)} ms, p99 ${at(99).toFixed(2)} ms`;
}

/** The server's heap and what each cache holds, from /metrics. */
async function gauges(server: Served): Promise<string> {
  const text = await (await fetch(`${server.origin}/metrics`, { headers: bearer(metricsToken) })).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const mb = (name: string) => `${(value(name) / 1024 / 1024).toFixed(0)} MB`;
  const caches = [...text.matchAll(/^airdate_cache_size\{cache="([^"]+)",unit="([^"]+)"\} (\S+)$/gm)].map(([, name, unit, held]) =>
    unit === 'bytes' ? `${name} ${(Number(held) / 1024 / 1024).toFixed(1)} MB` : `${name} ${held}`,
  );
  return `heap used ${mb('nodejs_heap_size_used_bytes')} of ${mb('nodejs_heap_size_total_bytes')}, external ${mb('nodejs_external_memory_bytes')}${caches.length > 0 ? `; ${caches.join(', ')}` : ''}`;
}

const cold: Record<string, string[]> = { plain500: [], gzip500: [], plain2000: [] };
const rss500: number[] = [];
const memory500: string[] = [];
const rssAfterBig: number[] = [];
for (const server of servers) {
  cold.plain500!.push(await coldSummary(server, issue.token, issueEpisodes, 'identity'));
  cold.gzip500!.push(await coldSummary(server, issue.token, issueEpisodes, 'gzip'));
  rss500.push(memoryOf(server.pid).rss);
  memory500.push(await gauges(server));
}
for (const server of servers) {
  cold.plain2000!.push(await coldSummary(server, big.token, bigEpisodes, 'identity'));
  rssAfterBig.push(memoryOf(server.pid).rss);
}
// Then quiet (BENCH_IDLE_SECONDS): what the server holds once it is left alone (an idle server compacts its heap: src/heap-tuning.ts).
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
const rssIdle = servers.map((server) => memoryOf(server.pid).rss);
const bareRss = memoryOf(bare.pid!).rss;

const perServer = <T>(values: T[], show: (value: T) => string) => values.map(show).join(' | ');
console.log('');
console.log(`bare node:http, 9 KB: ${bareBefore.cpuPerRequest.toFixed(0)} / ${bareAfter.cpuPerRequest.toFixed(0)} µs CPU a request, ${bareBefore.rps.toFixed(0)} / ${bareAfter.rps.toFixed(0)} req/s (before / after the rows), RSS ${bareRss.toFixed(0)} MB`);
console.log('');
console.log(`| request | ${servers.map((server) => `${server.name}: CPU per request, share of the bare server's req/s`).join(' | ')} |`);
console.log(`|---|${servers.map(() => '---').join('|')}|`);
for (const [label, figures] of rows) {
  const body = `${(figures.at(-1)!.bytes / 1024).toFixed(1)} KB`;
  console.log(`| ${label} (${body}) | ${perServer(figures, (measured) => `${measured.cpuPerRequest.toFixed(0)} µs, ${((measured.rps / bareRps) * 100).toFixed(1)} % (${measured.rps.toFixed(0)} req/s, p99 ${measured.p99})`)} |`);
}
console.log(`| cold summary right after a write, 500 shows, plain | ${cold.plain500!.join(' | ')} |`);
console.log(`| cold summary right after a write, 500 shows, gzip | ${cold.gzip500!.join(' | ')} |`);
console.log(`| cold summary right after a write, ${bigShows} shows, plain | ${cold.plain2000!.join(' | ')} |`);
console.log(`| resident memory after the rows above (50 and 500 shows) | ${perServer(rss500, (rss) => `${rss.toFixed(0)} MB`)} |`);
console.log(`| resident memory after the ${bigShows}-show account too | ${perServer(rssAfterBig, (rss) => `${rss.toFixed(0)} MB`)} |`);
console.log(`| … and after ${idleSeconds} s without requests | ${perServer(rssIdle, (rss) => `${rss.toFixed(0)} MB`)} |`);
for (const [index, server] of servers.entries()) console.log(`${server.name} at 500 shows: ${memory500[index]}`);
console.log(`(bare server's CPU a request, the mean of before and after: ${bareCpu.toFixed(1)} µs)`);

bare.kill();
for (const server of servers) await server.stop();
rmSync(dataDir, { recursive: true, force: true });
