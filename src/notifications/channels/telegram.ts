import type { ChannelKind, ChannelMessage, ChannelTarget, SendContext } from './channel.ts';
import { publicServiceUrls } from './channel.ts';
import { bad, booleanOption, parseAppriseUrl, redact, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { plain, secondsToMs, sendChannelRequest } from './channel-http.ts';
import type { ReadAnswer } from './channel-http.ts';
import { escapeHtml, fitEscaped } from './render.ts';

/**
 * Telegram bots: `tgram://bot_token/chat_id` (a chat id, `-100…` for a group, or `@channelname`;
 * `chat_id:thread` for a forum topic), with `?thread=`, `silent=yes`, `preview=yes`, `image=no`,
 * as Apprise reads them. Sent with `sendPhoto` (the poster, the text as its caption) or
 * `sendMessage`, in Telegram's HTML parse mode with every piece of text escaped.
 */
export interface TelegramTarget extends ChannelTarget {
  kind: 'telegram';
  botToken: string;
  chatId: string;
  threadId: number | null;
  silent: boolean;
  preview: boolean;
  image: boolean;
}

const label = 'Telegram';
/** Telegram's bounds: a message's text 4096 characters, a photo's caption 1024 (after entities). */
const limits = { text: 4096, caption: 1024 };

function parse(text: string): TelegramTarget {
  // The token holds a colon (123456:ABC…), which a URL parser would read as a port: take it first.
  const match = /^tgram:\/\/(?:bot)?(\d+)(?::|%3A)([A-Za-z0-9_-]+)(.*)$/i.exec(text.trim());
  if (!match) {
    if (/^tgram:\/\//i.test(text.trim())) throw bad(label, 'the bot token must be <digits>:<letters, digits, _ or -> as BotFather gives it (tgram://123456789:ABC…/chat_id)');
    throw bad(label, 'not a tgram:// URL');
  }
  const [, botId, botSecret, rest] = match as unknown as [string, string, string, string];
  const url = parseAppriseUrl(`tgram://bot${rest.startsWith('/') || rest.startsWith('?') || rest === '' ? rest : `/${rest}`}`, label);
  refuseUnknownOptions(url, ['thread', 'topic', 'silent', 'preview', 'image', 'to', 'detect', 'mdv', 'content'], label);
  const chats = [...url.path, ...(textOption(url, 'to')?.split(/[,\s]+/).filter(Boolean) ?? [])];
  if (chats.length === 0) throw bad(label, 'the chat id is missing (tgram://bot_token/chat_id); Airdate does not guess it from the bot\'s updates');
  if (chats.length > 1) throw bad(label, 'one chat per channel: a retry would send the message again to every chat that had it; add a channel for each chat');
  const chat = /^(?:(-?\d{1,32})|@?([a-z_][a-z0-9_-]+))(?::(\d+))?$/i.exec(chats[0]!);
  if (!chat) throw bad(label, `"${chats[0]!.slice(0, 40)}" is not a chat id (digits, -100… for a group) or @channelname`);
  const threadText = chat[3] ?? textOption(url, 'thread', 'topic');
  if (threadText !== undefined && !/^\d{1,20}$/.test(threadText)) throw bad(label, 'thread= must be a topic id (digits)');
  return {
    kind: 'telegram',
    botToken: `${botId}:${botSecret}`,
    chatId: chat[1] ?? `@${chat[2]}`,
    threadId: threadText === undefined ? null : Number(threadText),
    silent: booleanOption(url, 'silent', false, label),
    preview: booleanOption(url, 'preview', false, label),
    image: booleanOption(url, 'image', true, label),
  };
}

/** The text in Telegram's HTML: the title bold, the body, a link to the item's page; each escaped. */
function html(message: ChannelMessage, max: number): string {
  const link = message.link ? `\n<a href="${escapeHtml(message.link)}">Open in Airdate</a>` : '';
  const title = `<b>${fitEscaped(message.title, 300, escapeHtml)}</b>\n`;
  return title + fitEscaped(message.body, max - title.length - link.length, escapeHtml) + link;
}

/** Telegram answers `{ ok: false, error_code, description, parameters: { retry_after } }`. */
const readAnswer: ReadAnswer = (answer, parsed) => {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const body = parsed as { ok?: unknown; description?: unknown; parameters?: { retry_after?: unknown } };
  const detail = typeof body.description === 'string' ? plain(body.description) : undefined;
  if (body.ok === false && answer.status >= 200 && answer.status < 300) return { outcome: 'failed', detail };
  const retryAfterMs = secondsToMs(body.parameters?.retry_after);
  return { detail, ...(retryAfterMs !== null ? { outcome: 'retry' as const, retryAfterMs } : {}) };
};

async function send(target: TelegramTarget, message: ChannelMessage, context: SendContext) {
  const base = context.serviceUrls?.telegram ?? publicServiceUrls.telegram;
  const common: Record<string, unknown> = { chat_id: target.chatId, parse_mode: 'HTML', disable_notification: target.silent };
  if (target.threadId !== null) common.message_thread_id = target.threadId;
  const call = (method: string, body: Record<string, unknown>) =>
    sendChannelRequest({ url: new URL(`${base}/bot${target.botToken}/${method}`), json: { ...common, ...body } }, context, { label, secrets: [target.botToken, target.botToken.split(':')[1]], readAnswer });
  if (target.image && message.poster) {
    const outcome = await call('sendPhoto', { photo: message.poster, caption: html(message, limits.caption) });
    // Telegram could not fetch the poster (it fetches it itself): the text alone still goes.
    if (!(outcome.outcome === 'failed' && outcome.status === 400 && /photo|image|url|file|wrong type/i.test(outcome.reason))) return outcome;
  }
  return call('sendMessage', { text: html(message, limits.text), link_preview_options: { is_disabled: !target.preview } });
}

export const telegramKind: ChannelKind<TelegramTarget> = {
  kind: 'telegram',
  label,
  schemes: ['tgram'],
  parse,
  describe(target) {
    return `Telegram: bot ${target.botToken.split(':')[0]} (token ${redact(target.botToken.split(':')[1]!, 0)}), chat ${target.chatId}${target.threadId === null ? '' : `, topic ${target.threadId}`}`;
  },
  send,
};
