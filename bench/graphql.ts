import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createHttpServer } from '../src/http/node-server.ts';
import { localDate } from '../src/time/dates.ts';
import { startBenchApp } from './bench-app.ts';
import { seedLibrary } from './seed-library.ts';

/**
 * `npm run bench:graphql`: requests per second of small GraphQL operations next to the warm REST
 * summary, over real HTTP in the same run (issue 14's target: a small query ≥ 40 % of the
 * summary's rate). BENCH_SHOWS sets the library size (the summary's body grows with it).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const shows = Number(process.env.BENCH_SHOWS ?? 20);

const { dataDir, config, app, account, token } = await startBenchApp('airdate-bench-');
await seedLibrary(account.id, localDate('UTC', new Date()), { shows, episodesPerShow: 50, movies: 10, games: 10 });

// Answers still running when autocannon stops must finish before the database closes.
let underWay = 0;
const served = {
  logger: app.logger,
  async fetch(request: Request, context: { clientAddress: string | undefined }) {
    underWay += 1;
    try {
      return await app.fetch(request, context);
    } finally {
      underWay -= 1;
    }
  },
};
const server: Server = createHttpServer(served);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const authorization = `Bearer ${token}`;

interface Target {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const graphql = (query: string): Target => ({ label: query, method: 'POST', path: '/graphql', body: JSON.stringify({ query }) });
const summary: Target = { label: 'GET /api/machine/summary', method: 'GET', path: '/api/machine/summary' };
const targets: Target[] = [summary, graphql('{ __typename }'), graphql('{ viewer { name } }'), graphql('{ library(first: 1) { edges { node { kind followed } } } }')];

/** Checks a target answers 200 without errors, so the load measures answers rather than refusals. */
async function check(target: Target): Promise<number> {
  const response = await fetch(origin + target.path, { method: target.method, headers: { authorization, 'content-type': 'application/json' }, body: target.body });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"errors"')) throw new Error(`${target.label}: ${response.status} ${text.slice(0, 300)}`);
  return Buffer.byteLength(text);
}

async function load(target: Target): Promise<{ rps: number; p99: number; errors: number }> {
  // The load runs in a worker thread, so it does not share the server's event loop.
  const result = await autocannon({
    url: origin + target.path,
    method: target.method,
    body: target.body,
    headers: { authorization, 'content-type': 'application/json' },
    connections,
    duration: seconds,
    workers: 1,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

console.log(`${config.database.kind}: ${shows} shows × 50 episodes; ${connections} connections, ${seconds} s a target`);
const rates = new Map<Target, number>();
// BENCH_ONLY=<text>: only the targets whose label holds it (for a profile of one of them).
const chosen = targets.filter((target) => (target === summary && !process.env.BENCH_SKIP_SUMMARY) || target.label.includes(process.env.BENCH_ONLY ?? ''));
for (const target of chosen) {
  const bytes = await check(target);
  const measured = await load(target);
  rates.set(target, measured.rps);
  console.log(`${target.label.padEnd(50)} ${measured.rps.toFixed(0).padStart(6)} req/s  p99 ${measured.p99} ms  ${bytes} B  errors ${measured.errors}`);
}
const summaryRate = rates.get(summary)!;
for (const target of chosen.slice(1)) {
  console.log(`ratio ${target.label}: ${((rates.get(target)! / summaryRate) * 100).toFixed(0)} % of the summary's rate (target ≥ 40 %)`);
}

server.close();
while (underWay > 0) await new Promise((resolve) => setTimeout(resolve, 50));
await app.close();
rmSync(dataDir, { recursive: true, force: true });
