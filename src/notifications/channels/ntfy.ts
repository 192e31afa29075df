import type { ChannelKind, ChannelTarget } from './channel.ts';
import { publicServiceUrls } from './channel.ts';
import { bad, booleanOption, parseAppriseUrl, peerOrigin, redact, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { sendChannelRequest } from './channel-http.ts';
import { fitBytes, fitChars } from './render.ts';

/**
 * ntfy (ntfy.sh or a server of one's own): `ntfy://topic` (ntfy.sh), `ntfy://host/topic`,
 * `ntfys://host/topic` (https), with `user:password@`, `token@` or `?token=` for access, and
 * `priority`, `tags`, `click`, `image` options, as Apprise reads them. Sent as ntfy's JSON publish
 * (`POST /` with topic, title, message, tags, priority, click, attach, actions).
 */
export interface NtfyTarget extends ChannelTarget {
  kind: 'ntfy';
  /** Null for ntfy.sh (the context's public address); else `http(s)://host:port`. */
  server: string | null;
  topic: string;
  auth: { type: 'token'; token: string } | { type: 'basic'; user: string; password: string } | null;
  /** 1 (min) to 5 (max); null follows the message's urgency. */
  priority: number | null;
  tags: string[];
  /** Overrides the item's page as the click link. */
  click: string | null;
  /** Attach the poster. */
  image: boolean;
}

const label = 'ntfy';
const topicPattern = /^[a-z0-9_-]{1,64}$/i;
/** ntfy's priority words (and Apprise's), by their first letters, longest first. */
const priorityWords: [string, number][] = [
  ['mi', 1],
  ['ma', 5],
  ['mo', 2],
  ['l', 2],
  ['n', 3],
  ['d', 3],
  ['h', 4],
  ['e', 5],
  ['1', 1],
  ['2', 2],
  ['3', 3],
  ['4', 4],
  ['5', 5],
];
/** ntfy's own message bound (message-size-limit, 4 KB by default): longer ones become attachments. */
const maxMessageBytes = 4000;
const maxTitleChars = 250;
/** Tags that ntfy shows as emojis, by event. */
const eventTags: Record<string, string> = {
  'episodes-released': 'tv',
  'season-premiere': 'tv',
  'series-premiere': 'tv',
  'season-finale': 'tv',
  'film-released': 'movie_camera',
  'game-released': 'video_game',
  'release-date-moved': 'date',
  'show-status-changed': 'tv',
  'daily-digest': 'calendar',
  'weekly-premieres': 'calendar',
  'channel-disabled': 'warning',
  'quiet-hours-summary': 'zzz',
  test: 'white_check_mark',
};

function parse(text: string): NtfyTarget {
  const url = parseAppriseUrl(text, label);
  refuseUnknownOptions(url, ['priority', 'tags', 'xtags', 'token', 'auth', 'mode', 'click', 'image', 'to'], label);
  const topics = [...url.path, ...(textOption(url, 'to')?.split(/[,\s]+/).filter(Boolean) ?? [])];
  const mode = textOption(url, 'mode')?.toLowerCase();
  if (mode !== undefined && mode !== 'cloud' && mode !== 'private') throw bad(label, `mode= must be cloud or private, not "${mode.slice(0, 20)}"`);
  // Apprise's rule: a host with topics after it is a server of one's own, unless it is ntfy.sh;
  // `ntfy://topic` alone is a topic on ntfy.sh.
  const cloud = mode === 'cloud' || (mode === undefined && (topics.length === 0 || /(^|\.)ntfy\.sh$/i.test(url.host)));
  if (cloud && !/(^|\.)ntfy\.sh$/i.test(url.host) && url.host !== '') topics.unshift(url.host);
  if (topics.length === 0) throw bad(label, 'the topic is missing (ntfy://topic, or ntfy://host/topic)');
  if (topics.length > 1) throw bad(label, 'one topic per channel: a retry would send the message again to every topic that had it; add a channel for each topic');
  const topic = topics[0]!;
  if (!topicPattern.test(topic)) throw bad(label, 'the topic must be 1 to 64 letters, digits, _ or -');
  const server = cloud ? null : peerOrigin(url, url.scheme === 'ntfys', label).origin;
  return {
    kind: 'ntfy',
    server,
    topic,
    auth: readAuth(url),
    priority: readPriority(textOption(url, 'priority')),
    tags: (textOption(url, 'tags', 'xtags') ?? '').split(/[,\s]+/).filter(Boolean).slice(0, 10),
    click: readClick(textOption(url, 'click')),
    image: booleanOption(url, 'image', true, label),
  };
}

function readAuth(url: ReturnType<typeof parseAppriseUrl>): NtfyTarget['auth'] {
  const token = textOption(url, 'token');
  const auth = textOption(url, 'auth')?.toLowerCase();
  if (auth !== undefined && auth !== 'token' && auth !== 'basic') throw bad(label, `auth= must be token or basic, not "${auth.slice(0, 20)}"`);
  if (token !== undefined) return { type: 'token', token };
  if (url.user === null || url.user === '') return null;
  // A lone user that looks like an access token (tk_…) is one, as Apprise guesses.
  if (auth === 'token' || (auth === undefined && url.password === null && /^tk_\S+$/i.test(url.user))) return { type: 'token', token: url.password ?? url.user };
  return { type: 'basic', user: url.user, password: url.password ?? '' };
}

function readPriority(value: string | undefined): number | null {
  if (value === undefined) return null;
  const word = value.toLowerCase();
  const match = priorityWords.find(([prefix]) => word.startsWith(prefix));
  if (!match) throw bad(label, `priority= must be min, low, default, high, max or 1 to 5, not "${value.slice(0, 20)}"`);
  return match[1];
}

function readClick(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw bad(label, 'click= must be an http(s) URL');
  return value;
}

const urgencyPriority = { low: 2, normal: 3, high: 4 } as const;

export const ntfyKind: ChannelKind<NtfyTarget> = {
  kind: 'ntfy',
  label,
  schemes: ['ntfy', 'ntfys'],
  parse,
  describe(target) {
    // On ntfy.sh the topic is the only key to it: shown only by its start.
    const where = target.server === null ? `ntfy.sh, topic ${redact(target.topic, 3)}` : `${target.server}, topic ${target.topic}`;
    const access = target.auth === null ? '' : target.auth.type === 'token' ? ', with an access token' : `, as ${target.auth.user}`;
    return `ntfy: ${where}${access}`;
  },
  async send(target, message, context) {
    const server = target.server ?? context.serviceUrls?.ntfy ?? publicServiceUrls.ntfy;
    const headers: Record<string, string> = {};
    if (target.auth?.type === 'token') headers.authorization = `Bearer ${target.auth.token}`;
    if (target.auth?.type === 'basic') headers.authorization = `Basic ${Buffer.from(`${target.auth.user}:${target.auth.password}`).toString('base64')}`;
    const tags = [...new Set([eventTags[message.event] ?? 'bell', ...target.tags])];
    const click = target.click ?? message.link;
    const body: Record<string, unknown> = {
      topic: target.topic,
      title: fitChars(message.title, maxTitleChars),
      message: fitBytes(message.body, maxMessageBytes),
      tags,
      priority: target.priority ?? urgencyPriority[message.urgency],
    };
    if (click) body.click = click;
    if (target.image && message.poster) body.attach = message.poster;
    if (message.action) body.actions = [{ action: 'http', label: message.action.label, url: message.action.url, method: 'POST', clear: true }];
    const secrets = target.auth?.type === 'token' ? [target.auth.token] : target.auth?.type === 'basic' ? [target.auth.password] : [];
    return sendChannelRequest({ url: new URL('/', server), headers, json: body }, context, { label, secrets: target.server === null ? [...secrets, target.topic] : secrets });
  },
};
