import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initSecretKey } from '../src/keys/secret-key.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, db, openDatabase } from '../src/db/client.ts';
import { updateAccount } from '../src/accounts/accounts.ts';
import { syncOfflineCatalog } from '../src/catalog/catalog-service.ts';
import { createOfflineProvider } from '../src/catalog/offline-catalog.ts';
import { setFollow } from '../src/library/library.ts';
import { makeAccount } from '../test/support/factories.ts';
import { startServer, type ServerProcess } from '../test/support/processes.ts';
import { buildBaselineServer, sameSchema } from './baseline-server.ts';
import { run, serverKind, startBenchServer } from './server-process.ts';

/**
 * `npm run bench:restart`: how long a restarted `serve` process (dist/main.js, as `npm start`
 * runs it) takes from its spawn to the first request it answers (the first 200 of an
 * authenticated GET /api/machine/summary, asked every 10 ms from the spawn on), and to its
 * listening line (printed once its start is complete). Measured twice, BENCH_RESTARTS times
 * each (default 5): cold (no other process), and loaded as issue 22 ran it: two other `serve`
 * processes on the same database answering a writer that marks items watched (20 connections)
 * and a sync of every account each second, while the third is killed (SIGKILL) and started again.
 * The data: an offline catalog file (AIRDATE_CATALOG_FILE) of BENCH_CATALOG_SHOWS shows
 * (default 1 000, ten episodes each) and as many movies, and 20 accounts following 6 items each
 * that release today. Besides the times, the CPU the process used until it served (from /proc:
 * the figure the machine's other load moves least). Target: ≤ 3 s loaded.
 * BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database). BENCH_BASELINE_REV=<commit>
 * (e.g. main) builds that commit's server aside and restarts it in turn with this one, in the
 * same series, so both meet the same load (the machine's other load changes from minute to minute).
 */
const restarts = Number(process.env.BENCH_RESTARTS ?? 5);
const catalogShows = Number(process.env.BENCH_CATALOG_SHOWS ?? 1_000);
const accountsCount = 20;
const target = 3_000;

// The webhook receiver: answers 204 at once.
const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-restart-'));
const today = new Date().toISOString().slice(0, 10);
const catalogFile = path.join(dataDir, 'bench-catalog.json');
writeFileSync(
  catalogFile,
  JSON.stringify({
    shows: Array.from({ length: catalogShows }, (_, index) => ({
      ids: { tmdb: 7_000_000 + index },
      title: `Restart bench show ${index}`,
      overview: 'A show of the restart benchmark.',
      episodes: Array.from({ length: 10 }, (_, number) => ({ season: 1, number: number + 1, title: `Episode ${number + 1}`, air_date: number === 9 ? today : '2024-01-01' })),
    })),
    movies: Array.from({ length: catalogShows }, (_, index) => ({ ids: { tmdb: 7_000_000 + index }, title: `Restart bench movie ${index}`, release_date: index % 2 === 0 ? today : '2023-05-05' })),
  }),
);
const env: Record<string, string> = {
  AIRDATE_DATA_DIR: dataDir,
  AIRDATE_LOG_LEVEL: 'warn',
  AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  AIRDATE_CATALOG_FILE: catalogFile,
  ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
};

// Seeded in this process: the catalog stored (as a first start would), accounts following items.
const config = loadConfig(env);
await openDatabase(config, { migrate: true });
initSecretKey(config);
await syncOfflineCatalog(createOfflineProvider(catalogFile));
const shows = await db().show.findMany({ select: { id: true }, orderBy: { id: 'asc' }, take: 60 });
const movies = await db().movie.findMany({ where: { releaseDate: today }, select: { id: true }, orderBy: { id: 'asc' }, take: 60 });
const accounts: { token: string; episodes: number[] }[] = [];
for (let index = 0; index < accountsCount; index++) {
  const account = await makeAccount();
  await updateAccount({ name: account.name, webhookUrl });
  const followed = [shows[index * 3]!, shows[index * 3 + 1]!, shows[index * 3 + 2]!];
  for (const show of followed) await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  for (const movie of movies.slice(index * 3, index * 3 + 3)) await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  const episodes = await db().episode.findMany({ where: { showId: { in: followed.map((show) => show.id) } }, select: { id: true } });
  accounts.push({ token: account.token, episodes: episodes.map((episode) => episode.id) });
}
await closeDatabase();
console.log(`${config.database.kind}, ${serverKind}: ${catalogShows} shows and ${catalogShows} movies in the catalog file, ${accountsCount} accounts`);

/** Spawn → listening line, spawn → first 200 of an authenticated request, in ms; CPU used until served. */
interface StartFigures {
  listening: number;
  served: number;
  cpu: number;
}

