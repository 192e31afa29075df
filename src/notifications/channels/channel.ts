import type { LookupFunction } from '../../webhooks/outbound-request.ts';
import type { TargetPolicy } from '../../webhooks/target-policy.ts';
import type { NotificationText } from '../notification-text.ts';
import type { MailServer } from '../../mail/mail-server.ts';
import type { VapidKeys } from '../../keys/vapid-keys.ts';

/**
 * One message as every channel receives it: the text written once by notification-text.ts, plus
 * what only the caller knows. Channels render it (escape, bound, lay out) and never change what it
 * says.
 */
export interface ChannelMessage extends NotificationText {
  /**
   * A button that marks the item watched from the notification (ntfy's http action): the caller
   * makes the URL, which carries a scoped, revocable token (never the API token); the channel only
   * renders it. Null when the message is about no single watchable item.
   */
  action: { label: string; url: string } | null;
  /**
   * The body the signed webhook sends as it is (the release notifications of today keep their
   * stored JSON, byte for byte); null makes the webhook kind write one from the text.
   */
  webhookBody: string | null;
}

/** What a channel needs to know to parse a URL. */
export interface ParseContext {
  /**
   * The server-wide mail server (AIRDATE_SMTP_URL), when the operator set one: a plain address
   * (`me@example.com`, `mailto:me@example.com`) is then a mail channel through it.
   */
  smtpDefault: MailServer | undefined;
}

/** What the caller provides to one send. */
export interface SendContext {
  /** AIRDATE_WEBHOOK_ALLOWED_HOSTS, parsed: the peers a channel may connect to (mail servers included). */
  policy: TargetPolicy;
  /** Limit on one attempt (resolve, connect, answer), AIRDATE_WEBHOOK_TIMEOUT_MS. */
  timeoutMs: number;
  /**
   * The same for every attempt of one message on one channel (the delivery's key per channel and
   * event). The signed webhook sends it as `webhook-id`, JSON and Apprise API peers as
   * `Idempotency-Key`, mail as the Message-ID, so a peer that drops repeats sees each message once.
   */
  idempotencyKey: string;
  /** The server-wide mail server (AIRDATE_SMTP_URL), used by mail channels set up with a plain address. */
  smtpDefault: MailServer | undefined;
  /** The origin people open (AIRDATE_PUBLIC_URL), for the mail's footer link. */
  publicOrigin: string;
  /** The server's VAPID keys (src/keys/vapid-keys.ts), for web push. */
  vapid: VapidKeys;
  /** Clock for signatures, JWT expiry and HTTP-date Retry-After values. */
  now: () => Date;
  /** Resolver; `dns.lookup` unless given (tests). */
  lookup?: LookupFunction;
  /** Where the hosted services are (tests point them at local receivers); their public addresses unless given. */
  serviceUrls?: Partial<ServiceUrls>;
  /** Certificates trusted on top of the system's, for HTTPS and SMTP peers (tests with self-signed peers only). */
  trustedCertificates?: readonly string[];
}

/** The public addresses of the hosted services a URL names only by token. */
export interface ServiceUrls {
  /** ntfy's public server, for `ntfy://topic`. */
  ntfy: string;
  discord: string;
  telegram: string;
  pushover: string;
}

export const publicServiceUrls: ServiceUrls = {
  ntfy: 'https://ntfy.sh',
  discord: 'https://discord.com/api/webhooks',
  telegram: 'https://api.telegram.org',
  pushover: 'https://api.pushover.net/1/messages.json',
};

/**
 * How one send ended, for the delivery path: `delivered`; `retry` later (429, 5xx, a network
 * failure or timeout; `retryAfterMs` is the peer's Retry-After, or null); `failed` for good (any
 * other 4xx, a refused address, a bad answer); `gone` when a web push subscription no longer
 * exists (404/410: drop it). `reason` is short, safe to show and to log (no token, no URL).
 */
export type SendOutcome =
  | { outcome: 'delivered'; status: number | null; durationMs: number; answer: string | null }
  | { outcome: 'retry'; status: number | null; durationMs: number; answer: string | null; reason: string; retryAfterMs: number | null }
  | { outcome: 'failed'; status: number | null; durationMs: number; answer: string | null; reason: string }
  | { outcome: 'gone'; status: number; durationMs: number; answer: string | null; reason: string };

/** A parsed channel: plain data, with `kind` naming its module. */
export interface ChannelTarget {
  kind: string;
}

/**
 * A kind of channel (ntfy, Gotify, mail…): one module each, registered in channel-kinds.ts.
 * `parse` throws InputError naming the part at fault and never the value of a secret part.
 */
export interface ChannelKind<Target extends ChannelTarget> {
  /** The kind's name, also `Target['kind']`. */
  kind: Target['kind'];
  /** What people call it ("ntfy", "Telegram"). */
  label: string;
  /** The URL schemes it reads, lower case, without `://`. */
  schemes: readonly string[];
  parse(url: string, context: ParseContext): Target;
  /** For display (the settings page): where it goes, with every secret redacted. */
  describe(target: Target): string;
  /** One attempt; never throws: every problem is an outcome. */
  send(target: Target, message: ChannelMessage, context: SendContext): Promise<SendOutcome>;
}
