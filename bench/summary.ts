import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createHttpServer } from '../src/http/node-server.ts';
import { db } from '../src/db/client.ts';
import { startBenchApp } from './bench-app.ts';
import { seedIssueLibrary } from './seed-library.ts';

/**
 * `npm run bench`: summary latency without the feed cache (cold) and warm throughput over real
 * HTTP, next to a bare node:http server answering the same bytes, in the same run.
 */
const coldSamples = Number(process.env.BENCH_COLD_SAMPLES ?? 200);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const { dataDir, config, app, account, token } = await startBenchApp('airdate-bench-');
const today = await seedIssueLibrary(account.id, config.database.kind);

const summaryRequest = () => new Request('http://bench.local/api/machine/summary', { headers: { authorization: `Bearer ${token}` } });
const first = await app.fetch(summaryRequest());
const body = await first.text();
if (first.status !== 200) throw new Error(`summary failed: ${first.status} ${body}`);
const counts = JSON.parse(body).counts;
console.log(`summary: ${(body.length / 1024).toFixed(0)} KB, counts ${JSON.stringify(counts)}`);

/** Summary latencies right after each of `samples` writes made by `write(sample)`. */
async function coldSummary(write: (sample: number) => Promise<void>): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let sample = 0; sample < coldSamples; sample += 1) {
    await write(sample);
    const started = performance.now();
    const response = await app.fetch(summaryRequest());
    await response.text();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { p50: percentile(50), p99: percentile(99) };
}

// The write people make: a watched toggle through the API, applied to the kept library snapshot.
const toggled = await db().episode.findMany({
  where: { show: { libraryRows: { some: { accountId: account.id, followed: true, archived: false } } }, airDate: { lte: today } },
  select: { id: true },
  take: 50,
});
const afterToggle = await coldSummary(async (sample) => {
  const episode = toggled[sample % toggled.length]!;
  const response = await app.fetch(
    new Request('http://bench.local/api/machine/watched', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: episode.id, watched: Math.floor(sample / toggled.length) % 2 === 0 }),
    }),
  );
  if (response.status !== 200) throw new Error(`watched failed: ${response.status} ${await response.text()}`);
  await response.text();
});
console.log(`cold summary right after a watched toggle (in-process): p50 ${afterToggle.p50.toFixed(2)} ms, p99 ${afterToggle.p99.toFixed(2)} ms over ${coldSamples} requests (target p50 ≤ 5 ms)`);
// Any other write (here a bare version bump, as an import or another instance makes): everything is read again.
const afterOther = await coldSummary(async () => {
  await db().account.update({ where: { id: account.id }, data: { feedVersion: { increment: 1 } } });
});
console.log(`cold summary after any other write (library read again): p50 ${afterOther.p50.toFixed(2)} ms, p99 ${afterOther.p99.toFixed(2)} ms`);

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  // The load runs in a worker thread, so it does not share the servers' event loop.
  const result = await autocannon({ url, connections, duration: seconds, headers, workers: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

// The server `serve` listens with (src/http/node-server.ts).
const airdate = createHttpServer(app);
const bare = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(body);
});
const airdateUrl = await listen(airdate);
const bareUrl = await listen(bare);
const warm = await load(`${airdateUrl}/api/machine/summary`, { authorization: `Bearer ${token}` });
const baseline = await load(bareUrl, {});
console.log(`warm summary over HTTP: ${warm.rps.toFixed(0)} req/s (p50 ${warm.p50} ms, p99 ${warm.p99} ms, errors ${warm.errors})`);
console.log(`bare node:http, same body: ${baseline.rps.toFixed(0)} req/s (p50 ${baseline.p50} ms, p99 ${baseline.p99} ms)`);
console.log(`ratio: ${((warm.rps / baseline.rps) * 100).toFixed(0)} % of the bare server (target ≥ 50 %)`);

airdate.close();
bare.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
