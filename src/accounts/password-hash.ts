import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { InputError } from '../errors.ts';
import { passwordHashing, passwordLength } from '../limits.ts';
import { exceedsLength } from '../value-bounds.ts';
import { addressLimitKey } from './address-key.ts';
import { createWorkQueue } from './work-queue.ts';

/**
 * Password hashing with scrypt at OWASP's recommended cost (N=2^17, r=8, p=1: 128 MiB and about
 * a fifth of a second per hash on a current core). A stored hash names its own cost,
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (salt and hash base64), so the cost can be raised later
 * and old hashes still verify.
 *
 * Each hash holds 128 MiB while it runs: every hash and verification goes through one bounded,
 * fair queue per process (limits.ts passwordHashing, work-queue.ts), keyed by the client address
 * that asked for it, so a burst is refused quickly instead of queueing everyone behind it.
 */

const current = { logN: 17, r: 8, p: 1 } as const;
const saltBytes = 16;
const hashBytes = 32;

/** scrypt's memory is 128 * N * r bytes; Node refuses anything over `maxmem` (32 MiB by default). */
const maxmemFor = (logN: number, r: number) => 128 * 2 ** logN * r + 16 * 1024 * 1024;

const queue = createWorkQueue({
  concurrent: passwordHashing.concurrent,
  perOwner: passwordHashing.perAddress,
  waiting: passwordHashing.waiting,
  retryAfterSeconds: passwordHashing.retryAfterSeconds,
});

/**
 * Who a hash is for, as the queue counts them: the client's address, or undefined for work no
 * client asked for (the command line; a request whose address the server does not know).
 */
export type HashRequester = string | undefined;

/** The queue's owner key of `requester`: the address's limit key (an IPv6 address's /64). */
const ownerOf = (requester: HashRequester): string | undefined => (requester === undefined ? undefined : addressLimitKey(requester));

/** What the hashing queue holds now and how many hashes it has started in this process (a test's count of checked passwords). */
export function passwordHashingStats(): { running: number; waiting: number; started: number } {
  return queue.stats();
}

function derive(password: string, salt: Buffer, cost: { logN: number; r: number; p: number }, length: number, requester: HashRequester): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** cost.logN, r: cost.r, p: cost.p, maxmem: maxmemFor(cost.logN, cost.r) };
  return queue.run(
    ownerOf(requester),
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

/** InputError unless `password` has passwordLength.min..max characters. */
export function checkPasswordRules(password: string, field = 'password'): void {
  if (exceedsLength(password, passwordLength.max)) throw new InputError(`the password must be at most ${passwordLength.max} characters`, field);
  if ([...password].length < passwordLength.min) throw new InputError(`the password must be at least ${passwordLength.min} characters`, field);
}

/**
 * The stored form of `password` under a fresh random salt, at the current cost. Throws
 * RateLimitedError or ServiceBusyError when the hashing queue cannot take it (work-queue.ts).
 */
export async function hashPassword(password: string, requester?: HashRequester): Promise<string> {
  checkPasswordRules(password);
  const salt = randomBytes(saltBytes);
  const hash = await derive(password, salt, current, hashBytes, requester);
  return ['scrypt', current.logN, current.r, current.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

interface ParsedHash {
  cost: { logN: number; r: number; p: number };
  salt: Buffer;
  hash: Buffer;
}

/** A stored hash's parts, or undefined when it is not one this module wrote (a hand-edited row). */
function parseStored(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a tampered row from asking for gigabytes or hours.
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 16 || p < 1 || p > 4) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64');
  const hash = Buffer.from(parts[5]!, 'base64');
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return undefined;
  return { cost: { logN, r, p }, salt, hash };
}

/**
 * Whether `password` matches `stored`. False for an unreadable stored value, and for a password
 * longer than the rules allow (never hashed: it cannot have been set). Constant-time comparison.
 * Throws as hashPassword does when the hashing queue cannot take it.
 */
export async function verifyPassword(password: string, stored: string, requester?: HashRequester): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed || exceedsLength(password, passwordLength.max)) return dummyVerify(requester);
  const candidate = await derive(password, parsed.salt, parsed.cost, parsed.hash.length, requester);
  return timingSafeEqual(candidate, parsed.hash);
}

const dummySalt = randomBytes(saltBytes);

/**
 * Spends the time of one verification at the current cost and returns false: a sign-in with an
 * unknown name (or an account without a password) then takes as long as a wrong password, so the
 * answer's timing does not tell which names exist.
 */
export async function dummyVerify(requester?: HashRequester): Promise<false> {
  await derive('not a password', dummySalt, current, hashBytes, requester);
  return false;
}
