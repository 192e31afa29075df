import { describe, expect, it } from 'vitest';
import { heapFlags, heapGrowingPercent, startIdleCompaction, youngGenerationBytes } from '../../src/heap-tuning.ts';

describe('heap tuning at start', () => {
  it('sets the heap growing factor when the node command line does not', () => {
    expect(heapGrowingPercent).toBe(50);
    expect(heapFlags([])).toEqual(['--heap-growing-percent=50']);
    expect(heapFlags(['--enable-source-maps', '--import', 'tsx'])).toEqual(['--heap-growing-percent=50']);
  });

  it('leaves a value given to node alone, in either spelling', () => {
    expect(heapFlags(['--heap-growing-percent=200'])).toEqual([]);
    expect(heapFlags(['--heap_growing_percent=10'])).toEqual([]);
    expect(heapFlags(['--heap-growing-percent', '25'])).toEqual([]);
  });
});

describe('the heap compacted when the server is idle', () => {
  /** Allocates short-lived objects until V8 has grown the young generation past a few MB. */
  const churn = () => {
    let kept: unknown[] = [];
    for (let index = 0; index < 3_000_000 && youngGenerationBytes() <= 8 * 1024 * 1024; index += 1) {
      kept.push({ index, text: `x${index}` });
      if (kept.length > 200_000) kept = [];
    }
    expect(youngGenerationBytes()).toBeGreaterThan(8 * 1024 * 1024);
  };

  it('compacts once after a quiet spell, not while requests come, and gives the young generation back', async () => {
    const effects: { rssBefore: number; rssAfter: number }[] = [];
    const compaction = startIdleCompaction({ idleMs: 150, checkMs: 20, onCompacted: (effect) => void effects.push(effect) })!;
    try {
      expect(compaction).toBeDefined();
      churn();
      // Busy: a request every 20 ms for 400 ms, well past the quiet spell.
      for (let tick = 0; tick < 20; tick += 1) {
        compaction.active();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(compaction.compactions()).toBe(0);
      await expect.poll(() => compaction.compactions(), { timeout: 3_000 }).toBe(1);
      expect(youngGenerationBytes()).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect(effects).toHaveLength(1);
      // Still quiet: not again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(compaction.compactions()).toBe(1);
      // A busy period and a quiet spell after it: once more, when the young generation grew again.
      compaction.active();
      churn();
      await expect.poll(() => compaction.compactions(), { timeout: 3_000 }).toBe(2);
      // The main context has no `gc` of its own.
      expect('gc' in globalThis).toBe(false);
    } finally {
      compaction.stop();
    }
  });
});
