import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { initSecretKey } from '../src/keys/secret-key.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { startServer, type ServerProcess } from '../test/support/processes.ts';
import { buildBaselineServer, sameSchema } from './baseline-server.ts';
import { memoryOf, serverKind, startBenchServer } from './server-process.ts';

/**
 * `npm run bench:writes`: watched toggles and follow changes over HTTP at 50 connections, against
 * a real `serve` process (dist/main.js as `npm start` runs it). For each: writes a second, latency
 * p50/p99, the server's CPU per write (process.cpuUsage over the run / writes) and its event-loop
 * delay (both measured inside the server by bench/loop-probe.mjs), beside the issue's baseline.
 * Every request is a real change (each item is toggled again only after hundreds of other
 * writes), and afterwards the history must hold at least one entry per acknowledged toggle.
 *
 * BENCH_SECONDS (default 15) per phase, BENCH_CONNECTIONS (50); BENCH_DATABASE_URL=postgres://…
 * runs it on PostgreSQL (an empty database; it is filled, not cleaned). BENCH_BASELINE_REV=<commit>
 * (e.g. perf-base) first runs the same phases against that commit's server, built aside, on the
 * same database, and prints the ratios: today's code and the change measured in one run.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Items toggled in turn: far more than the requests in flight, so no two overlap on one item. */
const poolSize = 2_000;
const issueBaseline = 'issue 14 baseline (Prisma transaction): 126–237 writes/s, p99 2–8 s, 3.7–6.8 ms CPU per write';

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-writes-'));
const probeFile = path.join(dataDir, 'probe.json');
const databaseUrl = process.env.BENCH_DATABASE_URL;
const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };

const config = loadConfig(env);
await openDatabase(config, { migrate: true });
initSecretKey(config);

/**
 * An account of its own for each server measured, seeded in this process before that server
 * starts: a show of two pools of episodes (the warm-up's and the measured run's) and poolSize
 * followed shows.
 */
async function seedAccount() {
  const account = await createAccount({ name: `bench-writes-${Date.now()}`, timezone: 'UTC' });
  const token = await showToken({ accountId: account.id });
  const seed = `bench-writes-${account.id}`;
  await db().show.createMany({ data: Array.from({ length: poolSize }, (_, index) => ({ title: `${seed} ${index}` })) });
  const shows = (await db().show.findMany({ where: { title: { startsWith: seed } }, select: { id: true }, orderBy: { id: 'asc' } })).map((show) => show.id);
  await db().episode.createMany({
    data: Array.from({ length: 2 * poolSize }, (_, index) => ({ showId: shows[0]!, season: 1 + Math.floor(index / 100), number: 1 + (index % 100), title: `E${index}` })),
  });
  const episodes = (await db().episode.findMany({ where: { showId: shows[0]! }, select: { id: true }, orderBy: { id: 'asc' } })).map((episode) => episode.id);
  await db().libraryItem.createMany({ data: shows.map((showId) => ({ accountId: account.id, kind: 'show', showId, followed: true, followExplicit: true, followedAt: new Date() })) });
  return { id: account.id, token, shows, episodes };
}

const probe = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url));
const serverEnv = { ...env, NODE_OPTIONS: `--import ${probe}`, BENCH_PROBE_FILE: probeFile };

interface ProbeReport {
  cpuMs: number;
  loopP50: number;
  loopP99: number;
  loopMax: number;
}

interface PhaseFigures {
  writesPerSecond: number;
  p99: number;
  cpuPerWrite: number;
  loopP99: number;
}

type Account = Awaited<ReturnType<typeof seedAccount>>;

/** Runs `body(k)` (the k-th request's JSON) as POSTs to `route` over `connections`, measured inside the server too. */
async function phase(server: ServerProcess, account: Account, label: string, route: string, body: (request: number) => unknown, measured = true) {
  const pid = server.child.pid!;
  let sent = 0;
  rmSync(probeFile, { force: true });
  if (measured) process.kill(pid, 'SIGUSR2');
  const result = await autocannon({
    url: server.baseUrl,
    connections,
    duration: measured ? seconds : 2,
    requests: [
      {
        method: 'POST',
        path: route,
        headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(body(sent++)) }),
      },
    ],
  });
  if (!measured) return { result };
  process.kill(pid, 'SIGUSR2');
  while (!existsSync(probeFile)) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const inside = JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeReport;
  const acknowledged = result['2xx'];
  const figures: PhaseFigures = { writesPerSecond: acknowledged / seconds, p99: result.latency.p99, cpuPerWrite: inside.cpuMs / acknowledged, loopP99: inside.loopP99 };
  console.log(`${label}: ${figures.writesPerSecond.toFixed(0)} writes/s, latency p50 ${result.latency.p50} ms / p99 ${result.latency.p99} ms / max ${result.latency.max} ms, ${acknowledged} acknowledged, ${result.non2xx + result.errors + result.timeouts} failed`);
  console.log(`  server: ${figures.cpuPerWrite.toFixed(3)} ms CPU per write; event-loop delay p50 ${inside.loopP50.toFixed(1)} / p99 ${inside.loopP99.toFixed(1)} / max ${inside.loopMax.toFixed(1)} ms; RSS ${memoryOf(pid).rss.toFixed(0)} MB (peak ${memoryOf(pid).peak.toFixed(0)} MB)`);
  return { result, figures };
}

