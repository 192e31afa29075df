import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../test/support/processes.ts';
import { traktExport } from './trakt-export.ts';
import { downloadExport, memoryOf, run, serverKind, startBenchServer, step, upload as importFile } from './server-process.ts';

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
function buildExport(): Uint8Array {
  const { zipped, files, jsonBytes } = traktExport(plays);
  console.log(`export: ${plays} plays in ${files} files, ${(jsonBytes / 1e6).toFixed(1)} MB JSON, ${(zipped.byteLength / 1e6).toFixed(1)} MB zipped`);
  return zipped;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-import-'));
const exportFile = path.join(dataDir, 'trakt-export.zip');
writeFileSync(exportFile, buildExport());
const zipped = new Uint8Array(readFileSync(exportFile));

const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}) };
const name = `bench-import-${Date.now()}`;
for (const args of [['migrate'], ['user', 'create', name]]) {
  const result = await runCli(args, env, run);
  if (result.code !== 0) throw new Error(`airdate ${args.join(' ')} failed: ${result.stderr}`);
}
const token = (await runCli(['token', 'show', name], env, run)).stdout.trim();
const server = await startBenchServer(env);
const pid = server.child.pid!;
try {
  console.log(`${process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite'}, ${serverKind}: idle server RSS ${memoryOf(pid).rss.toFixed(0)} MB`);

  const upload = async () => `imported ${JSON.stringify(await importFile(server.baseUrl, token, 'trakt', 'trakt-export.zip', zipped))}`;
  await step(pid, 'first import', upload);
  await step(pid, 'same file again', upload);
  await step(pid, 'export of the result', async () => {
    const file = path.join(dataDir, 'airdate-export.json');
    await downloadExport(server.baseUrl, token, file);
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
