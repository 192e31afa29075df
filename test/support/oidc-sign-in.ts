import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { sessionFromRequest } from '../../src/accounts/sessions.ts';
import type { TestOidcProvider } from './oidc-provider.ts';

/** The origin test requests are sent to; the provider's client is registered with its callback. */
export const airdateOrigin = 'http://airdate.test';
export const callbackUrl = `${airdateOrigin}/auth/oidc/callback`;

/** One answer of Airdate to a browser navigation. */
export interface Navigation {
  status: number;
  /** The Location header, or null. */
  location: string | null;
  /** Each Set-Cookie as `name=value` (attributes dropped), by name; an empty value means "removed". */
  cookies: Map<string, string>;
  /** The raw Set-Cookie lines, for attribute checks. */
  setCookies: string[];
}

/** GET `path` on the app in-process, as a browser navigation carrying `cookies` (`a=1; b=2`). */
export async function navigate(app: App, path: string, cookies = ''): Promise<Navigation> {
  const headers: Record<string, string> = { accept: 'text/html', 'user-agent': 'oidc-test-browser' };
  if (cookies !== '') headers.cookie = cookies;
  const response = await app.fetch(new Request(new URL(path, airdateOrigin), { headers }));
  await response.arrayBuffer();
  const setCookies = response.headers.getSetCookie();
  const parsed = new Map<string, string>();
  for (const line of setCookies) {
    const pair = line.split(';')[0] ?? '';
    const separator = pair.indexOf('=');
    parsed.set(pair.slice(0, separator), pair.slice(separator + 1));
  }
  return { status: response.status, location: response.headers.get('location'), cookies: parsed, setCookies };
}

/** The message of a redirect to `/sign-in?error=…`, or undefined when it goes elsewhere. */
export function signInError(location: string | null): string | undefined {
  if (location === null) return undefined;
  const url = new URL(location, airdateOrigin);
  return url.pathname === '/sign-in' ? (url.searchParams.get('error') ?? undefined) : undefined;
}

/** The whole single sign-on round trip, step by step, so tests can tamper with any step. */
export interface SignInRun {
  /** Airdate's answer to /auth/oidc/start. */
  start: Navigation;
  /** `airdate_oidc=<sealed state>` as the browser holds it after start. */
  stateCookie: string;
  /** Where the provider sent the browser back to (Airdate's callback with code and state, or error). */
  returned: URL;
  /** Airdate's answer to the callback. */
  callback: Navigation;
  /** `airdate_session=<value>` when the callback started a session. */
  sessionCookie: string | undefined;
}

/**
 * Signs in at Airdate through `provider` as `username`: start (with `query`, e.g. `returnTo=/x` or
 * `link=1`, and the browser's `cookies`), the provider's login and consent (or refusal with
 * `deny`), then the callback with the state cookie (and `cookies`).
 */
export async function runSignIn(
  app: App,
  provider: TestOidcProvider,
  props: { username: string; query?: string; cookies?: string; deny?: boolean },
): Promise<SignInRun> {
  const start = await navigate(app, `/auth/oidc/start${props.query ? `?${props.query}` : ''}`, props.cookies);
  const sealed = start.cookies.get('airdate_oidc');
  if (start.status !== 302 || !start.location?.startsWith(provider.issuer) || !sealed) {
    throw new Error(`start did not send the browser to the provider: ${start.status} ${start.location}`);
  }
  const stateCookie = `airdate_oidc=${sealed}`;
  const returned = await provider.signIn(start.location, { username: props.username, deny: props.deny });
  const callback = await navigate(app, returned.pathname + returned.search, joinCookies(stateCookie, props.cookies));
  const session = callback.cookies.get('airdate_session');
  return { start, stateCookie, returned, callback, sessionCookie: session ? `airdate_session=${session}` : undefined };
}

/** `a=1; b=2` from the non-empty parts. */
export function joinCookies(...cookies: (string | undefined)[]): string {
  return cookies.filter((cookie) => cookie !== undefined && cookie !== '').join('; ');
}

/** The account `cookie` (`airdate_session=…`, which must be set) signs in to, or undefined. */
export async function accountOfSession(cookie: string | undefined) {
  expect(cookie).toBeDefined();
  const session = await sessionFromRequest(new Request(`${airdateOrigin}/`, { headers: { cookie: cookie! } }));
  return session?.account;
}
