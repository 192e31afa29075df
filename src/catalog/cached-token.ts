import { asCatalogCaller } from './catalog-caller.ts';
import { CatalogHttpError, type Clock } from './http-client.ts';

/** A bearer token fetched on first use, reused until it expires, renewed once after a 401. */
export interface CachedToken {
  /** The current token, fetching one when there is none (concurrent callers share one fetch). */
  get(): Promise<string>;
  /**
   * Runs `call` with the token; when it fails with HTTP 401 the token is dropped, a new one
   * fetched and `call` tried once more (a second 401 is thrown).
   */
  use<T>(call: (token: string) => Promise<T>): Promise<T>;
}

/**
 * `fetchToken` returns the token and how long it lives (ms). The token is renewed `marginMs`
 * before that, so a request never starts with a token about to lapse.
 */
export function createCachedToken(
  fetchToken: () => Promise<{ token: string; lifetimeMs: number }>,
  clock: Clock,
  marginMs = 60_000,
): CachedToken {
  let current: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const get = (): Promise<string> => {
    if (current && clock.now() < current.expiresAt) return Promise.resolve(current.token);
    // Shared by every caller waiting for it: sent ahead of background requests, charged to nobody's
    // budget (one caller's spent budget must not fail the others' requests).
    pending ??= asCatalogCaller({ priority: 'interactive' }, fetchToken)
      .then(({ token, lifetimeMs }) => {
        current = { token, expiresAt: clock.now() + Math.max(0, lifetimeMs - marginMs) };
        return token;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return {
    get,
    async use(call) {
      const token = await get();
      try {
        return await call(token);
      } catch (error) {
        if (!(error instanceof CatalogHttpError) || error.status !== 401) throw error;
        // Only the first request to see the 401 drops the token; the others reuse the new one.
        if (current?.token === token) current = undefined;
        return call(await get());
      }
    },
  };
}
