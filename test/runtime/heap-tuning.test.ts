import { describe, expect, it } from 'vitest';
import { heapFlags, heapGrowingPercent } from '../../src/heap-tuning.ts';

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
