import { execFileSync } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startServer, type RunOptions, type ServerProcess } from '../test/support/processes.ts';

/**
 * The server of a benchmark, as `npm start` runs it: dist/main.js built from the current sources
 * and started under plain node as a child process (BENCH_SERVER=tsx: the sources under tsx), so
 * its memory is measured apart from the benchmark's own (seeding, generating files).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
export const viaTsx = process.env.BENCH_SERVER === 'tsx';
export const run: RunOptions = viaTsx ? {} : { built: path.join(root, 'dist', 'main.js') };
export const serverKind = viaTsx ? 'sources under tsx' : 'dist/main.js (npm start)';

/** Builds dist/main.js (unless the sources run under tsx) and starts `serve` with `env`. */
export async function startBenchServer(env: Record<string, string>): Promise<ServerProcess> {
  if (!viaTsx) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const server = await startServer(env, run);
  // Let the start-up work (the first release check and catalog refresh jobs) finish first.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  return server;
}

/** A process's current and peak resident set in MB, from /proc (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * Runs `work` (which talks to the server), timed, with the server's peak RSS reset first
 * (clear_refs 5), so the peak printed is this step's own; prints `work`'s detail line.
 */
export async function step(pid: number, label: string, work: () => Promise<string>): Promise<void> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = memoryOf(pid).rss;
  const started = performance.now();
  const detail = await work();
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label}: ${seconds.toFixed(2)} s; server RSS ${before.toFixed(0)} MB before, peak ${memoryOf(pid).peak.toFixed(0)} MB (targets ≤ 10 s, ≤ 300 MB)`);
  console.log(`  ${detail}`);
}

/** What POST /api/import/{source} answered: its status, parsed body and wall time. */
export interface ImportAnswer {
  status: number;
  body: { imported?: unknown; error?: string } & Record<string, unknown>;
  ms: number;
}

/** Posts `bytes` as one file part to POST /api/import/{source} and answers whatever came back. */
export async function postImport(baseUrl: string, token: string, source: string, fileName: string, bytes: Uint8Array): Promise<ImportAnswer> {
  const form = new FormData();
  form.append('file', new File([bytes as BlobPart], fileName));
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/import/${source}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: ImportAnswer['body'];
  try {
    body = JSON.parse(text) as ImportAnswer['body'];
  } catch {
    body = { error: text.slice(0, 200) };
  }
  return { status: response.status, body, ms };
}

/** Posts `bytes` as one file part to POST /api/import/{source}; returns the answer's `imported`. */
export async function upload(baseUrl: string, token: string, source: string, fileName: string, bytes: Uint8Array): Promise<unknown> {
  const { status, body } = await postImport(baseUrl, token, source, fileName, bytes);
  if (status !== 200) throw new Error(`import failed: ${status} ${JSON.stringify(body)}`);
  return body.imported;
}

/** Streams GET /api/export to `file` as a browser download would; returns the chunk count. */
export async function downloadExport(baseUrl: string, token: string, file: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/export`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`export failed: ${response.status} ${await response.text()}`);
  let chunks = 0;
  const count = new TransformStream({ transform: (chunk, controller) => void ((chunks += 1), controller.enqueue(chunk)) });
  await response.body!.pipeThrough(count).pipeTo(Writable.toWeb(createWriteStream(file)));
  return chunks;
}
