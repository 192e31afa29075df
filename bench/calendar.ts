import { rmSync } from 'node:fs';
import { db } from '../src/db/client.ts';
import { icsDocument, renderIcs, type IcsEvent } from '../src/calendar/calendar-ics.ts';
import { calendarRenderCount } from '../src/calendar/calendar-route.ts';
import { loadCalendar } from '../src/calendar/calendar-service.ts';
import { setFollow, setWatched } from '../src/library/library.ts';
import { startBenchApp } from './bench-app.ts';
import { seedIssueLibrary } from './seed-library.ts';

/**
 * `npm run bench:calendar`: calendar.ics of a 500-show account (~6 000 events) after a change,
 * in-process (`app.fetch`, the body read to the end): the render alone, the calendar right after
 * a watched toggle (which must not touch it), right after a follow change (which must), and a
 * 304 revalidation. SQLite, or PostgreSQL with BENCH_DATABASE_URL (an empty database; it is
 * filled, not cleaned). Figures are milliseconds of wall time on whatever else the machine runs.
 */
const samples = Number(process.env.BENCH_SAMPLES ?? 40);

const { dataDir, config, app, account, token } = await startBenchApp('airdate-bench-calendar-');
await seedIssueLibrary(account.id, config.database.kind);

/** p50 and p99 (nearest rank) of `values`, formatted. */
function percentiles(values: number[]): { p50: number; p99: number; text: string } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return { p50: at(50), p99: at(99), text: `p50 ${at(50).toFixed(2)} ms, p99 ${at(99).toFixed(2)} ms over ${values.length}` };
}

async function fetchCalendar(headers: Record<string, string> = {}): Promise<{ status: number; etag: string; bytes: number; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const begun = performance.now();
  const response = await app.fetch(new Request(`http://bench.local/api/calendar.ics?token=${token}`, { headers }));
  const body = await response.arrayBuffer();
  const ms = performance.now() - begun;
  // The process's CPU time (GC threads included): the work itself, less sensitive than wall time to a busy machine.
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  if (response.status !== 200 && response.status !== 304) throw new Error(`calendar.ics failed: ${response.status} ${Buffer.from(body).toString()}`);
  return { status: response.status, etag: response.headers.get('etag') ?? '', bytes: body.byteLength, ms, cpuMs };
}

// The events as the calendar operation hands them to the renderer.
const calendar = await loadCalendar({ account: { id: account.id, name: account.name, timezone: 'UTC' } });
const events: IcsEvent[] = calendar.events.map((event) => ({
  uid: event.uid,
  kind: event.kind,
  date: event.date,
  updatedAt: event.updatedAt.toISOString(),
  summary: event.summary,
  description: event.description,
}));
const renderTimes: number[] = [];
const renderCpu: number[] = [];
let renderedBytes = 0;
for (let sample = 0; sample < samples; sample += 1) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  renderedBytes = (await renderIcs({ name: calendar.name, events })).byteLength;
  renderTimes.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  renderCpu.push((used.user + used.system) / 1000);
}
const render = percentiles(renderTimes);
console.log(`render ${events.length} events (${(renderedBytes / 1024 / 1024).toFixed(2)} MB), from scratch: ${render.text}; CPU time ${percentiles(renderCpu).text}`);
// What ical-generator 10's own toString() costs for the same document (the path before this work), once.
const started = performance.now();
icsDocument({ name: calendar.name, events }).toString();
console.log(`  for reference, ical-generator's own toString() of the same document: ${(performance.now() - started).toFixed(0)} ms (one sample)`);

const first = await fetchCalendar();
console.log(`first calendar.ics (load + render): ${first.ms.toFixed(1)} ms, ${(first.bytes / 1024 / 1024).toFixed(2)} MB`);

const episodes = await db().episode.findMany({ where: { show: { libraryRows: { some: { accountId: account.id } } } }, select: { id: true }, take: samples, orderBy: { id: 'asc' } });
const toggleTimes: number[] = [];
const rendersBeforeToggles = calendarRenderCount();
for (const [index, episode] of episodes.entries()) {
  await setWatched({ accountId: account.id, kind: 'episode', id: episode.id, watched: index % 2 === 0 });
  toggleTimes.push((await fetchCalendar()).ms);
}
const toggled = percentiles(toggleTimes);
const toggleRenders = calendarRenderCount() - rendersBeforeToggles;
console.log(`calendar.ics right after a watched toggle: ${toggled.text}; renders during ${toggleTimes.length} toggles: ${toggleRenders} (answered from cache: ${toggleRenders === 0 ? 'yes' : 'NO'})`);

const revalidateTimes: number[] = [];
let etag = (await fetchCalendar()).etag;
const rendersBeforeRevalidations = calendarRenderCount();
for (const [index, episode] of episodes.entries()) {
  // A calendar app polling after its user watched something.
  await setWatched({ accountId: account.id, kind: 'episode', id: episode.id, watched: index % 2 !== 0 });
  const answer = await fetchCalendar({ 'if-none-match': etag });
  if (answer.status !== 304) throw new Error(`expected a 304 after a watched toggle, got ${answer.status}`);
  revalidateTimes.push(answer.ms);
}
const revalidationRenders = calendarRenderCount() - rendersBeforeRevalidations;
console.log(`304 revalidation (If-None-Match) right after a watched toggle: ${percentiles(revalidateTimes).text}; renders: ${revalidationRenders}`);

const shows = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, select: { showId: true }, take: Math.ceil(samples / 2), orderBy: { showId: 'asc' } });
const followTimes: number[] = [];
const followCpu: number[] = [];
for (let index = 0; index < shows.length * 2; index += 1) {
  // Unfollow a show, then follow it again: every sample changes what the calendar lists.
  await setFollow({ accountId: account.id, kind: 'show', id: shows[Math.floor(index / 2)]!.showId!, followed: index % 2 === 1 });
  const answer = await fetchCalendar({ 'if-none-match': etag });
  if (answer.status !== 200 || answer.etag === etag) throw new Error('expected a new calendar after a follow change');
  etag = answer.etag;
  followTimes.push(answer.ms);
  followCpu.push(answer.cpuMs);
}
const followed = percentiles(followTimes);
console.log(`calendar.ics right after a follow change (load + render): ${followed.text}; CPU time ${percentiles(followCpu).text}`);

console.log(
  `targets: render of ~6 000 events ≤ 50 ms (p50 ${render.p50.toFixed(1)} ms: ${render.p50 <= 50 ? 'met' : 'NOT met'}); ` +
    `after a watched toggle answered from cache (${toggleRenders === 0 ? 'met' : 'NOT met'}); ` +
    `after a follow change p50 ≤ 100 ms (${followed.p50.toFixed(1)} ms: ${followed.p50 <= 100 ? 'met' : 'NOT met'}); a 304 never renders (${revalidationRenders === 0 ? 'met' : 'NOT met'})`,
);

await app.close();
rmSync(dataDir, { recursive: true, force: true });
