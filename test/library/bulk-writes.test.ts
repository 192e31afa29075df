import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/errors.ts';
import { createAccountTurns } from '../../src/library/bulk-writes.ts';

/**
 * The turns of one account's bulk writes (src/library/bulk-writes.ts): one running, a bounded
 * number waiting for a bounded time, the rest refused at once with Retry-After; accounts apart.
 */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, work: () => opened };
}

describe('createAccountTurns', () => {
  it('runs one write of an account at a time, lets the bounded number wait and refuses the rest at once', async () => {
    const turns = createAccountTurns({ running: 1, waiting: 2, waitMs: 10_000, retryAfterSeconds: 7 });
    const first = gate();
    const order: string[] = [];
    const running = turns.run(1, async () => {
      await first.work();
      order.push('first');
    });
    const waiting = [turns.run(1, async () => void order.push('second')), turns.run(1, async () => void order.push('third'))];
    const refused = await turns.run(1, async () => order.push('fourth')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(7);
    // Another account is not held up.
    await turns.run(2, async () => void order.push('other'));
    expect(order).toEqual(['other']);
    first.open();
    await Promise.all([running, ...waiting]);
    expect(order).toEqual(['other', 'first', 'second', 'third']);
    expect(turns.size()).toBe(0);
  });

  it('a waiter still waiting after waitMs is refused, and a failed write hands its turn on', async () => {
    const turns = createAccountTurns({ running: 1, waiting: 1, waitMs: 50, retryAfterSeconds: 3 });
    const first = gate();
    const running = turns.run(1, first.work);
    const started = Date.now();
    const late = await turns.run(1, async () => 'ran').catch((error: unknown) => error);
    expect(late).toBeInstanceOf(RateLimitedError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    first.open();
    await running;
    const failing = turns.run(1, async () => {
      throw new Error('the write failed');
    });
    const next = turns.run(1, async () => 'next');
    await expect(failing).rejects.toThrow('the write failed');
    await expect(next).resolves.toBe('next');
    expect(turns.size()).toBe(0);
  });
});
