import type { ChannelKind, ChannelTarget } from './channel.ts';
import { bad, extraHeaders, parseAppriseUrl, pathSegment, peerOrigin, redact, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { sendChannelRequest } from './channel-http.ts';

/**
 * An Apprise API server, for the long tail of services: `apprise://host[:port][/path]/key` posts
 * to its stored configuration (`POST /notify/{key}`, with `tags=` choosing among its URLs);
 * `apprise://host/?urls=<encoded Apprise URLs>` (no key) uses its stateless `POST /notify/` with
 * the URLs in the request. `apprises://` is https; `user:password@` Basic; `method=json|form`
 * (form by default, as Apprise); `+Header=value` headers.
 */
export interface AppriseApiTarget extends ChannelTarget {
  kind: 'apprise';
  /** `http(s)://host:port` and the path before `/notify`. */
  server: string;
  basePath: string;
  /** The configuration key, or null for the stateless endpoint. */
  key: string | null;
  /** For the stateless endpoint: the Apprise URLs to notify. */
  urls: string | null;
  tags: string[];
  method: 'form' | 'json';
  user: string | null;
  password: string | null;
  headers: Record<string, string>;
}

const label = 'Apprise API';

function parse(text: string): AppriseApiTarget {
  const url = parseAppriseUrl(text, label);
  refuseUnknownOptions(url, ['tags', 'tag', 'method', 'to', 'urls'], label);
  const origin = peerOrigin(url, url.scheme === 'apprises', label);
  const urls = textOption(url, 'urls') ?? null;
  const path = [...url.path];
  let key: string | null = textOption(url, 'to') ?? null;
  if (key === null && urls === null) key = path.pop() ?? null;
  if (key === null && urls === null) throw bad(label, 'the configuration key is missing (apprise://host/key), or give urls= for the stateless endpoint');
  if (key !== null && urls !== null) throw bad(label, 'give either a configuration key or urls=, not both');
  if (key !== null && !/^[A-Za-z0-9_-]{1,128}$/.test(key)) throw bad(label, 'the configuration key (the last part of the path) must be 1 to 128 letters, digits, _ or -');
  if (urls !== null && urls.length > 2048) throw bad(label, 'urls= is longer than 2048 characters');
  const method = (textOption(url, 'method') ?? 'form').toLowerCase();
  if (method !== 'form' && method !== 'json') throw bad(label, `method= must be form or json, not "${method.slice(0, 10)}"`);
  return {
    kind: 'apprise',
    server: origin.origin,
    basePath: path.length === 0 ? '' : `/${path.map(pathSegment).join('/')}`,
    key,
    urls,
    tags: (textOption(url, 'tags', 'tag') ?? '').split(/[,\s]+/).filter(Boolean),
    method,
    user: url.user,
    password: url.password,
    headers: extraHeaders(url, label),
  };
}

export const appriseApiKind: ChannelKind<AppriseApiTarget> = {
  kind: 'apprise',
  label,
  schemes: ['apprise', 'apprises'],
  parse,
  describe(target) {
    const what = target.key === null ? 'its stateless endpoint' : `key ${redact(target.key, 3)}`;
    return `Apprise API: ${target.server}${target.basePath}, ${what}${target.tags.length > 0 ? `, tags ${target.tags.join(', ')}` : ''}`;
  },
  async send(target, message, context) {
    const url = new URL(`${target.basePath}/notify/${target.key === null ? '' : pathSegment(target.key)}`, target.server);
    if (target.user !== null) {
      url.username = encodeURIComponent(target.user);
      url.password = encodeURIComponent(target.password ?? '');
    }
    const body = [message.body, message.link].filter((line): line is string => line !== null && line !== '').join('\n\n');
    const fields: Record<string, string | string[]> = { title: message.title, body, type: message.event === 'channel-disabled' ? 'warning' : 'info', format: 'text' };
    if (target.tags.length > 0) fields.tag = target.tags.join(',');
    if (target.urls !== null) fields.urls = target.urls;
    const headers = { accept: 'application/json', 'idempotency-key': context.idempotencyKey, ...target.headers };
    const request = target.method === 'json' ? { url, headers, json: fields } : { url, headers, form: fields };
    return sendChannelRequest(request, context, { label, secrets: [target.password, target.key, target.urls, ...Object.values(target.headers)] });
  },
};
