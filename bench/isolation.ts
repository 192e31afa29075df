import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerProcess } from '../test/support/processes.ts';
import { buildBaselineServer, sameSchema } from './baseline-server.ts';
import { catalogDeliveries, deliveryShow, startFakeTmdb } from './isolation-catalog.ts';
import { signIn } from './isolation-client.ts';
import type { IsolationSeed } from './isolation-seed.ts';
import { importedRows, largeImports, zipUploads } from './isolation-uploads.ts';
import { measurePhase, percentiles, probeNames, sleep, victimProbes, watchVictim, type Measured, type Victim } from './isolation-victim.ts';
import { bulkMarks, episodeMarks, streamsAfterSignOut, type ScenarioContext } from './isolation-writes.ts';
import { run, serverKind, startBenchServer } from './server-process.ts';

/**
 * `npm run bench:isolation`: what one account can cost another (issue 31). A real `serve` process
 * (dist/main.js, as `npm start` runs it) with three accounts: the victim (issue 14's library: 500
 * shows × 50 episodes, 100 movies, 100 games), the owner of some live-update streams, and the
 * attacker (an ordinary account). The victim keeps using the server (isolation-victim.ts: a read
 * with the session cookie of a real sign-in, the same read with its API token, a watched toggle,
 * and where it applies a catalog search, each a loop of its own, one request every
 * BENCH_INTERVAL_MS (100) at most): alone first for BENCH_SECONDS (5), the baseline, then during
 * each of the attacker's bursts (BENCH_SCENARIOS, comma-separated, all by default):
 * - bulk: 20 × markWatched(990), 4 at once, then 4 × markWatched(5,000) (isolation-writes.ts);
 * - episodes: markEpisodes over a 2,700-episode show and undoMarks of 1,200 entries;
 * - streams: 10 live-update streams opened with a session, then sign-out: how many stay open and
 *   keep receiving, and whether the owner's new tab gets 429;
 * - zip: a zip of one 122 MiB JSON entry (about 250 KB), and one of 240 MiB (isolation-uploads.ts);
 * - csv: Letterboxd's watched.csv of 300,000 rows (15 MB), then a Trakt history of 100,000 plays;
 * - deliveries: Jellyfin and Plex deliveries of a season neither the store nor the catalog has,
 *   against a fake TMDB this benchmark starts, with the catalog requests each costs, while the
 *   victim searches (isolation-catalog.ts);
 * - private: an imported show under an unused TMDB id with a chosen title: does the victim's search
 *   list it?
 * Each scenario runs on a freshly started server (none inherits the memory or the queues an earlier
 * one left), warmed up by the victim's probes for 2 s first.
 * For each phase: the victim's p50/p99/max per probe, the server's peak resident memory (VmHWM,
 * reset with clear_refs before the phase) and its memory after, what the burst got back (statuses,
 * time) and the catalog requests it cost. Whatever a build answers (a 500, a 413, a 429) is
 * printed, never fatal; a server that dies is reported and started again for the next phase, and a
 * burst still unanswered after BENCH_TIMEOUT_SECONDS (120) is reported so, its server ended
 * (SIGKILL) and started again (on a loaded machine the 240 MiB zip can take minutes).
 *
 * The rate limit is off (AIRDATE_RATE_LIMIT_PER_MINUTE=0): the victim's probes alone send about
 * 30 requests a second, past the default 600 a minute; the attacker's bursts stay under it anyway.
 * SQLite in a fresh data folder, or PostgreSQL with BENCH_DATABASE_URL (an empty database; filled,
 * not cleaned). BENCH_BASELINE=<commit> also runs that commit's build first (baseline-server.ts),
 * on a database of its own (SQLite: a folder of its own; PostgreSQL: BENCH_BASELINE_DATABASE_URL,
 * another empty database), seeded by its own sources, and prints both side by side. The sizes:
 * BENCH_BULK_CALLS, BENCH_BULK_IDS, BENCH_BULK_CONCURRENCY, BENCH_BIG_CALLS, BENCH_BIG_IDS,
 * BENCH_ROUNDS, BENCH_STREAMS, BENCH_ZIP_MIB, BENCH_CSV_ROWS, BENCH_PLAYS, BENCH_DELIVERIES.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const intervalMs = Number(process.env.BENCH_INTERVAL_MS ?? 100);
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 120) * 1_000;
const tmdb = await startFakeTmdb();

const scenarios: Record<string, (context: ScenarioContext) => Promise<Measured[]>> = {
  bulk: bulkMarks,
  episodes: episodeMarks,
  streams: streamsAfterSignOut,
  zip: zipUploads,
  csv: largeImports,
  deliveries: (context) => catalogDeliveries(context, tmdb),
  private: importedRows,
};
const chosen = (process.env.BENCH_SCENARIOS ?? Object.keys(scenarios).join(',')).split(',').map((name) => name.trim()).filter(Boolean);
const unknown = chosen.filter((name) => !(name in scenarios));
if (unknown.length > 0) throw new Error(`unknown BENCH_SCENARIOS ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);

const runDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-isolation-'));
/** A build under test: its source tree, its server (dist/main.js of this checkout when none) and its database. */
interface Build {
  label: string;
  root: string;
  main?: string;
  databaseUrl?: string;
}
const builds: Build[] = [];
const baselineRev = process.env.BENCH_BASELINE;
if (baselineRev) {
  if (process.env.BENCH_DATABASE_URL && !process.env.BENCH_BASELINE_DATABASE_URL) {
    throw new Error('BENCH_BASELINE on PostgreSQL needs BENCH_BASELINE_DATABASE_URL: another empty database, migrated and seeded by that build');
  }
  const dir = path.join(runDir, 'baseline');
  const main = buildBaselineServer(baselineRev, dir);
  // The seed runs with the commit's own sources and Prisma client (its schema may be older).
  copyFileSync(path.join(root, 'bench', 'isolation-seed.ts'), path.join(dir, 'bench', 'isolation-seed.ts'));
  builds.push({ label: `before (${baselineRev}${sameSchema(baselineRev) ? '' : ', older schema'})`, root: dir, main, databaseUrl: process.env.BENCH_BASELINE_DATABASE_URL });
}
builds.push({ label: baselineRev ? 'after (this checkout)' : 'this checkout', root, databaseUrl: process.env.BENCH_DATABASE_URL });

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

