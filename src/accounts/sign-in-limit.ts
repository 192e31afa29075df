import { RateLimitedError } from '../errors.ts';
import { createRateLimiter, type RateLimiter, type RateLimitStore } from '../http/rate-limit.ts';
import { signInFailures } from '../limits.ts';
import { addressLimitKey } from './address-key.ts';

/**
 * The limits on password checks (limits.ts signInFailures). Every check is reserved before the
 * password is hashed, by one atomic take per key (rate-limiter-flexible's consume), and given back
 * when the password was right (its reward): only wrong passwords count, and a burst of concurrent
 * attempts gets no more checks than the limit allows, whatever their number. A refused attempt
 * takes nothing. On PostgreSQL the counts are shared by every server process (src/http/rate-limit.ts).
 *
 * A sign-in counts against the name as typed, whether or not it exists (so the limit tells
 * nothing about which names do) — unless the browser signed in to that account before (its
 * device cookie, device-cookie.ts): then against that browser instead (OWASP's device cookies), so
 * a stranger locking the name out does not lock out its owner's browsers. Both count against the
 * client's address as well (an IPv6 address by its /64).
 */
declare module '../graphql/context.ts' {
  interface WebRequestServices {
    signInLimiter: SignInLimiter;
  }
}

export interface SignInLimiter {
  /** Reserves a sign-in's check; RateLimitedError (429, Retry-After) when a key has none left. */
  reserveSignIn(props: { name: string; address: string | undefined; deviceId: string | undefined }): Promise<Reservation>;
  /** Reserves a check of the signed-in account's current password (changePassword); RateLimitedError likewise. */
  reservePasswordCheck(props: { accountId: number; address: string | undefined }): Promise<Reservation>;
}

/** A reserved check: `giveBack` when the password was right, or when it was never checked. */
export interface Reservation {
  giveBack(): Promise<void>;
}

export function createSignInLimiter(store: RateLimitStore): SignInLimiter {
  const byName = createRateLimiter({ name: 'sign-in-name', ...signInFailures.perName }, store);
  const byDevice = createRateLimiter({ name: 'sign-in-device', ...signInFailures.perDevice }, store);
  const byAddress = createRateLimiter({ name: 'sign-in-address', ...signInFailures.perAddress }, store);
  const byAccount = createRateLimiter({ name: 'password-change', ...signInFailures.perAccountChange }, store);
  // Names are compared as the account lookup compares them: trimmed, NFC; case kept (names are case-sensitive).
  const nameKey = (name: string) => name.trim().normalize('NFC').slice(0, 200);
  return {
    reserveSignIn: ({ name, address, deviceId }) =>
      reserveAll([deviceId === undefined ? [byName, nameKey(name)] : [byDevice, deviceId], ...addressTake(byAddress, address)]),
    reservePasswordCheck: ({ accountId, address }) => reserveAll([[byAccount, String(accountId)], ...addressTake(byAddress, address)]),
  };
}

const addressTake = (limiter: RateLimiter, address: string | undefined): [RateLimiter, string][] =>
  address === undefined ? [] : [[limiter, addressLimitKey(address)]];

/**
 * Takes one point of each (limiter, key) at once; when any refuses, gives back those that were
 * taken and throws the refusal with the longest wait.
 */
async function reserveAll(takes: [RateLimiter, string][]): Promise<Reservation> {
  const results = await Promise.allSettled(takes.map(([limiter, key]) => limiter.reserve(key)));
  const giveBacks = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const giveBack = async () => void (await Promise.all(giveBacks.map((give) => give())));
  const refusals = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (refusals.length === 0) return { giveBack };
  await giveBack();
  const limited = refusals.filter((reason): reason is RateLimitedError => reason instanceof RateLimitedError);
  if (limited.length < refusals.length) throw refusals.find((reason) => !(reason instanceof RateLimitedError));
  throw limited.reduce((longest, refusal) => (refusal.retryAfterSeconds > longest.retryAfterSeconds ? refusal : longest));
}
