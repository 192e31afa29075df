import { isSecureOrigin, type WebSettings } from '../../http/public-origin.ts';
import { oidcLengths, oidcTimes } from '../../limits.ts';
import { encryptSecret, unsealCookieJson } from '../../keys/crypto.ts';
import { cookieValue } from '../sessions.ts';
import type { PendingSignIn } from './oidc.ts';
import { secretKey } from '../../keys/secret-key.ts';

/**
 * The short-lived cookie that carries a single sign-on from /auth/oidc/start to the callback: the
 * PKCE verifier, state and nonce, where to go afterwards and, when linking, which account asked.
 * It is sealed with the server's secret key (AES-256-GCM, crypto.ts), so the browser can neither
 * read the verifier nor change the account or the destination, and any server instance can open
 * it. HttpOnly and SameSite=Lax: the provider's redirect back is a top-level GET, which Lax lets
 * through; `__Host-` and Secure on an https origin, like the session cookie.
 */

/** Everything a sign-in in progress needs at the callback. */
export interface SignInState extends PendingSignIn {
  /** Same-origin path to go to afterwards. */
  returnTo: string;
  /** Set when a signed-in account asked to link the identity to itself. */
  linkAccountId: number | undefined;
  /** Milliseconds since the epoch after which the callback refuses this state. */
  expiresAt: number;
}

function cookieName(request: Request, web: WebSettings): string {
  return isSecureOrigin(request, web) ? '__Host-airdate_oidc' : 'airdate_oidc';
}

function attributes(request: Request, web: WebSettings, maxAgeSeconds: number): string {
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${isSecureOrigin(request, web) ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value carrying `state`, sealed. */
export function stateCookie(request: Request, web: WebSettings, state: SignInState): string {
  const sealed = encryptSecret(JSON.stringify(state), secretKey());
  return `${cookieName(request, web)}=${sealed}; ${attributes(request, web, Math.floor(oidcTimes.stateMs / 1000))}`;
}

/** The `Set-Cookie` value that removes it: a state works for one callback only. */
export function clearStateCookie(request: Request, web: WebSettings): string {
  return `${cookieName(request, web)}=; ${attributes(request, web, 0)}`;
}

/**
 * The sign-in state in `request`'s cookie, or undefined when there is none, it was altered or
 * sealed with another key, or it has expired (the cookie's Max-Age is only the browser's promise).
 */
export function readStateCookie(request: Request, web: WebSettings, now = Date.now()): SignInState | undefined {
  // A sealed state is well under 2 KB.
  const parsed = unsealCookieJson(cookieValue(request, cookieName(request, web)), secretKey(), 4_096);
  const state = asSignInState(parsed);
  return state && state.expiresAt > now ? state : undefined;
}

/** The value as a SignInState when it has that shape (it was sealed by us, but maybe by an older version). */
function asSignInState(value: unknown): SignInState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const strings = ['codeVerifier', 'state', 'nonce', 'returnTo'] as const;
  if (!strings.every((key) => typeof record[key] === 'string')) return undefined;
  if (typeof record.expiresAt !== 'number') return undefined;
  if (record.linkAccountId !== undefined && !Number.isInteger(record.linkAccountId)) return undefined;
  return {
    codeVerifier: record.codeVerifier as string,
    state: record.state as string,
    nonce: record.nonce as string,
    returnTo: safeReturnTo(record.returnTo as string),
    linkAccountId: record.linkAccountId as number | undefined,
    expiresAt: record.expiresAt,
  };
}

/**
 * `returnTo` as a path on this server, else `/`. It must start with one `/` (not `//`, which a
 * browser reads as another host), hold no backslash (read as `/` in http URLs) and no control
 * character (a browser's URL parser drops tabs and line breaks, which could join two `/`). What is
 * kept is the URL parser's own serialisation of it: dot segments resolved (a `/.//host` that would
 * come out as `//host` goes to `/`), and every character outside printable ASCII percent-encoded as a
 * browser would (`/。evil.example` becomes `/%E3%80%82evil.example`, a path), so it always fits a
 * Location header. Never an absolute URL: an open redirect would let a link to our sign-in send
 * people anywhere. Checked when the sign-in starts, and again when its state is read.
 */
export function safeReturnTo(returnTo: string | null | undefined): string {
  if (typeof returnTo !== 'string' || returnTo.length > oidcLengths.returnToChars) return '/';
  if (!returnTo.startsWith('/') || returnTo.startsWith('//') || /[\u0000-\u001f\u007f-\u009f\\]/.test(returnTo)) return '/';
  const base = 'http://airdate.invalid';
  const url = new URL(returnTo, base);
  const path = url.pathname + url.search + url.hash;
  return url.origin === base && !path.startsWith('//') && path.length <= oidcLengths.returnToChars ? path : '/';
}