/** Runs isolation-seed.ts with `build`'s sources on its database; what it made. */
function seedBuild(build: Build, env: Record<string, string>): IsolationSeed {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AIRDATE_|DATABASE_URL$|PORT$)/.test(name)));
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'bench/isolation-seed.ts', JSON.stringify(deliveryShow)], {
    cwd: build.root,
    env: { ...inherited, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as IsolationSeed;
}

/** Starts `build`'s server and lets its start-up jobs finish (as startBenchServer does). */
async function startBuild(build: Build, env: Record<string, string>, firstStart: boolean): Promise<ServerProcess> {
  if (!build.main && firstStart) return startBenchServer(env);
  const started = await startServer(env, build.main ? { built: build.main } : run);
  await sleep(3_000);
  return started;
}

/** The server under test, while one runs. */
let server: ServerProcess | undefined;

/** Everything measured of one build: the baseline phase, then each scenario's phases. */
async function runBuild(build: Build, index: number): Promise<Measured[]> {
  const dataDir = path.join(runDir, `data-${index}`);
  mkdirSync(dataDir);
  const env: Record<string, string> = {
    AIRDATE_DATA_DIR: dataDir,
    AIRDATE_LOG_LEVEL: 'warn',
    AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
    ...tmdb.env,
    ...(build.databaseUrl ? { DATABASE_URL: build.databaseUrl } : {}),
  };
  console.log(`\n${build.label}: ${build.databaseUrl ? 'postgres' : 'sqlite'}, ${serverKind}; load average ${load()}`);
  const seed = seedBuild(build, env);
  server = await startBuild(build, env, true);
  const origin = () => server!.baseUrl.replace('localhost', '127.0.0.1');
  const measured: Measured[] = [];
  try {
    const victimCookie = await signIn(origin(), seed.victim.name, seed.password);
    const victim: Victim = { origin: origin(), token: seed.victim.token, cookie: victimCookie, episodes: seed.victim.episodes };
    // One set of probes for the whole run: the write's toggles go on from where they were.
    const probes = victimProbes(victim, true, 'Bench Show 1');
    const { search: _search, ...withoutSearch } = probes;
    // Ends the server and starts it again, then warms it up (its code paths compiled, the victim's
    // caches filled: not measured). Each scenario starts so, so that none inherits what an earlier
    // one left (the memory a zip leaves, a stream, a queue); `why` says why when it is not that.
    const restart = async (why?: string) => {
      await server!.stop();
      if (why) console.log(`  (the server ${why}; starting it again)`);
      server = await startBuild(build, env, false);
      victim.origin = origin();
      await watchVictim(probes, sleep(2_000), intervalMs);
    };
    await watchVictim(probes, sleep(2_000), intervalMs);
    let endedByTimeout = false;
    const phase: ScenarioContext['phase'] = async (scenario, burst, options) => {
      if (endedByTimeout) await restart('was ended after the timeout');
      else if (server!.child.exitCode !== null || server!.child.signalCode !== null) {
        await restart(`ended by itself (${server!.child.exitCode ?? server!.child.signalCode}); its last output:\n${server!.output().slice(-1_000)}\n `);
      }
      endedByTimeout = false;
      const mark = tmdb.mark();
      const onTimeout = () => {
        endedByTimeout = true;
        server!.child.kill('SIGKILL');
      };
      const probing = options?.search ? probes : withoutSearch;
      return measurePhase(scenario, { pid: server!.child.pid!, probes: probing, intervalMs, timeoutMs, onTimeout }, async () => {
        const line = await burst();
        const lookups = tmdb.lookupsSince(mark);
        return lookups > 0 && !line.includes('catalog requests') ? `${line}; ${lookups} catalog requests` : line;
      });
    };
    const context: ScenarioContext = {
      get origin() {
        return origin();
      },
      seed,
      victimCookie,
      phase,
    };
    measured.push(await phase('baseline: the victim alone', () => sleep(seconds * 1_000).then(() => 'nothing else runs'), { search: true }));
    for (const name of chosen) {
      try {
        await restart();
        measured.push(...(await scenarios[name]!(context)));
      } catch (error) {
        // A build that answers something the scenario cannot go on from: said, and the next one runs.
        const burst = `the scenario failed: ${(error as Error).message}`;
        console.log(`  ${name}: ${burst}`);
        measured.push({ scenario: name, victim: new Map(), peakMb: NaN, afterMb: NaN, seconds: 0, burst });
      }
    }
  } finally {
    await server.stop();
    server = undefined;
  }
  console.log(`${build.label}: done; load average ${load()}`);
  return measured;
}

// Interrupted, the benchmark ends its server too (it would go on with whatever it was given).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server?.child.kill('SIGKILL');
    process.exit(130);
  });
}

