import { rmSync } from 'node:fs';
import { db } from '../src/db/client.ts';
import { startBenchApp } from './bench-app.ts';

/**
 * `npm run bench:statistics`: the statistics page's query (totals by year, a year's months,
 * weekdays and shows) for an account with a huge history — 2 000 shows × 50 episodes, every one
 * watched, spread over ten years, and 2 000 movies: 102 000 watched items — in America/New_York
 * (so SQLite's offset CASE has its twenty-odd daylight-saving changes), in-process (`app.fetch`,
 * the body read to the end). SQLite, or PostgreSQL with BENCH_DATABASE_URL (an empty database;
 * it is filled, not cleaned). Figures are milliseconds of wall time on whatever else the machine
 * runs, and the process's CPU time.
 */
const samples = Number(process.env.BENCH_SAMPLES ?? 20);
const shows = Number(process.env.BENCH_SHOWS ?? 2_000);
const episodesPerShow = 50;
const movies = 2_000;

const { dataDir, config, app, account, token } = await startBenchApp('airdate-bench-statistics-');
await db().account.update({ where: { id: account.id }, data: { timezone: 'America/New_York' } });
const client = db();
const seeding = performance.now();
const ten = 10 * 365 * 86_400_000;
const start = Date.parse('2016-01-01T00:00:00Z');
for (let first = 0; first < shows; first += 500) {
  const batch = Array.from({ length: Math.min(500, shows - first) }, (_, index) => ({ title: `Stats Show ${first + index}` }));
  await client.show.createMany({ data: batch });
}
const showIds = (await client.show.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((show) => show.id);
for (let first = 0; first < showIds.length; first += 100) {
  const data = showIds.slice(first, first + 100).flatMap((showId) =>
    Array.from({ length: episodesPerShow }, (_, index) => ({ showId, season: 1, number: index + 1, airDate: null, runtime: index % 5 === 4 ? null : 20 + (index % 40) })),
  );
  await client.episode.createMany({ data });
}
await client.movie.createMany({ data: Array.from({ length: movies }, (_, index) => ({ title: `Stats Movie ${index}`, runtime: index % 3 === 0 ? null : 80 + (index % 60) })) });
const episodeIds = (await client.episode.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((episode) => episode.id);
const movieIds = (await client.movie.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((movie) => movie.id);
// Spread evenly over ten years, in a scrambled order (no two neighbours an hour apart).
const at = (index: number, count: number) => new Date(start + Math.floor((((index * 7_919) % count) / count) * ten));
for (let first = 0; first < episodeIds.length; first += 5_000) {
  const data = episodeIds.slice(first, first + 5_000).map((episodeId, offset) => ({ accountId: account.id, kind: 'episode', episodeId, watched: true, changedAt: at(first + offset, episodeIds.length) }));
  await client.watchState.createMany({ data });
}
await client.watchState.createMany({ data: movieIds.map((movieId, index) => ({ accountId: account.id, kind: 'movie', movieId, watched: true, changedAt: at(index, movieIds.length) })) });
console.log(`${config.database.kind}: seeded ${episodeIds.length + movieIds.length} watched items in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

const query = `query Statistics($year: Int) { statistics(year: $year) {
  timeZone year years { key episodes movies games minutes withoutRuntime } total { episodes movies minutes withoutRuntime }
  review { episodes movies minutes withoutRuntime } months { key episodes movies minutes } weekdays { key episodes movies minutes }
  showCount shows(first: 10) { showId title episodes minutes }
} }`;

async function run(year: number | null) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await app.fetch(new Request('http://bench.local/graphql', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { year } }) }));
  const body = (await response.json()) as { data?: { statistics: { total: { episodes: number; movies: number } } }; errors?: unknown };
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (!body.data) throw new Error(`statistics failed: ${JSON.stringify(body.errors)}`);
  return { ms, cpuMs: (used.user + used.system) / 1000, total: body.data.statistics.total };
}

const percentiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return `p50 ${pick(50).toFixed(1)} ms, p99 ${pick(99).toFixed(1)} ms over ${values.length}`;
};

const check = await run(null);
if (check.total.episodes !== episodeIds.length || check.total.movies !== movieIds.length) throw new Error(`wrong totals: ${JSON.stringify(check.total)}`);
for (const year of [null, 2020]) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const { ms, cpuMs } = await run(year);
    wall.push(ms);
    cpu.push(cpuMs);
  }
  console.log(`${config.database.kind}: statistics(year: ${year ?? 'latest'}) of ${episodeIds.length + movieIds.length} watched items: ${percentiles(wall)}; CPU ${percentiles(cpu)}`);
}

await app.close();
rmSync(dataDir, { recursive: true, force: true });
