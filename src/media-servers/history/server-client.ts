import { InputError } from '../../errors.ts';
import { Deadline, DeadlineExceeded, requestUnderPolicy } from '../../webhooks/outbound-request.ts';
import { PolicyRefusal } from '../../webhooks/send-helpers.ts';
import type { TargetPolicy } from '../../webhooks/target-policy.ts';

/**
 * How Airdate talks to a media server whose history it pulls: GET requests under the outbound
 * address policy webhooks use (AIRDATE_WEBHOOK_ALLOWED_HOSTS: a private address the operator did
 * not allow, or loopback, is refused before anything is sent), each with its own deadline, never
 * following a redirect, answers read up to a bound. Every failure becomes a PullError whose message
 * says what the person can do about it: a refused key (401/403), an HTML page where JSON was
 * expected (a reverse proxy's login page), a server that does not answer in time.
 */

/** Where pulls may connect, and how long one request may take (the server's AIRDATE_WEBHOOK_* settings). */
export interface PullTarget {
  policy: TargetPolicy;
  timeoutMs: number;
  /** Airdate's own origins (AIRDATE_PUBLIC_URL, the request's) and port: an address naming them is refused. */
  ownOrigins?: readonly string[];
  ownPort?: number;
}

/** A pull that cannot go on, with why in words the Connections page shows as they are. */
export class PullError extends InputError {
  override name = 'PullError';
}

/** Most bytes of one answer (a page of 500 items with their ids is about 1 MB). */
export const maxAnswerBytes = 32 * 1024 * 1024;

/**
 * The server's base URL from what a person typed: http or https, no credentials, query or
 * fragment, the path kept (a server behind a proxy at /jellyfin), no trailing slash. InputError
 * (field `address`) otherwise, and for Airdate's own address.
 */
export function serverAddress(given: string, target: Pick<PullTarget, 'ownOrigins' | 'ownPort'>): URL {
  let url: URL;
  try {
    url = new URL(given.trim());
  } catch {
    throw new InputError('the address is not a URL: give the server\'s address, such as http://192.168.1.20:8096', 'address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InputError('the address must start with http:// or https://', 'address');
  if (url.username || url.password) throw new InputError('the address must not hold a user name or password: give the API key or token on its own', 'address');
  if (given.length > 2000) throw new InputError('the address is longer than 2000 characters', 'address');
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  const loopback = /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0|\[::\])$/i.test(url.hostname);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if ((target.ownOrigins ?? []).includes(url.origin) || (loopback && target.ownPort !== undefined && port === target.ownPort)) {
    throw new InputError(`${url.origin} is this Airdate server's own address: give the media server's address`, 'address');
  }
  return url;
}

/** GETs `path` (with `query`) of the server at `base` with `headers`; the parsed JSON answer. */
export async function getJson(target: PullTarget, base: URL, path: string, query: Record<string, string>, headers: Record<string, string>, what: string): Promise<unknown> {
  const url = new URL(base.href.replace(/\/?$/, '/') + path.replace(/^\//, ''));
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const deadline = new Deadline(target.timeoutMs);
  let answer;
  try {
    answer = await requestUnderPolicy({ url, method: 'GET', headers: { accept: 'application/json', 'user-agent': 'Airdate', ...headers }, policy: target.policy, deadline, maxResponseBytes: maxAnswerBytes });
  } catch (error) {
    if (error instanceof PolicyRefusal) throw new PullError(`${base.host} is not an address Airdate may connect to: ${error.message} (the operator allows more with AIRDATE_WEBHOOK_ALLOWED_HOSTS)`, 'address');
    if (error instanceof DeadlineExceeded) throw new PullError(`the server at ${base.host} did not answer ${what} within ${Math.round(target.timeoutMs / 1000)} s`, 'address');
    const code = (error as NodeJS.ErrnoException).code;
    throw new PullError(`could not reach ${base.host} (${code ?? (error as Error).message}) for ${what}`, 'address');
  } finally {
    deadline.clear();
  }
  if (answer.status === 401 || answer.status === 403) {
    throw new PullError(`the server at ${base.host} refused the ${headers['x-plex-token'] === undefined ? 'API key' : 'token'} (${answer.status}) for ${what}: check it, and that it is the server's own (Dashboard → API Keys on Jellyfin and Emby; the X-Plex-Token on Plex); nothing was imported`, 'apiKey');
  }
  const type = String(answer.headers['content-type'] ?? '').toLowerCase();
  const text = answer.body.toString('utf8');
  const html = type.includes('text/html') || /^\s*<(!doctype|html)/i.test(text);
  if (answer.status >= 300 && answer.status < 400) {
    throw new PullError(`the server at ${base.host} answered ${what} with a redirect (${answer.status}) to ${String(answer.headers.location ?? 'elsewhere')}: a reverse proxy's login? Give the address that reaches the media server itself`, 'address');
  }
  if (html) throw new PullError(`the server at ${base.host} answered ${what} with an HTML page (status ${answer.status}), not the media server's JSON: a reverse proxy's login page? Give the address that reaches the media server itself`, 'address');
  if (answer.status !== 200) throw new PullError(`the server at ${base.host} answered ${what} with ${answer.status} ${answer.statusMessage}`.trim(), 'address');
  if (answer.body.length >= maxAnswerBytes) throw new PullError(`the server at ${base.host} answered ${what} with more than ${maxAnswerBytes / 1024 / 1024} MB`, 'address');
  try {
    return JSON.parse(text);
  } catch {
    throw new PullError(`the server at ${base.host} answered ${what} with something that is not JSON: is it a ${'media server'}?`, 'address');
  }
}
