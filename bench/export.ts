import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { tuneHeap } from '../src/heap-tuning.ts';
import { parseAirdateExport } from '../src/import/parse-airdate.ts';
import { createAccount } from '../src/services/accounts.ts';
import { applyImportDocument } from '../src/services/import.ts';
import { showToken } from '../src/services/tokens.ts';
import { defaultHistorySize, seedHistoryLibrary } from './seed-history.ts';

/**
 * `npm run bench:export`: the export of a library with 100 000 history entries, streamed to a
 * file, then that file imported into an empty account (parse + apply) and exported again. The
 * parent seeds the database; a fresh child process does the measured work, so its peak RSS is
 * the export's and the import's, not the seeding's (issue target: ≤ 10 s, ≤ 300 MB together).
 * BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database; filled, not cleaned).
 */
const measureFlag = '--measure';

function configFor(dataDir: string) {
  return loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', DATABASE_URL: process.env.BENCH_DATABASE_URL });
}

/** Peak resident set size seen while `work` runs, sampled every 5 ms, in MB. */
async function measure<T>(label: string, work: () => Promise<T>): Promise<T> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  try {
    return await work();
  } finally {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(2)} s, peak RSS ${(peak / 2 ** 20).toFixed(0)} MB`);
  }
}

/** Streams the export to `file` as a browser download would; returns the chunk count. */
async function downloadTo(app: App, token: string, file: string): Promise<number> {
  const response = await app.fetch(new Request('http://bench.local/api/export', { headers: { authorization: `Bearer ${token}` } }));
  if (response.status !== 200) throw new Error(`export failed: ${response.status} ${await response.text()}`);
  let chunks = 0;
  const sink = Writable.toWeb(createWriteStream(file));
  await response.body!.pipeThrough(new TransformStream({ transform: (chunk, controller) => void (chunks += 1, controller.enqueue(chunk)) })).pipeTo(sink);
  return chunks;
}

/** The document without `exportedAt` and `account`, which differ between accounts and runs. */
const comparable = (file: string) => {
  const { exportedAt: _at, account: _account, ...rest } = JSON.parse(readFileSync(file, 'utf8'));
  return JSON.stringify(rest);
};

async function measured(dataDir: string, token: string): Promise<void> {
  tuneHeap(); // as src/main.ts does at start
  const app = await createApp(configFor(dataDir));
  console.log(`RSS after start (app built, nothing exported): ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
  const file = path.join(dataDir, 'airdate-export.json');
  const chunks = await measure('export (GET /api/export streamed to a file)', () => downloadTo(app, token, file));
  console.log(`  ${(statSync(file).size / 2 ** 20).toFixed(1)} MB in ${chunks} chunks`);
  const target = await createAccount({ name: 'bench-import', timezone: 'UTC' });
  const document = await measure('import: parse (parseAirdateExport of the file)', async () => parseAirdateExport(readFileSync(file), path.basename(file)));
  const result = await measure('import: apply (applyImportDocument into an empty account)', () => applyImportDocument({ accountId: target.id, document }));
  console.log(`  imported ${JSON.stringify(result.imported)}`);
  const again = path.join(dataDir, 'airdate-export-again.json');
  const targetToken = await showToken({ accountId: target.id });
  await measure('export of the imported account', () => downloadTo(app, targetToken, again));
  console.log(`  same document apart from exportedAt/account: ${comparable(file) === comparable(again)}`);
  console.log(`process peak RSS (export, import, export): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  await app.close();
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-export-'));
  try {
    const config = configFor(dataDir);
    const app = await createApp(config);
    const account = await createAccount({ name: 'bench', timezone: 'UTC' });
    const token = await showToken({ accountId: account.id });
    const started = performance.now();
    const entries = await seedHistoryLibrary(config.database, account.id, 1_000_000, defaultHistorySize);
    const { shows, episodesPerShow, movies, games } = defaultHistorySize;
    console.log(`seeded ${shows} shows × ${episodesPerShow} episodes, ${movies} movies, ${games} games, ${entries} history entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await app.close();
    const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
    const child = spawn(tsx, [fileURLToPath(import.meta.url), measureFlag, dataDir, token], { stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`measuring process exited with ${code}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === measureFlag) await measured(process.argv[3]!, process.argv[4]!);
else await main();
