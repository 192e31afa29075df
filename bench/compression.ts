import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createHttpServer } from '../src/http/node-server.ts';
import { startBenchApp } from './bench-app.ts';
import { seedIssueLibrary } from './seed-library.ts';

/**
 * `npm run bench:compression`: bytes and warm req/s of the 500-show summary and calendar, plain
 * (what every client got before) and with gzip and br, over real HTTP in the same run; and what
 * the first compression of each body costs (later ones come from the cache beside the plain body).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const { dataDir, config, app, account, token } = await startBenchApp('airdate-bench-');
await seedIssueLibrary(account.id, config.database.kind);

const server = createHttpServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const authorization = `Bearer ${token}`;

/** One request's status, size on the wire and time; the body is read raw (fetch would decode it). */
async function once(url: string, coding: string | undefined): Promise<{ bytes: number; ms: number }> {
  const started = performance.now();
  const response = await app.fetch(new Request(url, { headers: { authorization, ...(coding ? { 'accept-encoding': coding } : {}) } }));
  const bytes = (await response.arrayBuffer()).byteLength;
  if (response.status !== 200 || (coding && response.headers.get('content-encoding') !== coding)) throw new Error(`${url} ${coding}: ${response.status}`);
  return { bytes, ms: performance.now() - started };
}

console.log(`${config.database.kind}: 500 shows × 50 episodes, 100 movies, 100 games; ${connections} connections, ${seconds} s a row`);
for (const target of ['/api/machine/summary', '/api/calendar.ics']) {
  const url = origin + target;
  await once(url, undefined); // renders and caches the plain body
  for (const coding of [undefined, 'gzip', 'br']) {
    const first = await once(url, coding);
    const result = await autocannon({ url, connections, duration: seconds, headers: { authorization, ...(coding ? { 'accept-encoding': coding } : {}) }, workers: 1 });
    const label = `${target} ${coding ?? 'plain'}`.padEnd(32);
    const firstCost = coding ? `, first compression ${first.ms.toFixed(1)} ms` : '';
    console.log(`${label} ${(first.bytes / 1024).toFixed(0).padStart(5)} KB  ${result.requests.average.toFixed(0).padStart(5)} req/s  p99 ${result.latency.p99} ms  ${(result.throughput.average / 1024 / 1024).toFixed(1)} MB/s sent${firstCost}  errors ${result.errors + result.non2xx}`);
  }
}

server.close();
await new Promise((resolve) => setTimeout(resolve, 500));
await app.close();
rmSync(dataDir, { recursive: true, force: true });
