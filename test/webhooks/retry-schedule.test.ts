import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxDeliveryAttempts, maxRetryAfterMs, retryBaseDelaysMs, retryDelayMs, retryJitter } from '../../src/webhooks/retry-schedule.ts';

const hour = 3_600_000;

describe('retryDelayMs', () => {
  it('allows at least 6 attempts and stops after the last', () => {
    expect(maxDeliveryAttempts).toBeGreaterThanOrEqual(6);
    expect(retryDelayMs({ attempt: maxDeliveryAttempts, retryAfterMs: null })).toBeNull();
    expect(retryDelayMs({ attempt: maxDeliveryAttempts + 3, retryAfterMs: 60_000 })).toBeNull();
    expect(retryDelayMs({ attempt: maxDeliveryAttempts - 1, retryAfterMs: null })).not.toBeNull();
  });

  it('grows from about a minute, and the whole schedule spans about a day even at the jitter extremes', () => {
    for (const random of [() => 0, () => 0.999999]) {
      const delays = Array.from({ length: maxDeliveryAttempts - 1 }, (_, index) => retryDelayMs({ attempt: index + 1, retryAfterMs: null, random })!);
      for (let index = 1; index < delays.length; index++) expect(delays[index]).toBeGreaterThanOrEqual(delays[index - 1]!);
      expect(delays[0]).toBeLessThanOrEqual(2 * 60_000);
      const total = delays.reduce((sum, delay) => sum + delay, 0);
      expect(total).toBeGreaterThan(18 * hour);
      expect(total).toBeLessThan(36 * hour);
    }
  });

  it('stays within the jitter bounds of its base delay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: maxDeliveryAttempts - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, value) => {
        const delay = retryDelayMs({ attempt, retryAfterMs: null, random: () => value })!;
        const base = retryBaseDelaysMs[attempt - 1]!;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - retryJitter)));
        expect(delay).toBeLessThanOrEqual(Math.ceil(base * (1 + retryJitter)));
      }),
    );
  });

  it('jitters: different random draws give different delays', () => {
    expect(retryDelayMs({ attempt: 3, retryAfterMs: null, random: () => 0.1 })).not.toBe(retryDelayMs({ attempt: 3, retryAfterMs: null, random: () => 0.9 }));
  });

  it('never retries earlier than Retry-After asks, up to the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: maxDeliveryAttempts - 1 }), fc.integer({ min: 0, max: 3 * maxRetryAfterMs }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, retryAfterMs, value) => {
        const delay = retryDelayMs({ attempt, retryAfterMs, random: () => value })!;
        expect(delay).toBeGreaterThanOrEqual(Math.min(retryAfterMs, maxRetryAfterMs));
        expect(delay).toBeGreaterThanOrEqual(retryDelayMs({ attempt, retryAfterMs: null, random: () => value })!);
        expect(delay).toBeLessThanOrEqual(Math.max(maxRetryAfterMs, retryBaseDelaysMs[attempt - 1]! * (1 + retryJitter)));
      }),
    );
    expect(retryDelayMs({ attempt: 1, retryAfterMs: 2 * hour, random: () => 0.5 })).toBe(2 * hour);
    expect(retryDelayMs({ attempt: 1, retryAfterMs: 48 * hour, random: () => 0.5 })).toBe(24 * hour);
  });

  it('refuses attempts that are not positive whole numbers', () => {
    for (const attempt of [0, -1, 1.5, Number.NaN]) expect(() => retryDelayMs({ attempt, retryAfterMs: null })).toThrow(RangeError);
  });
});
