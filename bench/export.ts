import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { showToken } from '../src/accounts/tokens.ts';
import { defaultHistorySize, seedHistoryLibrary } from './seed-history.ts';
import { downloadExport, memoryOf, serverKind, startBenchServer, step, upload } from './server-process.ts';

/**
 * `npm run bench:export`: the export of a library with 100 000 history entries and its restore.
 * This process seeds the database; then the server, as `npm start` runs it (a child process, see
 * server-process.ts), over HTTP: streams GET /api/export to a file, imports that file into an
 * empty account (POST /api/import/airdate) and exports that account again, checking the two
 * documents are the same. Each step's time and the server's own peak RSS are printed (targets of
 * the issue: ≤ 10 s, ≤ 300 MB). BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty
 * database; filled, not cleaned); BENCH_SERVER=tsx on the sources under tsx.
 */

/** The document without `exportedAt` and `account`, which differ between accounts and runs. */
const comparable = (file: string) => {
  const { exportedAt: _at, account: _account, ...rest } = JSON.parse(readFileSync(file, 'utf8'));
  return JSON.stringify(rest);
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-bench-export-'));
const env = { AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}) };
const seeding = await createApp(loadConfig(env));
const account = await createAccount({ name: 'bench', timezone: 'UTC' });
const token = await showToken({ accountId: account.id });
const target = await createAccount({ name: 'bench-restore', timezone: 'UTC' });
const targetToken = await showToken({ accountId: target.id });
const started = performance.now();
const entries = await seedHistoryLibrary(account.id, 1_000_000, defaultHistorySize);
const { shows, episodesPerShow, movies, games } = defaultHistorySize;
console.log(`seeded ${shows} shows × ${episodesPerShow} episodes, ${movies} movies, ${games} games, ${entries} history entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
await seeding.close();

const server = await startBenchServer(env);
const pid = server.child.pid!;
try {
  console.log(`${process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite'}, ${serverKind}: idle server RSS ${memoryOf(pid).rss.toFixed(0)} MB`);
  const file = path.join(dataDir, 'airdate-export.json');
  await step(pid, 'export (GET /api/export streamed to a file)', async () => {
    const chunks = await downloadExport(server.baseUrl, token, file);
    return `${(statSync(file).size / 2 ** 20).toFixed(1)} MB in ${chunks} chunks`;
  });
  await step(pid, 'restore: that file imported into an empty account (POST /api/import/airdate)', async () => {
    return `imported ${JSON.stringify(await upload(server.baseUrl, targetToken, 'airdate', path.basename(file), readFileSync(file)))}`;
  });
  const again = path.join(dataDir, 'airdate-export-again.json');
  await step(pid, 'export of the restored account', async () => {
    await downloadExport(server.baseUrl, targetToken, again);
    return `same document apart from exportedAt/account: ${comparable(file) === comparable(again)}`;
  });
} finally {
  const code = await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (code !== 0) console.log(`the server exited with ${code}:\n${server.output()}`);
}
