import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The SQLite driver is a native module, the one part of Airdate that depends on the Node runtime's
 * binary interface. better-sqlite3 13 is built on Node-API, so the one installed binary loads in
 * every supported runtime without a rebuild, and its objects no longer derive from
 * `node::ObjectWrap`, whose destructor aborted Node 24.19+ during garbage collection
 * (nodejs/node#65446) with better-sqlite3 12 built from source.
 *
 * The script below does what aborted there: it prepares thousands of statements, drops them, and
 * collects garbage while they are finalized, in the runtime itself and in the teardown at exit.
 * It runs in this test's own runtime, and in every runtime CI names in
 * AIRDATE_TEST_NODE_BINARIES (`.ci/run` installs Node 22 and 24 from the npm registry), with the
 * same node_modules: the binary is not rebuilt between them.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const runtimes = [process.execPath, ...(process.env.AIRDATE_TEST_NODE_BINARIES ?? '').split(path.delimiter).filter(Boolean)];
const folder = mkdtempSync(path.join(tmpdir(), 'airdate-native-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const script = `
const Database = require('better-sqlite3');
const [file] = process.argv.slice(-1);
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)');
const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
db.transaction(() => { for (let i = 0; i < 2000; i += 1) insert.run('row ' + i); })();
let seen = 0;
for (let round = 0; round < 20; round += 1) {
  for (let i = 0; i < 500; i += 1) seen += db.prepare('SELECT count(*) AS n FROM t WHERE id > ?').get(i).n > 0 ? 1 : 0;
  globalThis.gc();
}
const rows = db.prepare('SELECT count(*) AS n FROM t').get().n;
// Statements left for the collector at exit, as a server leaves them when it stops.
for (let i = 0; i < 1000; i += 1) db.prepare('SELECT ' + i);
process.stdout.write(JSON.stringify({ node: process.version, modules: process.versions.modules, sqlite: db.prepare('SELECT sqlite_version() AS v').get().v, rows, seen }));
`;

function run(node: string, file: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--expose-gc', '-e', script, file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('the SQLite driver in each supported runtime', () => {
  it('loads the one installed binary in every runtime named, survives the collection of finalized statements and exits cleanly', { timeout: 120_000 }, async () => {
    const reports: { node: string; modules: string }[] = [];
    for (const [index, node] of runtimes.entries()) {
      const result = await run(node, path.join(folder, `${index}.db`));
      expect(result.stderr, node).toBe('');
      expect({ node, code: result.code, signal: result.signal }).toEqual({ node, code: 0, signal: null });
      const report = JSON.parse(result.stdout);
      expect(report, node).toMatchObject({ rows: 2000, seen: 10_000 });
      expect(Number(report.node.slice(1).split('.')[0]), node).toBeGreaterThanOrEqual(22);
      reports.push(report);
    }
    // CI names Node 22 and 24: two binary interfaces (module versions 127 and 137) served by one
    // install, so no rebuild happened between them.
    const named = new Set(runtimes.slice(1)).size;
    expect(new Set(reports.map((report) => report.modules)).size).toBeGreaterThanOrEqual(Math.min(named, 2));
  });
});
