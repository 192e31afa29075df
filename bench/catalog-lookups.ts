import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createAccount } from '../src/accounts/accounts.ts';
import { storeCatalogRecords } from '../src/catalog/catalog-store.ts';
import { connect } from '../src/media-servers/connections.ts';
import { mediaServerPath } from '../src/media-servers/media-servers-route.ts';
import { seasonedShow, tmdbRoute, type TmdbShow } from '../test/catalog/support/tmdb-fixture.ts';
import { serveOverHttp, startBenchApp } from './bench-app.ts';

/**
 * `npm run bench:catalog-lookups`: what media-server deliveries cost the catalog key every account
 * shares, and what they cost another account's search (issue 31, item 6). A fake TMDB (the tests'
 * fixture, test/catalog/support/tmdb-fixture.ts) on a loopback port counts requests and answers
 * each after BENCH_CATALOG_MS (default 20 ms, a distant API's time); the server runs in this
 * process with TMDB pointed at it, at TMDB's own rate (35 requests a second). Every show has 20
 * seasons of 10 episodes.
 *
 * 1. Catalog requests per delivery, one account's generic-body deliveries, each sent twice (a
 *    second matched one is a duplicate): stored shows (19 of their 20 seasons stored) by their
 *    show ids (as the community Jellyfin plugin and Kodi send) or by the episode's own TheTVDB id
 *    (as the official Jellyfin plugin sends), for the season the store lacks, then for a season
 *    TMDB lacks too (a server numbering its own way); an episode id TMDB does not know; a show the
 *    store lacks. Work a delivery queues for the background is counted with it (1.5 s allowed).
 * 2. Another account's search (GraphQL searchCatalog) alone, then repeated every 250 ms while one
 *    account's 30 deliveries of 30 shows the store lacks run at once: its latency, p50 and max.
 *
 * BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty database; it is filled, not
 * cleaned). The load average is printed first: figures from a loaded machine are noisy.
 */
const catalogMs = Number(process.env.BENCH_CATALOG_MS ?? 20);
const seasons = 20;

const episodeTvdb = (showTvdb: number, season: number, number: number) => showTvdb * 10_000 + season * 100 + number;
const fixtureShow = (id: number, name: string): TmdbShow =>
  seasonedShow({ id, name, seasons, perSeason: 10, tvdbId: id + 80_000, episodeTvdb: (season, number) => episodeTvdb(id + 80_000, season, number) });
const stored = fixtureShow(4000, 'Stored Show');
const storedToo = fixtureShow(4002, 'Stored Show Too');
const unknown = fixtureShow(4001, 'Unknown Show');
const burstShows = Array.from({ length: 30 }, (_, index) => fixtureShow(4100 + index, `Burst Show ${index + 1}`));
const quiet = fixtureShow(4200, 'Quiet Search');
const route = tmdbRoute({ shows: [stored, storedToo, unknown, ...burstShows, quiet], movies: [] }, 'bench-key');

let requests = 0;
const tmdb = createServer((request, response) => {
  requests += 1;
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const answer = route({ method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, body: '' });
  setTimeout(() => {
    if (answer === 'hang') return;
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
    response.end(answer.text ?? JSON.stringify(answer.json ?? null));
  }, catalogMs);
});
await new Promise<void>((resolve) => tmdb.listen(0, '127.0.0.1', resolve));

const { dataDir, config, app, token: searcherToken } = await startBenchApp('airdate-catalog-bench-', {
  AIRDATE_MEDIA_SERVER_PER_MINUTE: '0',
  TMDB_API_KEY: 'bench-key',
  AIRDATE_TMDB_URL: `http://127.0.0.1:${(tmdb.address() as AddressInfo).port}`,
});
await app.started;

