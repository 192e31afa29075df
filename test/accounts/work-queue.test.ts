import { describe, expect, it } from 'vitest';
import { createWorkQueue } from '../../src/accounts/work-queue.ts';
import { RateLimitedError, ServiceBusyError } from '../../src/errors.ts';
import { errorStatus } from '../../src/http/error-status.ts';

/** A piece of work the test ends by hand, recording when it started. */
function pieces() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const piece = (label: string) => () =>
    new Promise<string>((resolve) => {
      started.push(label);
      finishers.set(label, () => resolve(label));
    });
  const finish = async (label: string) => {
    finishers.get(label)!();
    // Lets the queue hand the slot on before the test looks.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, piece, finish };
}

describe('the password hashing queue (work-queue.ts)', () => {
  it('gives a free slot to the owner with the fewest started, so a burst does not hold back another client', async () => {
    const queue = createWorkQueue({ concurrent: 2, perOwner: 4, waiting: 10, retryAfterSeconds: 1 });
    const { started, piece, finish } = pieces();
    const burst = ['a1', 'a2', 'a3', 'a4'].map((label) => queue.run('attacker', piece(label)));
    const other = ['b1', 'b2', 'b3', 'b4'].map((label) => queue.run('attacker-2', piece(label)));
    const person = queue.run('person', piece('p'));
    expect(started).toEqual(['a1', 'a2']);
    expect(queue.stats()).toMatchObject({ running: 2, waiting: 7 });
    await finish('a1');
    // attacker-2 and person have had none started; attacker-2 came first.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    await finish('a2');
    // The person's one check starts at the second slot freed, ahead of six pieces that came before it.
    expect(started).toEqual(['a1', 'a2', 'b1', 'p']);
    for (let next = 2; next < started.length; next++) await finish(started[next]!);
    // Then the two bursts take turns.
    expect(started).toEqual(['a1', 'a2', 'b1', 'p', 'b2', 'a3', 'b3', 'a4', 'b4']);
    expect(await Promise.all([...burst, ...other, person])).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'b4', 'p']);
    expect(queue.stats()).toEqual({ running: 0, waiting: 0, started: 9 });
  });

  it('refuses at once past an owner’s bound (429) and past the waiting bound (503), with Retry-After; the command line is never refused', async () => {
    const queue = createWorkQueue({ concurrent: 1, perOwner: 2, waiting: 2, retryAfterSeconds: 3 });
    const { started, piece, finish } = pieces();
    const admitted = [queue.run('one', piece('one-1')), queue.run('one', piece('one-2'))];
    const ownBound = queue.run('one', piece('one-3'));
    await expect(ownBound).rejects.toBeInstanceOf(RateLimitedError);
    // Answered by the one rule (src/http/error-status.ts).
    await expect(ownBound.catch(errorStatus)).resolves.toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
    const second = queue.run('two', piece('two-1'));
    const overall = queue.run('three', piece('three-1'));
    await expect(overall).rejects.toBeInstanceOf(ServiceBusyError);
    await expect(overall.catch(errorStatus)).resolves.toMatchObject({ status: 503, headers: { 'retry-after': '3' } });
    const local = queue.run(undefined, piece('local'));
    expect(queue.stats()).toMatchObject({ running: 1, waiting: 3 });
    for (const label of ['one-1', 'two-1', 'local', 'one-2']) await finish(label);
    expect(started).toEqual(['one-1', 'two-1', 'local', 'one-2']);
    expect(await Promise.all([...admitted, second, local])).toEqual(['one-1', 'one-2', 'two-1', 'local']);
    // A piece that fails frees its slot like one that succeeds.
    await expect(queue.run('one', () => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    expect(queue.stats()).toEqual({ running: 0, waiting: 0, started: 5 });
  });
});
