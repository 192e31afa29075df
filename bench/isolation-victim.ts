import { writeFileSync } from 'node:fs';
import { graphql, succeeded, type Answer } from './isolation-client.ts';
import { memoryOf } from './server-process.ts';

/**
 * The victim of bench:isolation: a person with issue 14's library who keeps using the server while
 * another account's burst runs. Each of its probes is a loop of its own (one request at a time,
 * one every `intervalMs` at most), so a stalled write does not hold back the reads' samples:
 * - cookie read: `library(first: 20)` on /graphql with the session cookie of a real sign-in;
 * - token read: the same with the API token;
 * - write: `setWatched` of one of its episodes (flipped each time) with the session cookie, as the
 *   web app's watched toggle;
 * - search (where asked): `searchCatalog`, which asks the stored catalog and TMDB.
 */

export const probeNames = ['cookie read', 'token read', 'write', 'search'] as const;
export type ProbeName = (typeof probeNames)[number];
type Probe = () => Promise<Answer>;

export interface Victim {
  origin: string;
  token: string;
  cookie: string;
  /** Aired episodes it has not watched: what the write flips. */
  episodes: number[];
}

/** One probe's samples over a phase: times of the answers (successful or not), and what failed. */
export interface ProbeFigures {
  times: number[];
  failures: string[];
}

const readQuery = '{ library(first: 20) { edges { node { kind followed } } } }';

/** The victim's probes; `search` only when asked (its TMDB requests would count as a burst's). */
export function victimProbes(victim: Victim, withSearch: boolean, searchQuery: string): Partial<Record<ProbeName, Probe>> {
  const cookie = { cookie: victim.cookie };
  let turn = 0;
  const probes: Partial<Record<ProbeName, Probe>> = {
    'cookie read': () => graphql(victim.origin, cookie, readQuery),
    'token read': () => graphql(victim.origin, { token: victim.token }, readQuery),
    write: () => {
      // Each episode is marked, then unmarked the next time round: every write is a real change.
      const episode = victim.episodes[turn % victim.episodes.length]!;
      const watched = Math.floor(turn / victim.episodes.length) % 2 === 0;
      turn += 1;
      return graphql(victim.origin, cookie, 'mutation($input: SetWatchedInput!) { setWatched(input: $input) { __typename } }', { input: { kind: 'EPISODE', id: episode, watched } });
    },
  };
  if (withSearch) probes.search = () => graphql(victim.origin, cookie, 'query($q: String!) { searchCatalog(query: $q, first: 10) { __typename } }', { q: searchQuery });
  return probes;
}

/**
 * Runs every probe in a loop of its own until `until` settles (each sends at least once, and the
 * request in flight then is waited for: a stalled answer is the figure that matters).
 */
export async function watchVictim(probes: Partial<Record<ProbeName, Probe>>, until: Promise<unknown>, intervalMs: number): Promise<Map<ProbeName, ProbeFigures>> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const figures = new Map<ProbeName, ProbeFigures>();
  const loop = async (name: ProbeName, probe: Probe) => {
    const mine: ProbeFigures = { times: [], failures: [] };
    figures.set(name, mine);
    do {
      const answer = await probe();
      mine.times.push(answer.ms);
      if (!succeeded(answer)) mine.failures.push(`${answer.status} ${answer.text.slice(0, 120)}`);
      const rest = intervalMs - answer.ms;
      if (!done && rest > 0) await Promise.race([new Promise((resolve) => setTimeout(resolve, rest)), until.catch(() => undefined)]);
    } while (!done);
  };
  await Promise.all(Object.entries(probes).map(([name, probe]) => loop(name as ProbeName, probe)));
  return figures;
}

/** p50, p99 and max of `times` (nearest rank), in ms. */
export function percentiles(times: number[]): { p50: number; p99: number; max: number; n: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  return { p50: at(50), p99: at(99), max: sorted.at(-1) ?? NaN, n: sorted.length };
}

/** What one phase measured: the victim's probes, the server's memory, and what the burst got. */
export interface Measured {
  scenario: string;
  victim: Map<ProbeName, ProbeFigures>;
  /** The server's resident peak over the phase (VmHWM after a reset), and resident set after it, MB. */
  peakMb: number;
  afterMb: number;
  seconds: number;
  /** What the burst got back and cost, in a line. */
  burst: string;
}

/** The server's memory, or NaN once it is gone (a crashed server is reported, not thrown). */
function memoryNow(pid: number): { rss: number; peak: number } {
  try {
    return memoryOf(pid);
  } catch {
    return { rss: NaN, peak: NaN };
  }
}

/** How a phase runs: on which server process, with which probes, and for how long at most. */
export interface PhaseOptions {
  pid: number;
  probes: Partial<Record<ProbeName, Probe>>;
  intervalMs: number;
  /** A burst not done by then is given up: its figures are read, then `onTimeout` (which ends the server). */
  timeoutMs: number;
  onTimeout(): void;
}

/**
 * Runs `burst` while the victim's probes run, with the server's peak RSS reset first (clear_refs
 * 5), and prints the phase's figures as it ends. A burst still running after `timeoutMs` is
 * reported as such, with the memory at that moment, and the server is ended (`onTimeout`): what it
 * still had in hand would otherwise weigh on the next phase.
 */
export async function measurePhase(scenario: string, options: PhaseOptions, burst: () => Promise<string>): Promise<Measured> {
  try {
    writeFileSync(`/proc/${options.pid}/clear_refs`, '5');
  } catch {
    // The server is gone: its memory is NaN below, the burst reports the refused connections.
  }
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = `no answer within ${options.timeoutMs / 1000} s: the server was ended (SIGKILL) and started again`;
  const work = Promise.race([
    burst().catch((error: Error) => `the burst failed: ${error.message}`),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve(timedOut), options.timeoutMs))),
  ]);
  const watching = watchVictim(options.probes, work, options.intervalMs);
  const outcome = await work;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const memory = memoryNow(options.pid);
  // Ended, the server fails the victim's requests in flight, and its loops end.
  if (outcome === timedOut) options.onTimeout();
  const victim = await watching;
  const measured = { scenario, victim, peakMb: memory.peak, afterMb: memory.rss, seconds, burst: outcome };
  console.log(`  ${scenario}: ${seconds.toFixed(1)} s; server peak ${memory.peak.toFixed(0)} MB, ${memory.rss.toFixed(0)} MB after`);
  console.log(`    burst: ${outcome}`);
  for (const [name, figures] of victim) {
    const { p50, p99, max, n } = percentiles(figures.times);
    const failed = figures.failures.length > 0 ? `; ${figures.failures.length} failed (first: ${figures.failures[0]})` : '';
    console.log(`    victim ${name}: p50 ${p50.toFixed(1)} / p99 ${p99.toFixed(1)} / max ${max.toFixed(1)} ms (${n} requests${failed})`);
  }
  return measured;
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
