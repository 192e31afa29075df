import type { IsolationSeed } from './isolation-seed.ts';
import { graphql, outcomeOf, send, signIn, signOut, tally, type Answer } from './isolation-client.ts';
import { sleep, type Measured } from './isolation-victim.ts';

/**
 * bench:isolation's bursts of writes (issue 31, items 1–3): bulk marks, a long show's marks with
 * undo, and live-update streams that outlive their sign-out. Each answers whatever the build
 * answers and reports it; none fails the run.
 */

/** What a scenario gets from bench/isolation.ts. */
export interface ScenarioContext {
  /** The server's origin (http://127.0.0.1:port). */
  origin: string;
  seed: IsolationSeed;
  /** The victim's session cookie (a real sign-in). */
  victimCookie: string;
  /** Runs `burst` while the victim's probes run (and its searches with `search`); the phase's figures. */
  phase(scenario: string, burst: () => Promise<string>, options?: { search?: boolean }): Promise<Measured>;
}

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** 5000 as "5,000". */
const counted = (value: number) => value.toLocaleString('en');

/** Runs `count` calls, `concurrency` at a time; their outcomes tallied, with the slowest's time. */
async function calls(count: number, concurrency: number, call: (index: number) => Promise<string>): Promise<string> {
  const outcomes: string[] = [];
  let slowest = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const at = performance.now();
      outcomes.push(await call(index));
      slowest = Math.max(slowest, performance.now() - at);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return `${tally(outcomes)} in ${((performance.now() - started) / 1000).toFixed(1)} s (slowest ${(slowest / 1000).toFixed(2)} s)`;
}

const markWatchedQuery =
  'mutation($input: MarkWatchedInput!) { markWatched(input: $input) { __typename ... on MutationMarkWatchedSuccess { data { changed historyIds } } } }';

function markWatched(context: ScenarioContext, ids: number[], watched: boolean): Promise<Answer> {
  return graphql(context.origin, { token: context.seed.attacker.token }, markWatchedQuery, { input: { kind: 'EPISODE', ids, watched } });
}

/**
 * 1. BENCH_BULK_CALLS (20) × markWatched of BENCH_BULK_IDS (990) episodes, BENCH_BULK_CONCURRENCY
 * (4) at once, each a real change (five slices of ids, marked then unmarked in turn); then
 * BENCH_BIG_CALLS (4) × markWatched of BENCH_BIG_IDS (5,000), all at once, each its own ids.
 */
export async function bulkMarks(context: ScenarioContext): Promise<Measured[]> {
  const ids = context.seed.attacker.bulkEpisodes;
  const [count, size, concurrency] = [knob('BENCH_BULK_CALLS', 20), knob('BENCH_BULK_IDS', 990), knob('BENCH_BULK_CONCURRENCY', 4)];
  const [bigCount, bigSize] = [knob('BENCH_BIG_CALLS', 4), knob('BENCH_BIG_IDS', 5_000)];
  if (5 * size > ids.length || bigCount * bigSize > ids.length) throw new Error(`the attacker has ${ids.length} episodes: too few for these bulk sizes`);
  const small = await context.phase(`bulk: ${count} × markWatched(${counted(size)}), ${concurrency} at once`, () =>
    calls(count, concurrency, async (index) => {
      const slice = ids.slice((index % 5) * size, (index % 5 + 1) * size);
      return outcomeOf(await markWatched(context, slice, Math.floor(index / 5) % 2 === 0), 'markWatched');
    }),
  );
  const big = await context.phase(`bulk: ${bigCount} × markWatched(${counted(bigSize)}), all at once`, () =>
    calls(bigCount, bigCount, async (index) => outcomeOf(await markWatched(context, ids.slice(index * bigSize, (index + 1) * bigSize), true), 'markWatched')),
  );
  return [small, big];
}

/**
 * 2. BENCH_ROUNDS (2) rounds of: markEpisodes over the attacker's 2,700-episode show (unmarked
 * first, so that the mark is a real change), then 1,200 marks made in two markWatched of 600
 * (which every build takes) and undone by one undoMarks of their 1,200 history entries.
 */