/**
 * Request k toggles item k mod poolSize of a pool: watched on even rounds over the pool, unwatched
 * on odd ones. Only a phase's last requests can be cut off unanswered, so within a phase every
 * toggle is a real change.
 */
const toggle = (account: Account, offset: number) => (request: number) => ({
  kind: 'episode',
  id: account.episodes[offset + (request % poolSize)],
  watched: Math.floor(request / poolSize) % 2 === 0,
});
const archive = (account: Account) => (request: number) => ({ kind: 'show', id: account.shows[request % poolSize], archived: Math.floor(request / poolSize) % 2 === 0 });

/** Seeds an account, starts a server, warms it up and measures both phases; stops the server. */
async function measure(label: string, start: () => Promise<ServerProcess>): Promise<PhaseFigures[]> {
  console.log(`\n${label}: seeding its account, starting it`);
  const account = await seedAccount();
  const server = await start();
  try {
    console.log(`idle server RSS ${memoryOf(server.child.pid!).rss.toFixed(0)} MB`);
    // Warm-up (JIT, statement caches) on the second pool.
    await phase(server, account, 'warm-up', '/api/machine/watched', toggle(account, poolSize), false);
    const before = await db().watchEvent.count({ where: { accountId: account.id } });
    const watched = await phase(server, account, 'POST /api/machine/watched (episode toggles)', '/api/machine/watched', toggle(account, 0));
    const written = (await db().watchEvent.count({ where: { accountId: account.id } })) - before;
    console.log(`  history: ${written} entries for ${watched.result['2xx']} acknowledged toggles (requests cut off at the end may add a few)`);
    if (written < watched.result['2xx']) throw new Error('an acknowledged toggle is missing from the history');
    const follow = await phase(server, account, 'POST /api/machine/follow (archive changes)', '/api/machine/follow', archive(account));
    return [watched.figures!, follow.figures!];
  } finally {
    // A server that does not stop within 15 s of SIGTERM is reported and killed, not waited for.
    const killed = setTimeout(() => {
      console.log(`the server did not stop within 15 s of SIGTERM; killed. Its output:\n${server.output()}`);
      server.child.kill('SIGKILL');
    }, 15_000);
    const code = await server.stop();
    clearTimeout(killed);
    if (code !== 0) console.log(`the server exited with ${code}:\n${server.output()}`);
  }
}

const baselineRev = process.env.BENCH_BASELINE_REV;
try {
  console.log(`${config.database.kind}, ${connections} connections, ${seconds} s a phase (a busy shared machine: figures vary)`);
  console.log(issueBaseline);
  let before: PhaseFigures[] | undefined;
  if (baselineRev) {
    const main = buildBaselineServer(baselineRev, path.join(dataDir, 'baseline'));
    const schema = sameSchema(baselineRev) ? 'same schema' : 'OTHER schema: its Prisma clients are this checkout’s';
    before = await measure(`baseline ${baselineRev} (${schema})`, async () => {
      const server = await startServer(serverEnv, { built: main });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return server;
    });
  }
  const after = await measure(`this checkout, ${serverKind}`, () => startBenchServer(serverEnv));
  console.log('\ntargets: ≥ 4× the baseline, p99 ≤ 250 ms, ≤ 1 ms CPU per write, event-loop p99 ≤ 50 ms');
  after.forEach((figures, index) => {
    const name = index === 0 ? 'watched' : 'follow';
    const ratio = before ? `${(figures.writesPerSecond / before[index]!.writesPerSecond).toFixed(1)}× the baseline's ${before[index]!.writesPerSecond.toFixed(0)} writes/s (CPU ${before[index]!.cpuPerWrite.toFixed(2)} → ${figures.cpuPerWrite.toFixed(2)} ms per write)` : 'no baseline run (BENCH_BASELINE_REV)';
    console.log(`  ${name}: ${figures.writesPerSecond.toFixed(0)} writes/s = ${ratio}; p99 ${figures.p99} ms, loop p99 ${figures.loopP99.toFixed(1)} ms`);
  });
} finally {
  await closeDatabase();
  rmSync(dataDir, { recursive: true, force: true });
}
