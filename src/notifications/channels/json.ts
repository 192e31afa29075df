import type { ChannelKind, ChannelMessage, ChannelTarget } from './channel.ts';
import { bad, extraHeaders, parseAppriseUrl, pathSegment, peerOrigin, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { sendChannelRequest } from './channel-http.ts';

/**
 * A plain JSON POST, Apprise's `json://host[:port]/path` and `jsons://…` (https), with
 * `user:password@` (Basic), `method=` (POST, PUT or PATCH), `+Header=value` headers,
 * `-param=value` query parameters and `:field=name` payload changes (rename a field, `:field=` to
 * drop it, `:new=value` to add one). The body is Apprise's: `version`, `title`, `message`,
 * `attachments` (none: the poster is linked in the message) and `type`.
 */
export interface JsonTarget extends ChannelTarget {
  kind: 'json';
  /** The full URL posted to, query parameters included (user and password kept apart). */
  url: string;
  user: string | null;
  password: string | null;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  payload: Record<string, string>;
}

const label = 'JSON';
const methods = ['POST', 'PUT', 'PATCH'] as const;

function parse(text: string): JsonTarget {
  const url = parseAppriseUrl(text, label);
  refuseUnknownOptions(url, ['method'], label);
  const origin = peerOrigin(url, url.scheme === 'jsons', label);
  const target = new URL(`/${url.path.map(pathSegment).join('/')}`, origin);
  for (const [name, value] of Object.entries(url.params)) target.searchParams.append(name, value);
  const method = (textOption(url, 'method') ?? 'POST').toUpperCase();
  if (!(methods as readonly string[]).includes(method)) throw bad(label, `method= must be POST, PUT or PATCH, not "${method.slice(0, 10)}"`);
  return { kind: 'json', url: target.href, user: url.user, password: url.password, method: method as JsonTarget['method'], headers: extraHeaders(url, label), payload: url.payload };
}

/** Apprise's notification types: an info, a warning for a channel turned off. */
const notifyType = (message: ChannelMessage) => (message.event === 'channel-disabled' ? 'warning' : 'info');

/** The body with the URL's `:field` changes applied (Apprise's rule: rename, drop, or add). */
export function jsonBody(message: ChannelMessage, changes: Record<string, string>): Record<string, unknown> {
  const lines = [message.body, message.link].filter((line): line is string => line !== null && line !== '');
  const body: Record<string, unknown> = { version: '1.0', title: message.title, message: lines.join('\n\n'), attachments: [], type: notifyType(message) };
  for (const [field, value] of Object.entries(changes)) {
    if (field in body) {
      const current = body[field];
      delete body[field];
      if (value !== '') body[value] = current;
    } else {
      body[field] = value;
    }
  }
  return body;
}

export const jsonKind: ChannelKind<JsonTarget> = {
  kind: 'json',
  label,
  schemes: ['json', 'jsons'],
  parse,
  describe(target) {
    const url = new URL(target.url);
    // The path and query may hold a key: only the origin is shown.
    return `JSON ${target.method} to ${url.origin}${url.pathname === '/' ? '' : '/…'}${target.user ? `, as ${target.user}` : ''}`;
  },
  async send(target, message, context) {
    const url = new URL(target.url);
    if (target.user !== null) {
      url.username = encodeURIComponent(target.user);
      url.password = encodeURIComponent(target.password ?? '');
    }
    return sendChannelRequest(
      { url, method: target.method, headers: { 'idempotency-key': context.idempotencyKey, ...target.headers }, json: jsonBody(message, target.payload) },
      context,
      { label, secrets: [target.password, ...Object.values(target.headers)] },
    );
  },
};
