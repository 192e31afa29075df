import { InputError } from '../../errors.ts';
import { isMailAddress } from '../../mail/mail-server.ts';
import type { ChannelKind, ChannelMessage, ParseContext, SendContext, SendOutcome } from './channel.ts';
import { maxChannelUrlLength } from './apprise-url.ts';
import { appriseApiKind } from './apprise-api.ts';
import type { AppriseApiTarget } from './apprise-api.ts';
import { discordKind } from './discord.ts';
import type { DiscordTarget } from './discord.ts';
import { gotifyKind } from './gotify.ts';
import type { GotifyTarget } from './gotify.ts';
import { jsonKind } from './json.ts';
import type { JsonTarget } from './json.ts';
import { mailKind } from './mail.ts';
import type { MailTarget } from './mail.ts';
import { ntfyKind } from './ntfy.ts';
import type { NtfyTarget } from './ntfy.ts';
import { pushoverKind } from './pushover.ts';
import type { PushoverTarget } from './pushover.ts';
import { signedWebhookKind } from './signed-webhook.ts';
import type { SignedWebhookTarget } from './signed-webhook.ts';
import { telegramKind } from './telegram.ts';
import type { TelegramTarget } from './telegram.ts';
import { webPushKind } from './web-push.ts';
import type { WebPushTarget } from './web-push.ts';

/** Any channel's parsed target. */
export type AnyChannelTarget =
  | NtfyTarget
  | GotifyTarget
  | DiscordTarget
  | TelegramTarget
  | PushoverTarget
  | MailTarget
  | JsonTarget
  | AppriseApiTarget
  | SignedWebhookTarget
  | WebPushTarget;

/** Every kind, once: the one list the rest of Airdate reads kinds from. */
export const channelKinds = [ntfyKind, gotifyKind, discordKind, telegramKind, pushoverKind, mailKind, jsonKind, appriseApiKind, signedWebhookKind, webPushKind] as const;

const kindsByScheme = new Map<string, ChannelKind<AnyChannelTarget>>();
for (const kind of channelKinds) {
  for (const scheme of kind.schemes) kindsByScheme.set(scheme, kind as unknown as ChannelKind<AnyChannelTarget>);
}

/** The URL schemes people can paste, for messages and the settings page. */
export const channelSchemes: readonly string[] = [...kindsByScheme.keys()];

function kindOf(target: AnyChannelTarget): ChannelKind<AnyChannelTarget> {
  const kind = channelKinds.find((entry) => entry.kind === target.kind);
  if (!kind) throw new Error(`unknown channel kind ${String((target as { kind: unknown }).kind)}`);
  return kind as unknown as ChannelKind<AnyChannelTarget>;
}

/**
 * A channel URL in Apprise's notation (or a plain e-mail address when the server has a mail
 * server) as its kind's target; InputError naming the part at fault otherwise (never a token).
 */
export function parseChannelUrl(url: string, context: ParseContext): AnyChannelTarget {
  if (typeof url !== 'string' || url.trim() === '') throw new InputError('the channel URL is empty', 'url');
  if (url.length > maxChannelUrlLength) throw new InputError(`the channel URL is longer than ${maxChannelUrlLength} characters`, 'url');
  const text = url.trim();
  if (/^mailto:(?!\/\/)/i.test(text) || isMailAddress(text)) return mailKind.parse(text, context);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) throw new InputError(`not a channel URL: write scheme://…, one of ${channelSchemes.map((entry) => `${entry}://`).join(', ')}`, 'url');
  const kind = kindsByScheme.get(scheme);
  if (!kind) throw new InputError(`${scheme}:// is not a channel Airdate sends to; use one of ${channelSchemes.map((entry) => `${entry}://`).join(', ')}`, 'url');
  return kind.parse(text, context);
}

/** Where a channel sends, for display, every secret redacted. */
export function describeChannel(target: AnyChannelTarget): string {
  return kindOf(target).describe(target);
}

/** One attempt to send `message` on the channel; never throws. */
export function sendToChannel(target: AnyChannelTarget, message: ChannelMessage, context: SendContext): Promise<SendOutcome> {
  return kindOf(target).send(target, message, context);
}
