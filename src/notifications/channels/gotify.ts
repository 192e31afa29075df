import type { ChannelKind, ChannelTarget } from './channel.ts';
import { bad, parseAppriseUrl, pathSegment, peerOrigin, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { sendChannelRequest } from './channel-http.ts';
import { escapeMarkdown, fitChars, fitEscaped, markdownUrl } from './render.ts';

/**
 * Gotify: `gotify://host/token`, `gotifys://host:port/sub/path/token` (https), `?priority=`
 * (low, moderate, normal, high, emergency or 0–10), as Apprise reads it. Sent as
 * `POST <path>/message` with the app token in `X-Gotify-Key`, the body as Markdown, the item's
 * page as the click link and the poster as the big image (Gotify's `extras`).
 */
export interface GotifyTarget extends ChannelTarget {
  kind: 'gotify';
  /** `http(s)://host:port` and the path before the token (`/` or `/sub/path/`). */
  server: string;
  basePath: string;
  token: string;
  priority: number | null;
}

const label = 'Gotify';
const priorityWords: [string, number][] = [
  ['10', 10],
  ['l', 0],
  ['m', 3],
  ['n', 5],
  ['h', 8],
  ['e', 10],
];
const maxTitleChars = 250;
const maxMessageChars = 4000;

function parse(text: string): GotifyTarget {
  const url = parseAppriseUrl(text, label);
  refuseUnknownOptions(url, ['priority'], label);
  const origin = peerOrigin(url, url.scheme === 'gotifys', label);
  const token = url.path.at(-1);
  if (token === undefined) throw bad(label, 'the application token is missing (gotify://host/token)');
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(token)) throw bad(label, 'the application token (the last part of the path) holds characters a Gotify token never has');
  const before = url.path.slice(0, -1);
  return {
    kind: 'gotify',
    server: origin.origin,
    basePath: before.length === 0 ? '/' : `/${before.map(pathSegment).join('/')}/`,
    token,
    priority: readPriority(textOption(url, 'priority')),
  };
}

function readPriority(value: string | undefined): number | null {
  if (value === undefined) return null;
  if (/^\d+$/.test(value)) {
    const number = Number(value);
    if (number <= 10) return number;
  }
  const match = priorityWords.find(([prefix]) => value.toLowerCase().startsWith(prefix));
  if (!match) throw bad(label, `priority= must be low, moderate, normal, high, emergency or 0 to 10, not "${value.slice(0, 20)}"`);
  return match[1];
}

const urgencyPriority = { low: 3, normal: 5, high: 8 } as const;

export const gotifyKind: ChannelKind<GotifyTarget> = {
  kind: 'gotify',
  label,
  schemes: ['gotify', 'gotifys'],
  parse,
  describe(target) {
    return `Gotify: ${target.server}${target.basePath === '/' ? '' : target.basePath.slice(0, -1)}, with an application token`;
  },
  async send(target, message, context) {
    const link = message.link ? `\n\n[Open in Airdate](${markdownUrl(message.link)})` : '';
    const extras: Record<string, unknown> = { 'client::display': { contentType: 'text/markdown' } };
    const notification: Record<string, unknown> = {};
    if (message.link) notification.click = { url: message.link };
    if (message.poster) notification.bigImageUrl = message.poster;
    if (Object.keys(notification).length > 0) extras['client::notification'] = notification;
    return sendChannelRequest(
      {
        url: new URL(`${target.basePath}message`, target.server),
        headers: { 'x-gotify-key': target.token },
        json: {
          title: fitChars(message.title, maxTitleChars),
          message: fitEscaped(message.body, maxMessageChars - link.length, escapeMarkdown) + link,
          priority: target.priority ?? urgencyPriority[message.urgency],
          extras,
        },
      },
      context,
      { label, secrets: [target.token] },
    );
  },
};
