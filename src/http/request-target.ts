import { isIPv6 } from 'node:net';
import { httpLimits } from '../limits.ts';

/** What the server answers a request line and Host header with, before the app sees the request. */
export type TargetCheck =
  | {
      ok: true;
      /** The target in origin-form (`/path?query`), what the app routes by. */
      path: string;
      /** The authority to build the request's URL with (never empty). */
      host: string;
    }
  | { ok: false; status: 400; error: string };

/** The parts of a Node request the check reads. */
export interface RequestHead {
  method: string;
  /** The request-target exactly as sent (Node's `req.url`). */
  target: string;
  /** `req.rawHeaders`: every field line, so a repeated Host is seen. */
  rawHeaders: readonly string[];
  /** `1.1`, `1.0`, … */
  httpVersion: string;
}

/**
 * RFC 3986 `host [ ":" port ]`: an IP literal in brackets, or a reg-name/IPv4 of unreserved
 * characters, sub-delims and percent-escapes. Anything else (a space, a slash, an unclosed
 * bracket, non-ASCII) is not a valid Host field value.
 */
const authorityPattern = /^(?:\[([0-9A-Fa-f:.]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;

/** Schemes an absolute-form target may name: ours. */
const absoluteForm = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Checks a request's target and Host header the way RFC 9112 (§3.2, §3.2.2) asks an origin
 * server to, and says what to serve:
 * - origin-form (`/path?query`) is served as it is;
 * - absolute-form (`http://host/path?query`, which a server MUST accept) is served by its path and
 *   query, and its authority replaces the Host header (which the RFC says to ignore then);
 * - asterisk-form (`*`, only meaningful for a server-wide `OPTIONS`) names no resource here: 400;
 * - any other target (another scheme, a bare word) is a 400;
 * - an HTTP/1.1 request without a Host, with two of them, or with one that is not a valid
 *   `host[:port]` is a 400 (the RFC's MUST). An empty Host (allowed for targets without an
 *   authority) and a missing one on HTTP/1.0 are served as `localhost`.
 */
export function checkRequestTarget(head: RequestHead): TargetCheck {
  if (head.target === '*') {
    return refuse(`the request target * names no resource here; ${head.method === 'OPTIONS' ? 'ask OPTIONS of a path, e.g. OPTIONS /graphql' : 'send a path'}`);
  }
  if (absoluteForm.test(head.target)) return absoluteTarget(head.target);
  if (!head.target.startsWith('/')) return refuse('the request target must be a path starting with /');

  const hosts = hostFields(head.rawHeaders);
  if (hosts.length > 1) return refuse('more than one Host header');
  const [host] = hosts;
  if (host === undefined) {
    return head.httpVersion === '1.0' || head.httpVersion === '0.9' ? { ok: true, path: head.target, host: 'localhost' } : refuse('the Host header is missing');
  }
  if (host === '') return { ok: true, path: head.target, host: 'localhost' };
  if (!validAuthority(host)) return refuse('the Host header is not a valid host[:port]');
  return { ok: true, path: head.target, host };
}

function absoluteTarget(target: string): TargetCheck {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return refuse('the request target is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(`the request target's scheme must be http or https, not ${url.protocol.slice(0, 20)}`);
  // An http(s) URL always has a host; without one the URL parser has already refused it.
  return { ok: true, path: `${url.pathname}${url.search}`, host: url.host };
}

function hostFields(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === 'host') values.push(rawHeaders[index + 1]!.trim());
  }
  return values;
}

function validAuthority(host: string): boolean {
  const match = authorityPattern.exec(host);
  if (!match) return false;
  if (match[1] !== undefined && !isIPv6(match[1])) return false;
  // The grammar allows what the URL parser, which builds the request's URL from it, refuses:
  // a port past 65535, a bad IPv4 or percent-escape. Both must accept it.
  try {
    return new URL(`http://${host}/`).pathname === '/';
  } catch {
    return false;
  }
}

function refuse(error: string): TargetCheck {
  return { ok: false, status: 400, error };
}

/** A request path as an error message or log line may quote it: at most `httpLimits.quotedTargetChars`. */
export function quotedPath(path: string): string {
  return path.length > httpLimits.quotedTargetChars ? `${path.slice(0, httpLimits.quotedTargetChars)}…` : path;
}
