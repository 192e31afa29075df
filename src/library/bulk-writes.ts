import { RateLimitedError } from '../errors.ts';
import { bulkWrites } from '../limits.ts';

/**
 * Turns of one account's bulk writes in this process (limits.ts bulkWrites): at most `running`
 * run at once per account, up to `waiting` more wait in arrival order, each for at most `waitMs`;
 * the others are refused at once. A refusal is RateLimitedError (429 with Retry-After) and costs
 * no database work. Other accounts never wait here: each account has its own turns.
 */
export interface AccountTurns {
  /** Runs `work` in the account's turn; RateLimitedError when its bound is reached or its wait ran out. */
  run<T>(accountId: number, work: () => Promise<T>): Promise<T>;
  /** Accounts with bulk writes running or waiting (a test's check that nothing is left behind). */
  size(): number;
}

export interface AccountTurnBounds {
  running: number;
  waiting: number;
  waitMs: number;
  retryAfterSeconds: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface AccountState {
  running: number;
  queue: Waiter[];
}

export function createAccountTurns(bounds: AccountTurnBounds): AccountTurns {
  const accounts = new Map<number, AccountState>();
  const refused = () => new RateLimitedError(bounds.retryAfterSeconds);

  const finish = (accountId: number, state: AccountState): void => {
    const next = state.queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
      return;
    }
    state.running -= 1;
    if (state.running === 0) accounts.delete(accountId);
  };

  return {
    async run(accountId, work) {
      let state = accounts.get(accountId);
      if (!state) {
        state = { running: 0, queue: [] };
        accounts.set(accountId, state);
      }
      if (state.running >= bounds.running) {
        if (state.queue.length >= bounds.waiting) throw refused();
        const waiting = state;
        // A finishing write hands its turn straight to the first waiter (running stays counted).
        await new Promise<void>((resolve, reject) => {
          const waiter: Waiter = {
            start: resolve,
            timer: setTimeout(() => {
              waiting.queue.splice(waiting.queue.indexOf(waiter), 1);
              reject(refused());
            }, bounds.waitMs),
          };
          waiting.queue.push(waiter);
        });
      } else {
        state.running += 1;
      }
      try {
        return await work();
      } finally {
        finish(accountId, state);
      }
    },
    size: () => accounts.size,
  };
}

/** The process's turns of the marks' bulk writes (markWatched, markEpisodes, undoMarks). */
export const bulkWriteTurns = createAccountTurns(bulkWrites);
