import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { runCli, startServer, type RunOptions } from '../test/support/processes.ts';

/**
 * `npm run bench:import`: the benchmark, on the server as `npm start` runs it. Builds
 * dist/main.js, starts `serve` on a fresh data folder as a child process, then over HTTP:
 * imports a generated Trakt export of 100 000 plays (numbered watched-history-N.json files of
 * 1 000 entries in one zip, shaped like the real export) through POST /api/import/trakt, imports
 * it again (everything deduplicated), and downloads GET /api/export of the result. Prints each
 * one's time and the server's peak RSS during it (the kernel's high-water mark, VmHWM, reset
 * before each step), and the idle server's RSS. Targets: ≤ 10 s, ≤ 300 MB.
 *
 * BENCH_PLAYS changes the size; BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty
 * database); BENCH_SERVER=tsx runs the TypeScript sources under tsx instead of the build.
 */
const plays = Number(process.env.BENCH_PLAYS ?? 100_000);
const perFile = 1_000;
const root = fileURLToPath(new URL('..', import.meta.url));

/** Play `index`: 90 % episodes of 450 shows × 100 episodes (each watched twice), 10 % movies. */
function play(index: number) {
  const at = new Date(Date.UTC(2020, 0, 1) + index * 60_000).toISOString();
  const ids = (tmdb: number, tvdb: number | null) => ({ imdb: null, plex: { guid: null, slug: `s${tmdb}` }, slug: `s${tmdb}`, tmdb, tvdb, trakt: tmdb });
  if (index % 10 === 9) {
    const movie = 5_000_000 + ((index / 10) | 0) % 5_000;
    return { id: index, watched_at: at, action: 'scrobble', type: 'movie', movie: { ids: ids(movie, null), year: 2019, title: `Movie ${movie}` } };
  }
  const episodeIndex = (index - ((index / 10) | 0)) % 45_000;
  const show = 4_000_000 + ((episodeIndex / 100) | 0);
  const number = (episodeIndex % 100) + 1;
  return {
    id: index,
    watched_at: at,
    action: 'watch',
    type: 'episode',
    episode: { ids: { imdb: null, plex: { guid: null }, tmdb: show * 1000 + number, tvdb: null, trakt: index }, title: `Episode ${number}`, number: number % 20 || 20, season: Math.ceil(number / 20) },
    show: { ids: ids(show, show + 1_000_000), year: 2010, title: `Show ${show}`, aired_episodes: 100 },
  };
}

function buildExport(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const encoder = new TextEncoder();
  // Newest first within and across files, as Trakt writes them.
  for (let part = 0; part * perFile < plays; part += 1) {
    const entries = [];
    for (let index = plays - 1 - part * perFile; index >= Math.max(0, plays - (part + 1) * perFile); index -= 1) entries.push(play(index));
    files[`trakt-export/watched-history-${part + 1}.json`] = encoder.encode(JSON.stringify(entries));
  }
  const uncompressed = Object.values(files).reduce((sum, file) => sum + file.byteLength, 0);
  const zipped = zipSync(files, { level: 6 });
  console.log(`export: ${plays} plays in ${Object.keys(files).length} files, ${(uncompressed / 1e6).toFixed(1)} MB JSON, ${(zipped.byteLength / 1e6).toFixed(1)} MB zipped`);
  return zipped;
}

/** The server's memory figures in MB, from /proc (Linux): current and peak resident set. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Runs `work`, timed, with the server's peak RSS reset first (clear_refs 5) so it is this step's own. */
async function step(pid: number, label: string, work: () => Promise<string>): Promise<void> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = memoryOf(pid).rss;
  const started = performance.now();
  const detail = await work();
  const seconds = (performance.now() - started) / 1000;
  const { peak } = memoryOf(pid);
  console.log(`${label}: ${seconds.toFixed(2)} s; server RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (targets ≤ 10 s, ≤ 300 MB)`);
  console.log(`  ${detail}`);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-import-'));
const exportFile = path.join(dataDir, 'trakt-export.zip');
writeFileSync(exportFile, buildExport());
const zipped = new Uint8Array(readFileSync(exportFile));

const viaTsx = process.env.BENCH_SERVER === 'tsx';
const run: RunOptions = viaTsx ? {} : { built: path.join(root, 'dist', 'main.js') };
if (!viaTsx) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}) };
const name = `bench-import-${Date.now()}`;
for (const args of [['migrate'], ['user', 'create', name]]) {
  const result = await runCli(args, env, run);
  if (result.code !== 0) throw new Error(`airdate ${args.join(' ')} failed: ${result.stderr}`);
}
const token = (await runCli(['token', 'show', name], env, run)).stdout.trim();
const server = await startServer(env, run);
const pid = server.child.pid!;
try {
  // Let the start-up work (the first release check and catalog refresh jobs) finish first.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  console.log(`${process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite'}, ${viaTsx ? 'sources under tsx' : 'dist/main.js (npm start)'}: idle server RSS ${memoryOf(pid).rss.toFixed(0)} MB`);

  const upload = async () => {
    const form = new FormData();
    form.append('file', new File([zipped as BlobPart], 'trakt-export.zip'));
    const response = await fetch(`${server.baseUrl}/api/import/trakt`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const body = (await response.json()) as { imported?: unknown };
    if (response.status !== 200) throw new Error(`import failed: ${response.status} ${JSON.stringify(body)}`);
    return `imported ${JSON.stringify(body.imported)}`;
  };
  await step(pid, 'first import', upload);
  await step(pid, 'same file again', upload);
  await step(pid, 'export of the result', async () => {
    const file = path.join(dataDir, 'airdate-export.json');
    const response = await fetch(`${server.baseUrl}/api/export`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`export failed: ${response.status} ${await response.text()}`);
    await response.body!.pipeTo(Writable.toWeb(createWriteStream(file)));
    const document = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { history?: unknown[]; episodes?: { history?: unknown[] }[] }[]>;
    let entries = 0;
    for (const kind of ['shows', 'movies', 'games']) {
      for (const item of document[kind] ?? []) entries += (item.history?.length ?? 0) + (item.episodes ?? []).reduce((sum, episode) => sum + (episode.history?.length ?? 0), 0);
    }
    return `${(statSync(file).size / 1e6).toFixed(1)} MB, ${entries} history entries`;
  });
} finally {
  const code = await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (code !== 0) console.log(`the server exited with ${code}:\n${server.output()}`);
}