const started = performance.now();
console.log(`bench:isolation: ${chosen.join(', ')}; victim probes every ${intervalMs} ms; baseline ${seconds} s; load average ${load()}`);
const results: Measured[][] = [];
try {
  for (const [index, build] of builds.entries()) results.push(await runBuild(build, index));
} finally {
  await tmdb.close();
  rmSync(runDir, { recursive: true, force: true });
}

/**
 * p50 / p99 of a probe in a phase and its number of requests (a stalled probe sends few: its p50 is
 * then the stall itself), or a dash where it was not measured.
 */
function figures(phase: Measured | undefined, probe: (typeof probeNames)[number]): string {
  const times = phase?.victim.get(probe)?.times;
  if (!times || times.length === 0) return '—';
  const { p50, p99, n } = percentiles(times);
  const failed = phase!.victim.get(probe)!.failures.length;
  return `${p50.toFixed(1)} / ${p99.toFixed(0)} ms (${n}${failed > 0 ? `, ${failed} failed` : ''})`;
}
const side = (cells: string[]) => cells.join(' → ');
console.log(`\n${builds.map((build) => build.label).join(' → ')}; ${((performance.now() - started) / 60_000).toFixed(1)} minutes; load average ${load()}\n`);
console.log(`| scenario | ${probeNames.map((probe) => `victim ${probe} p50 / p99 (requests)`).join(' | ')} | server peak (after) | burst |`);
console.log(`|---|${probeNames.map(() => '---|').join('')}---|---|`);
for (const scenario of new Set(results.flat().map((phase) => phase.scenario))) {
  const phases = results.map((measured) => measured.find((candidate) => candidate.scenario === scenario));
  const memory = side(phases.map((one) => (one ? `${one.peakMb.toFixed(0)} MB (${one.afterMb.toFixed(0)})` : '—')));
  const burst = phases.map((one, at) => `${builds.length > 1 ? `${builds[at]!.label}: ` : ''}${one?.burst ?? '—'}`).join(' ‖ ');
  console.log(`| ${scenario} | ${probeNames.map((probe) => side(phases.map((one) => figures(one, probe)))).join(' | ')} | ${memory} | ${burst} |`);
}
