import type { ChannelKind, ChannelTarget } from './channel.ts';
import { publicServiceUrls } from './channel.ts';
import { bad, booleanOption, parseAppriseUrl, pathSegment, redact, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { secondsToMs, sendChannelRequest } from './channel-http.ts';
import { escapeMarkdown, fitChars, fitEscaped } from './render.ts';

/**
 * Discord webhooks: `discord://webhook_id/webhook_token`, `discord://botname@webhook_id/webhook_token`,
 * with `?thread=` (a thread of a forum channel), `avatar_url=` and `image=no` (no poster), as
 * Apprise reads them. Sent as one embed (title linking to the item's page, description, the poster
 * as thumbnail) to `POST /api/webhooks/{id}/{token}?wait=true`, with mentions turned off.
 */
export interface DiscordTarget extends ChannelTarget {
  kind: 'discord';
  webhookId: string;
  webhookToken: string;
  botName: string | null;
  avatarUrl: string | null;
  threadId: string | null;
  image: boolean;
}

const label = 'Discord';
/** Discord's embed bounds: title 256, description 4096, the whole message 6000; a username 80. */
const limits = { title: 256, description: 4096, username: 80 };
/** Airdate's colour on an embed's edge. */
const embedColour = 0x3b82f6;

function parse(text: string): DiscordTarget {
  const url = parseAppriseUrl(text, label);
  refuseUnknownOptions(url, ['botname', 'thread', 'avatar_url', 'image', 'avatar', 'tts', 'footer', 'fields'], label);
  const webhookId = url.host;
  const webhookToken = url.path[0];
  if (webhookId === '') throw bad(label, 'the webhook id is missing (discord://webhook_id/webhook_token)');
  if (!/^\d{1,30}$/.test(webhookId)) throw bad(label, 'the webhook id (after discord://) must be digits');
  if (webhookToken === undefined) throw bad(label, 'the webhook token is missing (discord://webhook_id/webhook_token)');
  if (!/^[A-Za-z0-9_-]{10,200}$/.test(webhookToken)) throw bad(label, 'the webhook token (the path after the id) holds characters a Discord token never has');
  if (url.path.length > 1) throw bad(label, 'unexpected path after the webhook token');
  if (url.port !== null || url.password !== null) throw bad(label, 'a Discord URL has no port or password');
  const avatarUrl = textOption(url, 'avatar_url') ?? null;
  if (avatarUrl !== null && (!URL.canParse(avatarUrl) || new URL(avatarUrl).protocol !== 'https:')) throw bad(label, 'avatar_url= must be an https URL');
  const threadId = textOption(url, 'thread') ?? null;
  if (threadId !== null && !/^\d{1,30}$/.test(threadId)) throw bad(label, 'thread= must be a thread id (digits)');
  const botName = textOption(url, 'botname') ?? url.user;
  return {
    kind: 'discord',
    webhookId,
    webhookToken,
    botName: botName ? fitChars(botName, limits.username) : null,
    avatarUrl,
    threadId,
    image: booleanOption(url, 'image', true, label),
  };
}

export const discordKind: ChannelKind<DiscordTarget> = {
  kind: 'discord',
  label,
  schemes: ['discord'],
  parse,
  describe(target) {
    return `Discord: webhook ${redact(target.webhookId, 4)}${target.threadId ? `, thread ${target.threadId}` : ''}${target.botName ? `, as ${target.botName}` : ''}`;
  },
  async send(target, message, context) {
    const base = context.serviceUrls?.discord ?? publicServiceUrls.discord;
    const url = new URL(`${base}/${pathSegment(target.webhookId)}/${pathSegment(target.webhookToken)}`);
    url.searchParams.set('wait', 'true');
    if (target.threadId) url.searchParams.set('thread_id', target.threadId);
    const embed: Record<string, unknown> = {
      title: fitEscaped(message.title, limits.title, escapeMarkdown),
      description: fitEscaped(message.body, limits.description, escapeMarkdown),
      color: embedColour,
    };
    if (message.link) embed.url = message.link;
    if (target.image && message.poster) embed.thumbnail = { url: message.poster };
    const body: Record<string, unknown> = { embeds: [embed], allowed_mentions: { parse: [] } };
    if (target.botName) body.username = target.botName;
    if (target.avatarUrl) body.avatar_url = target.avatarUrl;
    return sendChannelRequest({ url, json: body }, context, {
      label,
      secrets: [target.webhookToken],
      // Discord's 429 says how long to wait in its body too (seconds, fractional), more precisely than Retry-After.
      readAnswer: (answer, parsed) =>
        answer.status === 429 && typeof parsed === 'object' && parsed !== null ? { retryAfterMs: secondsToMs((parsed as { retry_after?: unknown }).retry_after) } : null,
    });
  },
};
