import type { ChannelKind, ChannelTarget } from './channel.ts';
import { publicServiceUrls } from './channel.ts';
import { bad, parseAppriseUrl, redact, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { fetchImage, sendChannelRequest } from './channel-http.ts';
import { escapeHtml, fitChars, fitEscaped } from './render.ts';

/**
 * Pushover: `pover://user_key@app_token`, `pover://user_key@app_token/device1/device2`, with
 * `priority=` (low, moderate, normal, high or -2 to 1), `sound=`, `url=` and `url_title=`, as
 * Apprise reads them. Sent as Pushover's form (`POST /1/messages.json`), the text as HTML, the
 * item's page as the supplementary URL and the poster as the attachment.
 */
export interface PushoverTarget extends ChannelTarget {
  kind: 'pushover';
  userKey: string;
  appToken: string;
  devices: string[];
  priority: number | null;
  sound: string | null;
  url: string | null;
  urlTitle: string | null;
}

const label = 'Pushover';
/** Pushover's bounds: message 1024, title 250, url 512, url_title 100; an attachment 2.5 MB. */
const limits = { message: 1024, title: 250, url: 512, urlTitle: 100, attachmentBytes: 2_621_440 };
const priorityWords: [string, number][] = [
  ['-2', -2],
  ['-1', -1],
  ['0', 0],
  ['1', 1],
  ['l', -2],
  ['m', -1],
  ['n', 0],
  ['h', 1],
];

function parse(text: string): PushoverTarget {
  // Apprise lets a group key be written #group in the path; a # would end a URL's path, so keep it.
  const url = parseAppriseUrl(text.replace(/#/g, '%23'), label);
  refuseUnknownOptions(url, ['priority', 'sound', 'url', 'url_title', 'to'], label);
  const userKey = url.user;
  const appToken = url.host;
  if (userKey === null || userKey === '') throw bad(label, 'the user key is missing (pover://user_key@app_token)');
  if (!/^[A-Za-z0-9]{20,40}$/.test(userKey)) throw bad(label, 'the user key (before the @) must be the 30 letters and digits Pushover shows');
  if (!/^[A-Za-z0-9]{20,40}$/.test(appToken)) throw bad(label, "the application token (after the @) must be the 30 letters and digits of the application's API token");
  const devices = [...url.path, ...(textOption(url, 'to')?.split(/[,\s]+/).filter(Boolean) ?? [])];
  for (const device of devices) {
    if (!/^[a-z0-9_-]{1,25}$/i.test(device)) throw bad(label, `"${device.slice(0, 30)}" is not a device name (1 to 25 letters, digits, _ or -)`);
  }
  const priorityText = textOption(url, 'priority');
  let priority: number | null = null;
  if (priorityText !== undefined) {
    if (/^(e|2)/i.test(priorityText)) throw bad(label, 'priority=emergency asks to be acknowledged and repeated until then; Airdate does not send emergencies');
    const match = priorityWords.find(([prefix]) => priorityText.toLowerCase().startsWith(prefix));
    if (!match) throw bad(label, `priority= must be low, moderate, normal, high or -2 to 1, not "${priorityText.slice(0, 20)}"`);
    priority = match[1];
  }
  const sound = textOption(url, 'sound') ?? null;
  if (sound !== null && !/^[a-z]{1,20}$/i.test(sound)) throw bad(label, 'sound= must be the name of a Pushover sound');
  const link = textOption(url, 'url') ?? null;
  if (link !== null && (!URL.canParse(link) || link.length > limits.url)) throw bad(label, `url= must be a URL of at most ${limits.url} characters`);
  return { kind: 'pushover', userKey, appToken, devices, priority, sound, url: link, urlTitle: textOption(url, 'url_title') ?? null };
}

const urgencyPriority = { low: -1, normal: 0, high: 1 } as const;

export const pushoverKind: ChannelKind<PushoverTarget> = {
  kind: 'pushover',
  label,
  schemes: ['pover'],
  parse,
  describe(target) {
    return `Pushover: user ${redact(target.userKey)}${target.devices.length > 0 ? `, devices ${target.devices.join(', ')}` : ', every device'}`;
  },
  async send(target, message, context) {
    const form: Record<string, string> = {
      token: target.appToken,
      user: target.userKey,
      title: fitChars(message.title, limits.title),
      message: fitEscaped(message.body, limits.message, escapeHtml),
      html: '1',
      priority: String(target.priority ?? urgencyPriority[message.urgency]),
    };
    if (target.devices.length > 0) form.device = target.devices.join(',');
    if (target.sound) form.sound = target.sound;
    const link = target.url ?? message.link;
    if (link && link.length <= limits.url) {
      form.url = link;
      form.url_title = fitChars(target.urlTitle ?? 'Open in Airdate', limits.urlTitle);
    }
    if (message.poster) {
      // Pushover takes the picture itself, not its URL: fetched under the same outbound policy.
      const image = await fetchImage(message.poster, context, limits.attachmentBytes);
      if (image) {
        form.attachment_base64 = image.bytes.toString('base64');
        form.attachment_type = image.type;
      }
    }
    const url = new URL(context.serviceUrls?.pushover ?? publicServiceUrls.pushover);
    return sendChannelRequest({ url, form }, context, { label, secrets: [target.appToken, target.userKey] });
  },
};