export async function episodeMarks(context: ScenarioContext): Promise<Measured[]> {
  const { attacker } = context.seed;
  const rounds = knob('BENCH_ROUNDS', 2);
  const token = { token: attacker.token };
  const markShow = (watched: boolean) =>
    graphql(context.origin, token, 'mutation($input: MarkEpisodesInput!) { markEpisodes(input: $input) { __typename ... on MutationMarkEpisodesSuccess { data { changed } } } }', {
      input: { showId: attacker.longShowId, watched },
    });
  const undoIds = attacker.bulkEpisodes.slice(0, 1_200);
  const halves = [undoIds.slice(0, 600), undoIds.slice(600)];
  const phase = await context.phase(`episodes: markEpisodes(${counted(attacker.longShowEpisodes)}) and undoMarks(1,200), ${rounds} round${rounds === 1 ? '' : 's'}`, async () => {
    const marked: string[] = [];
    const undone: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await markShow(false);
      marked.push(outcomeOf(await markShow(true), 'markEpisodes'));
      for (const half of halves) await markWatched(context, half, false);
      const history: number[] = [];
      for (const half of halves) history.push(...((await markWatched(context, half, true)).json?.data?.markWatched?.data?.historyIds ?? []));
      const answer = await graphql(context.origin, token, 'mutation($ids: [Int!]!) { undoMarks(ids: $ids) { __typename } }', { ids: history });
      undone.push(`${outcomeOf(answer, 'undoMarks')} (of ${history.length} entries)`);
    }
    return `markEpisodes: ${tally(marked)}; undoMarks: ${tally(undone)}`;
  });
  return [phase];
}

/** An open libraryChanged stream (server-sent events) and what it has received. */
interface Stream {
  status: number;
  /** `next` events received so far. */
  events: number;
  /** The server ended it. */
  ended: boolean;
  close(): void;
}

const subscription = `/graphql?query=${encodeURIComponent('subscription { libraryChanged { feedVersion } }')}`;

/** Opens a stream as a tab's EventSource does (same-origin GET with the session cookie). */
async function openStream(origin: string, cookie: string): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(`${origin}${subscription}`, {
    headers: { cookie, accept: 'text/event-stream', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' },
    signal: abort.signal,
  }).catch(() => undefined);
  const stream: Stream = { status: response?.status ?? 0, events: 0, ended: response?.status !== 200, close: () => abort.abort() };
  if (!response || response.status !== 200) {
    await response?.body?.cancel();
    return stream;
  }
  void (async () => {
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    let buffer = '';
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop()!;
        stream.events += blocks.filter((block) => /^event: next$/m.test(block)).length;
      }
    } catch {
      // Closed by us.
    }
    stream.ended = true;
  })();
  return stream;
}

/**
 * 3. The owner signs in, opens BENCH_STREAMS (10) streams (the default cap per account), sees a
 * change reach them, and signs out; then its data changes again (through its API token): how many
 * streams are still open and received it, and whether the owner's new tab, signed in again, gets
 * its stream (200) or a 429.
 */
export async function streamsAfterSignOut(context: ScenarioContext): Promise<Measured[]> {
  const { owner, password } = context.seed;
  const count = knob('BENCH_STREAMS', 10);
  let watched = false;
  const change = async () => {
    watched = !watched;
    await send(`${context.origin}/api/machine/watched`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'episode', id: owner.episode, watched }),
    });
    // The streams' process reads the accounts' versions once a second.
    await sleep(3_000);
  };
  const phase = await context.phase(`streams: ${count} opened with a session, then sign-out`, async () => {
    const cookie = await signIn(context.origin, owner.name, password);
    const streams = await Promise.all(Array.from({ length: count }, () => openStream(context.origin, cookie)));
    await sleep(1_500);
    await change();
    const heard = streams.filter((stream) => stream.events > 0).length;
    const signedOut = outcomeOf(await signOut(context.origin, cookie), 'signOut');
    const before = streams.map((stream) => stream.events);
    await sleep(2_000);
    await change();
    const open = streams.filter((stream) => !stream.ended).length;
    const received = streams.filter((stream, index) => stream.events > before[index]!).length;
    const tab = await openStream(context.origin, await signIn(context.origin, owner.name, password));
    for (const stream of [...streams, tab]) stream.close();
    return (
      `opened: ${tally(streams.map((stream) => String(stream.status)))}; ${heard} heard a change; sign-out ${signedOut}; ` +
      `after it ${open} of ${count} still open and ${received} received the next change; the owner's new tab: ${tab.status}`
    );
  });
  return [phase];
}
