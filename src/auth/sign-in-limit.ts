import { createRateLimiter, type RateLimitStore } from '../http/rate-limit.ts';
import { signInFailures } from '../limits.ts';

/**
 * The limit on failed sign-ins (limits.ts signInFailures): per account name as typed and per
 * client address. Only failures count, and they are counted whether or not the name exists, so
 * the limit tells nothing about which names do. On PostgreSQL the counts are shared by every
 * server process (src/http/rate-limit.ts).
 */
export interface SignInLimiter {
  /** Throws RateLimitedError (429, Retry-After) when the name or the address has used up its failures. */
  check(props: { name: string; address: string | undefined }): Promise<void>;
  /** Counts one failed sign-in for the name and the address. */
  fail(props: { name: string; address: string | undefined }): Promise<void>;
}

export function createSignInLimiter(store: RateLimitStore): SignInLimiter {
  const byName = createRateLimiter({ name: 'sign-in-name', ...signInFailures.perName }, store);
  const byAddress = createRateLimiter({ name: 'sign-in-address', ...signInFailures.perAddress }, store);
  // Names are compared as the account lookup compares them: trimmed, NFC; case kept (names are case-sensitive).
  const nameKey = (name: string) => name.trim().normalize('NFC').slice(0, 200);
  return {
    async check({ name, address }) {
      await byName.check(nameKey(name));
      if (address !== undefined) await byAddress.check(address);
    },
    async fail({ name, address }) {
      await byName.penalise(nameKey(name));
      if (address !== undefined) await byAddress.penalise(address);
    },
  };
}
