import type { Clock } from '../../../src/catalog/http-client.ts';

/**
 * A clock whose time moves only when someone sleeps. Sleepers wake one at a time, earliest first,
 * each on its own macrotask, so the code after a sleep (such as sending a request) runs at the
 * time it woke for. `sleeps` lists every requested wait.
 */
export function fakeClock(start = Date.UTC(2026, 0, 1)) {
  let time = start;
  const sleepers: { at: number; wake: () => void }[] = [];
  const sleeps: number[] = [];
  let pumping = false;

  const pump = () => {
    pumping = false;
    sleepers.sort((a, b) => a.at - b.at);
    const next = sleepers.shift();
    if (!next) return;
    time = Math.max(time, next.at);
    next.wake();
    schedule();
  };
  const schedule = () => {
    if (pumping || sleepers.length === 0) return;
    pumping = true;
    setImmediate(pump);
  };

  const clock: Clock & { sleeps: number[]; start: number } = {
    start,
    sleeps,
    now: () => time,
    sleep(ms) {
      sleeps.push(ms);
      return new Promise<void>((wake) => {
        sleepers.push({ at: time + ms, wake });
        schedule();
      });
    },
  };
  return clock;
}

/** A fetch that stamps each request with the fake time it was sent at (header x-sent-at). */
export function stampingFetch(clock: Clock): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-sent-at': String(clock.now()) } });
}
