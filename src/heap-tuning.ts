import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * How far V8's old generation may grow past what survived the last full collection before it
 * collects again: 50 % (×1.5). V8 picks the factor itself, up to ×4 when collections are quick,
 * which on a server whose live heap is ~40 MB lets garbage pile up to ~150 MB before a full
 * collection: an import of 100 000 plays peaked at 275–330 MB of RSS that way, 217–246 MB with
 * this (`npm run bench:import`), at no measurable cost in time (a full collection of ~40 MB takes
 * a few ms, mostly incremental). The factor is read at every collection, so setting it at start
 * takes effect for the whole run.
 */
export const heapGrowingPercent = 50;
const flag = '--heap-growing-percent';

/** The V8 flags to set at start: ours, unless the node command line already chose a value. */
export function heapFlags(execArgv: readonly string[]): string[] {
  return execArgv.some((arg) => arg === flag || arg.startsWith(`${flag}=`) || arg.startsWith('--heap_growing_percent')) ? [] : [`${flag}=${heapGrowingPercent}`];
}

/** Applies heapFlags to this process. */
export function tuneHeap(execArgv: readonly string[] = process.execArgv): void {
  for (const setting of heapFlags(execArgv)) v8.setFlagsFromString(setting);
}

/** How long a server goes without a request before its heap is compacted (once until the next request). */
export const idleCompactionMs = 10_000;

/** A young generation at most this big is left alone: V8 starts it at 1 MB, and it grows only under load. */
const compactAboveBytes = 4 * 1024 * 1024;

export interface IdleCompaction {
  /** A request arrived (node-server's `request` event): one increment. */
  active(): void;
  /** Compactions so far. */
  compactions(): number;
  stop(): void;
}

/**
 * Compacts the heap once a server has gone `idleMs` without a request, when its young generation
 * has grown past a few MB: V8 grows that space to 32 MB (two 16 MB halves) under any burst of
 * allocation, the start-up's included, and never gives it back while the process stays quiet, so
 * an idle server held ~27 MB of empty young generation and the garbage of its last busy minute
 * (issue 27). A "last resort" collection, V8's answer to memory pressure, shrinks it to 1 MB and
 * releases what the old generation freed. It is a full collection (tens of ms for ~60 MB of live
 * heap) that runs only after a quiet `idleMs`, at most once per busy period. V8 offers it to
 * JavaScript only through `gc`, which this enables for one new context: the main context and the
 * app's code never see a `gc`. Undefined when the runtime refuses that (nothing compacts then).
 */
export function startIdleCompaction(options: { idleMs?: number; checkMs?: number; onCompacted?: (effect: { ms: number; rssBefore: number; rssAfter: number }) => void } = {}): IdleCompaction | undefined {
  const idleMs = options.idleMs ?? idleCompactionMs;
  const collect = lastResortCollection();
  if (collect === undefined) return undefined;
  let requests = 0;
  let seen = 0;
  let quietSince = performance.now();
  let compacted = false;
  let compactions = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    if (requests !== seen) {
      seen = requests;
      quietSince = now;
      compacted = false;
      return;
    }
    if (compacted || now - quietSince < idleMs) return;
    compacted = true;
    if (youngGenerationBytes() <= compactAboveBytes) return;
    const rssBefore = process.memoryUsage.rss();
    collect();
    compactions += 1;
    options.onCompacted?.({ ms: performance.now() - now, rssBefore, rssAfter: process.memoryUsage.rss() });
  }, options.checkMs ?? idleMs / 2);
  timer.unref();
  return {
    active: () => void (requests += 1),
    compactions: () => compactions,
    stop: () => clearInterval(timer),
  };
}

/** The young generation's committed size (new space). */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's memory-pressure collection, through `gc` of a context of its own. */
function lastResortCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    if (typeof gc !== 'function') return undefined;
    return () => (gc as GcFunction)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  }
}
