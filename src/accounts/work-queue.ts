import { RateLimitedError, ServiceBusyError } from '../errors.ts';

/**
 * A bounded, fair queue for expensive work of many clients (password hashing): at most
 * `concurrent` pieces run at once; each owner (a client address's limit key) may have at most
 * `perOwner` running or waiting, and at most `waiting` wait in all. A piece past either bound is
 * refused at once, never queued: RateLimitedError (429) past the owner's bound, ServiceBusyError
 * (503) past the overall one, both with Retry-After `retryAfterSeconds`. Work no client asked for
 * (owner undefined: the command line) is never refused; it waits its turn as one more owner.
 *
 * A free slot goes to the waiting owner that has had the fewest pieces started since it last had
 * none running or waiting (the earliest to arrive among equals), not to the oldest piece: a client
 * that keeps a burst going falls behind every newcomer, so another owner's piece waits for the
 * pieces running and at most one of each other owner waiting, whatever the bursts' sizes.
 */
export interface WorkQueue {
  /** Runs `work` for `owner` in its turn; throws at once when the owner's or the queue's bound is reached. */
  run<T>(owner: string | undefined, work: () => Promise<T>): Promise<T>;
  /** What it holds now, and how many pieces it has started since it was made. */
  stats(): { running: number; waiting: number; started: number };
}

export interface WorkQueueBounds {
  concurrent: number;
  perOwner: number;
  waiting: number;
  retryAfterSeconds: number;
}

interface Owner {
  running: number;
  /** Pieces started since the owner last had none running or waiting. */
  started: number;
  /** Pieces waiting, oldest first: each resolves when its slot is given. */
  queue: (() => void)[];
}

export function createWorkQueue(bounds: WorkQueueBounds): WorkQueue {
  /** Owners with pieces running or waiting, in the order they came. */
  const owners = new Map<string, Owner>();
  let running = 0;
  let waiting = 0;
  let started = 0;

  /** The waiting owner to serve next: fewest started, then the first to come (Map order). */
  const nextOwner = (): Owner | undefined => {
    let best: Owner | undefined;
    for (const owner of owners.values()) {
      if (owner.queue.length > 0 && (best === undefined || owner.started < best.started)) best = owner;
    }
    return best;
  };

  const start = (owner: Owner): void => {
    running++;
    started++;
    owner.running++;
    owner.started++;
  };

  const finish = (key: string, owner: Owner): void => {
    running--;
    owner.running--;
    if (owner.running === 0 && owner.queue.length === 0) owners.delete(key);
    const next = nextOwner();
    if (next === undefined) return;
    waiting--;
    start(next);
    next.queue.shift()!();
  };

  return {
    async run(ownerKey, work) {
      // The empty key is no address's: addresses are never empty.
      const key = ownerKey ?? '';
      const known = owners.get(key);
      if (ownerKey !== undefined) {
        if (known !== undefined && known.running + known.queue.length >= bounds.perOwner) throw new RateLimitedError(bounds.retryAfterSeconds);
        if (running >= bounds.concurrent && waiting >= bounds.waiting) throw new ServiceBusyError(bounds.retryAfterSeconds);
      }
      const owner = known ?? { running: 0, started: 0, queue: [] };
      if (known === undefined) owners.set(key, owner);
      if (running < bounds.concurrent) start(owner);
      else {
        waiting++;
        await new Promise<void>((resolve) => owner.queue.push(resolve));
      }
      try {
        return await work();
      } finally {
        finish(key, owner);
      }
    },
    stats: () => ({ running, waiting, started }),
  };
}