/** The builds restarted in turn: this checkout's, and BENCH_BASELINE_REV's when given. */
const baselineRev = process.env.BENCH_BASELINE_REV;
const builds: { label: string; main: string | undefined }[] = [{ label: 'this build', main: undefined }];
if (baselineRev) {
  const main = buildBaselineServer(baselineRev, path.join(dataDir, 'baseline'));
  builds.push({ label: `${baselineRev} (${sameSchema(baselineRev) ? 'same schema' : 'OTHER schema'})`, main });
}

/** User and system CPU time of a process so far, in ms (Linux /proc, 100 ticks a second). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A port free at the moment (the process is started on it, so it can be asked before it says where it listens). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts a process of `build` and times it: to the first 200 of GET /api/machine/summary, asked
 * from the spawn on every 10 ms, and to its listening line (printed once its start is complete).
 */
async function timedStart(build: (typeof builds)[number]): Promise<{ server: ServerProcess; figures: StartFigures }> {
  const port = await freePort();
  const spawned = performance.now();
  let listening = 0;
  let pid = 0;
  const starting = startServer({ ...env, PORT: String(port) }, build.main ? { built: build.main } : run, (child) => (pid = child.pid!)).then((server) => {
    listening = performance.now() - spawned;
    return server;
  });
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${port}/api/machine/summary`, { headers: { authorization: `Bearer ${accounts[0]!.token}` } }).catch(() => undefined);
    await response?.arrayBuffer();
    if (response?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const served = performance.now() - spawned;
  const cpu = cpuOf(pid);
  return { server: await starting, figures: { listening, served, cpu } };
}

function kill(server: ServerProcess): Promise<void> {
  const closed = new Promise<void>((resolve) => server.child.once('close', () => resolve()));
  server.child.kill('SIGKILL');
  return closed;
}

/** Restarts one process `restarts` times per build (SIGKILL, then spawn, builds in turn), a second after each served. */
async function restartSeries(label: string): Promise<void> {
  const figures = builds.map(() => [] as StartFigures[]);
  let current = (await timedStart(builds[0]!)).server;
  for (let index = 0; index < restarts * builds.length; index++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await kill(current);
    const build = index % builds.length;
    const started = await timedStart(builds[build]!);
    current = started.server;
    figures[build]!.push(started.figures);
  }
  await current.stop();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`${label}:`);
  for (const [index, build] of builds.entries()) {
    const of = (key: keyof StartFigures) => figures[index]!.map((entry) => entry[key]);
    const served = of('served');
    console.log(
      `  ${build.label}: first request served ${median(served).toFixed(0)} ms after spawn (median of ${restarts}; ${Math.min(...served).toFixed(0)}–${Math.max(...served).toFixed(0)} ms), ` +
        `listening after ${median(of('listening')).toFixed(0)} ms, ${median(of('cpu')).toFixed(0)} ms of CPU until served (target ≤ ${target} ms served)`,
    );
  }
}

// dist/main.js built from this checkout, once.
await (await startBenchServer(env)).stop();

// Cold: the only process.
await restartSeries('cold');

// Loaded: two other processes under the load while the third restarts.
const others = [await startServer(env, run), await startServer(env, run)];
let loading = true;
let writes = 0;
let failures = 0;
const writer = async (connection: number) => {
  for (let turn = 0; loading; turn++) {
    const account = accounts[(connection + turn) % accounts.length]!;
    const server = others[turn % others.length]!;
    const episode = account.episodes[turn % account.episodes.length]!;
    const response = await fetch(`${server.baseUrl}/api/machine/watched`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: episode, watched: turn % 4 !== 0 }),
    }).catch(() => undefined);
    await response?.arrayBuffer();
    if (response?.status === 200) writes += 1;
    else failures += 1;
  }
};
const syncer = async () => {
  while (loading) {
    await Promise.all(accounts.map((account, index) =>
      fetch(`${others[index % others.length]!.baseUrl}/api/machine/sync`, { method: 'POST', headers: { authorization: `Bearer ${account.token}` } }).then((response) => response.arrayBuffer(), () => undefined),
    ));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
};
const load = [...Array.from({ length: 20 }, (_, connection) => writer(connection)), syncer()];
const loadStarted = performance.now();
await restartSeries('loaded (two other processes: 20 writers, syncs each second)');
loading = false;
await Promise.all(load);
console.log(`  load meanwhile: ${(writes / ((performance.now() - loadStarted) / 1000)).toFixed(0)} writes/s answered 200, ${failures} not`);
await Promise.all(others.map((server) => server.stop()));
receiver.close();
