import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import { isAllowedHost } from './allowed-hosts.ts';
import { HttpError } from './responses.ts';

/** The settings these answers depend on (config.web). */
export type WebSettings = Pick<Config['web'], 'publicUrl' | 'trustProxy' | 'allowedHosts'>;

/** What the host check reads of a request: a fetch Request, or Node's request seen through `get` (src/early-answers.ts). */
export interface HeaderSource {
  url: string;
  headers: { get(name: string): string | null };
}

/** A host with an optional port, as X-Forwarded-Host may carry it: name, IPv4 or [IPv6]. */
const hostPattern = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The first value of a comma-separated header a proxy may have appended to, trimmed. */
function firstValue(value: string | null): string | undefined {
  const first = value?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}

/** The last value of a comma-separated header: the one the proxy in front of us wrote. */
function lastValue(value: string | null): string | undefined {
  const last = value?.split(',').at(-1)?.trim();
  return last === '' ? undefined : last;
}

/**
 * The origin people open the server at (`https://airdate.example.com`, no trailing slash), which
 * the CSRF check compares `Origin` with, the cookie's `Secure` and name follow, and links and the
 * single sign-on redirect URI are built on: AIRDATE_PUBLIC_URL when set; else the origin the
 * request was addressed to (addressedOrigin). Either way the host the request was addressed to
 * must be one the server answers to (allowed-hosts.ts), else this throws the 400 the edge
 * answers with: nothing is ever built on a host an attacker chose.
 */
export function publicOrigin(request: Request, web: WebSettings): string {
  const addressed = checkHost(request, web);
  return web.publicUrl !== undefined ? new URL(web.publicUrl).origin : addressed;
}

/**
 * The origin the request was addressed to, once its host is known to be allowed (else the 400 of
 * allowed-hosts.ts as an HttpError): behind a trusted proxy (AIRDATE_TRUST_PROXY) the scheme and
 * host it forwarded (X-Forwarded-Proto, X-Forwarded-Host, each falling back to the request's own
 * when absent or malformed); else the request URL's origin (its Host header). `url`: the
 * request's URL when the caller has parsed it already.
 */
export function checkHost(request: HeaderSource, web: WebSettings, url: URL = new URL(request.url)): string {
  const addressed = addressedOrigin(request, web, url);
  if (!isAllowedHost(addressed.hostname, web)) {
    throw new HttpError(
      400,
      `this server does not answer to the host "${addressed.hostname.slice(0, 255)}": set AIRDATE_PUBLIC_URL to the address people open, or add the name to AIRDATE_ALLOWED_HOSTS`,
    );
  }
  return addressed.origin;
}

function addressedOrigin(request: HeaderSource, web: WebSettings, own: URL): URL {
  if (!web.trustProxy) return own;
  const proto = firstValue(request.headers.get('x-forwarded-proto'))?.toLowerCase();
  const host = firstValue(request.headers.get('x-forwarded-host'));
  const scheme = proto === 'http' || proto === 'https' ? proto : own.protocol.slice(0, -1);
  const authority = host !== undefined && hostPattern.test(host) ? host : own.host;
  try {
    return new URL(`${scheme}://${authority}`);
  } catch {
    return own;
  }
}

/** Whether the public origin is https: the session cookie is then `Secure` and `__Host-` prefixed. */
export function isSecureOrigin(request: Request, web: WebSettings): boolean {
  return publicOrigin(request, web).startsWith('https:');
}

/**
 * The client's address, for the sign-in rate limit and the session list: behind a trusted proxy
 * the last X-Forwarded-For entry (the address the proxy itself saw: earlier entries are whatever
 * the client chose to send, so trusting them would let anyone pick a fresh address per attempt);
 * else the socket's peer address the Node server passes in (`app.fetch(request, { clientAddress })`).
 * Undefined when neither is known (a test calling `app.fetch` without one).
 */
export function clientAddress(request: Request, web: WebSettings, socketAddress: string | undefined): string | undefined {
  if (web.trustProxy) {
    const forwarded = lastValue(request.headers.get('x-forwarded-for'));
    const address = forwarded?.replace(/^\[(.*)\]$/, '$1');
    if (address !== undefined && isIP(address) !== 0) return normaliseAddress(address);
  }
  return socketAddress === undefined || socketAddress === '' ? undefined : normaliseAddress(socketAddress);
}

/** `::ffff:10.0.0.1` (an IPv4 peer of a dual-stack socket) as `10.0.0.1`, so one client has one key. */
function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}
