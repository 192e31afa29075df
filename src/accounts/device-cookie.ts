import { randomBytes } from 'node:crypto';
import { trustedDeviceMs } from '../limits.ts';
import { encryptSecret, unsealCookieJson } from '../keys/crypto.ts';
import { secretKey } from '../keys/secret-key.ts';
import { cookieAttributes, cookieValue, ownCookieName } from './sessions.ts';

/**
 * The device cookie (OWASP's "device cookies" against online guessing): a browser that signs in
 * to an account gets a cookie naming the account and a fresh random device id, sealed with the
 * server's secret key (AES-256-GCM, crypto.ts) so it can be neither read nor made nor moved to
 * another account, and opened by any server instance. For trustedDeviceMs after that, a password
 * sign-in from this browser to that account counts its failures against the device
 * (sign-in-limit.ts), not against the name, which anyone may lock by guessing: whoever locks
 * the name out cannot lock out its owner's own browsers. It outlives sign-out on purpose, and
 * grants nothing by itself: the password is still checked.
 */

/** The device a request comes from, as its cookie says: trusted for `accountId` only. */
export interface TrustedDevice {
  accountId: number;
  deviceId: string;
}

const baseName = 'airdate_device';

/** The `Set-Cookie` value that marks this browser as one that signed in to `accountId`, with a fresh id. */
export function deviceCookie(request: Request, accountId: number, now = Date.now()): string {
  const sealed = encryptSecret(JSON.stringify({ a: accountId, d: randomBytes(16).toString('base64url'), t: now }), secretKey());
  return `${ownCookieName(request, baseName)}=${sealed}; ${cookieAttributes(request, Math.floor(trustedDeviceMs / 1000))}`;
}

/**
 * The device of `request`'s cookie while it is valid (sealed by us, issued within trustedDeviceMs);
 * undefined when there is none, or it was altered, sealed with another key, or is too old.
 */
export function trustedDevice(request: Request, now = Date.now()): TrustedDevice | undefined {
  // A sealed device is about 120 characters.
  const parsed = unsealCookieJson(cookieValue(request, ownCookieName(request, baseName)), secretKey(), 512);
  const { a, d, t } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (!Number.isInteger(a) || typeof d !== 'string' || typeof t !== 'number') return undefined;
  // A minute ahead is another instance's clock, not a forgery (which the seal already rules out).
  if (t > now + 60_000 || now - t >= trustedDeviceMs) return undefined;
  return { accountId: a as number, deviceId: d };
}