// The stored shows: every season but the last, as a refresh before the season aired left them.
await storeCatalogRecords(
  [stored, storedToo].map((show) => ({
    kind: 'show' as const,
    ids: { tmdb: show.id, tvdb: show.tvdbId },
    title: show.name,
    poster: null,
    overview: null,
    episodes: Object.entries(show.seasons).flatMap(([season, episodes]) =>
      Number(season) === seasons ? [] : episodes.map((episode) => ({ season: Number(season), number: episode.episode_number, title: episode.name, airDate: episode.air_date, ids: { tvdb: episode.tvdbId! } })),
    ),
  })),
);
const server = await createAccount({ name: `server-${Date.now()}`, timezone: 'UTC' });
const connection = await connect({ accountId: server.id, source: 'generic' });

const served = await serveOverHttp(app);
const deliveryUrl = `${served.baseUrl}${mediaServerPath('generic')}?token=${connection.token}`;

async function deliver(body: Record<string, unknown>): Promise<{ result: string; reason?: string }> {
  const response = await fetch(deliveryUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'played', kind: 'episode', ...body }) });
  return (await response.json()) as { result: string; reason?: string };
}

const byShowIds = (show: TmdbShow, season: number) => ({ show: { title: show.name, ids: { tvdb: show.tvdbId, tmdb: show.id } }, season, episode: 1 });
const byOwnId = (show: TmdbShow, season: number) => ({ show: { title: show.name }, ids: { tvdb: episodeTvdb(show.tvdbId!, season, 2) }, season, episode: 2 });

console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}; ${config.database.kind}; the fake TMDB answers after ${catalogMs} ms; shows of ${seasons} seasons`);
console.log('catalog requests per delivery (first, then the same delivery again):');
for (const [label, body] of [
  ['stored show, a season it lacks, by show ids', byShowIds(stored, seasons)],
  ['stored show, a season it lacks, by the episode’s own id', byOwnId(storedToo, seasons)],
  ['stored show, a season TMDB lacks too, by show ids', byShowIds(stored, seasons + 1)],
  ['an episode id TMDB does not know', { show: { title: 'Nobody Knows' }, ids: { tvdb: 999_999_999 }, season: 1, episode: 1 }],
  ['a show the store lacks, by show ids', byShowIds(unknown, 3)],
] as const) {
  const counts: string[] = [];
  for (let time = 0; time < 2; time += 1) {
    const before = requests;
    const started = performance.now();
    const answer = await deliver(body);
    // Background work a delivery queued has a moment to be sent (it is counted with the delivery).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    counts.push(`${requests - before} (${answer.result}, ${(performance.now() - started - 1_500).toFixed(0)} ms)`);
  }
  console.log(`  ${label.padEnd(56)} ${counts.join(', then ')}`);
}

async function search(): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${served.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${searcherToken}` },
    body: JSON.stringify({ query: 'query { searchCatalog(query: "Quiet Search", kind: SHOW) { ... on Show { title } } }' }),
  });
  const body = (await response.json()) as { data?: { searchCatalog: { title: string }[] } };
  if (!body.data?.searchCatalog.some((item) => item.title === 'Quiet Search')) throw new Error(`the search failed: ${JSON.stringify(body)}`);
  return performance.now() - started;
}
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return `p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms (${sorted.length} searches)`;
};

const alone: number[] = [];
for (let index = 0; index < 5; index += 1) alone.push(await search());
console.log(`another account's search, alone: ${summary(alone)}`);

const before = requests;
const started = performance.now();
let done = false;
const burst = Promise.all(burstShows.map((show) => deliver(byShowIds(show, 1)))).then((answers) => {
  done = true;
  return answers;
});
const during: number[] = [];
while (!done) {
  during.push(await search());
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const answers = await burst;
const results = new Map<string, number>();
for (const answer of answers) results.set(answer.result, (results.get(answer.result) ?? 0) + 1);
console.log(
  `30 deliveries of 30 shows the store lacks: ${((performance.now() - started) / 1000).toFixed(1)} s, ${requests - before} catalog requests (the searches' included), answers ${JSON.stringify(Object.fromEntries(results))}`,
);
console.log(`another account's search, during them: ${summary(during)}`);

await served.close();
await app.close();
await new Promise((resolve) => tmdb.close(resolve));
rmSync(dataDir, { recursive: true, force: true });
