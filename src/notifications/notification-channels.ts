import { createHmac } from 'node:crypto';
import { db } from '../db/client.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { channelLimits } from '../limits.ts';
import { decryptSecret, encryptSecret } from '../keys/crypto.ts';
import { secretKey } from '../keys/secret-key.ts';
import type { NotificationChannel } from '../generated/prisma/client.ts';
import { resolveTarget } from '../webhooks/outbound-request.ts';
import { PolicyRefusal } from '../webhooks/send-helpers.ts';
import type { ChannelServices } from './channel-services.ts';
import { publicServiceUrls } from './channels/channel.ts';
import { describeChannel, parseChannelUrl } from './channels/channel-kinds.ts';
import type { AnyChannelTarget } from './channels/channel-kinds.ts';
import { parseWebPushSubscription } from './channels/web-push.ts';
import type { WebPushSubscriptionInput } from './channels/web-push.ts';
import { defaultChannelEvents, parseChannelEvents, storeChannelEvents } from './channel-events.ts';
import { deviceName } from './device-name.ts';

/**
 * An account's notification channels (docs/notifications.md): added from a URL in Apprise's
 * notation or a browser's push subscription, checked against the outbound policy when added (and
 * again by every send), stored encrypted, listed by their redacted summary. Every function takes
 * the account it acts for and finds nothing of another account's (NotFoundError).
 */

/** What a channel is set up from: a URL, or a browser's push subscription (kept as its JSON). */
type Source = { kind: 'url'; url: string } | { kind: 'webpush'; subscription: WebPushSubscriptionInput };

interface Opened {
  target: AnyChannelTarget;
  /** What is sealed into targetEnc. */
  plain: string;
}

function open(source: Source, services: ChannelServices): Opened {
  if (source.kind === 'webpush') {
    const target = parseWebPushSubscription(source.subscription);
    return { target, plain: JSON.stringify({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }) };
  }
  const target = parseChannelUrl(source.url, { smtpDefault: services.smtpDefault });
  return { target, plain: source.url.trim() };
}

/**
 * The same target is one channel per account: an HMAC under the secret key of what the channel
 * sends to (for web push, the endpoint alone, so that a browser subscribing again with new keys
 * updates its channel), never the URL itself.
 */
function targetDigest(target: AnyChannelTarget): string {
  const identity = target.kind === 'webpush' ? `webpush\n${target.endpoint}` : `${target.kind}\n${JSON.stringify(target)}`;
  return createHmac('sha256', secretKey()).update(`notification channel\n${identity}`).digest('base64url');
}

/**
 * Where a send to the target connects first (a hosted service's public address when the URL names
 * it only by token), or null when it goes through the operator's own mail server, which the
 * policy does not cover.
 */
function peerUrl(target: AnyChannelTarget, services: ChannelServices): URL | null {
  const hosted = { ...publicServiceUrls, ...services.serviceUrls };
  switch (target.kind) {
    case 'ntfy':
      return new URL(target.server ?? hosted.ntfy);
    case 'gotify':
    case 'apprise':
      return new URL(target.server);
    case 'discord':
      return new URL(hosted.discord);
    case 'telegram':
      return new URL(hosted.telegram);
    case 'pushover':
      return new URL(hosted.pushover);
    case 'mail':
      return target.server === null ? null : new URL(`smtp://${target.server.host.includes(':') ? `[${target.server.host}]` : target.server.host}`);
    case 'json':
    case 'webhook':
      return new URL(target.url);
    case 'webpush':
      return new URL(target.endpoint);
  }
}

/**
 * Refuses a target whose peer the outbound policy (AIRDATE_WEBHOOK_ALLOWED_HOSTS) refuses, as a
 * send would. A name that does not resolve now is let through: the send checks again, and says so.
 */
async function checkPolicy(target: AnyChannelTarget, services: ChannelServices, field: string): Promise<void> {
  const peer = peerUrl(target, services);
  if (peer === null) return;
  try {
    await resolveTarget(peer, services.policy, services.lookup);
  } catch (error) {
    if (error instanceof PolicyRefusal) throw new InputError(`this channel's server is not allowed (AIRDATE_WEBHOOK_ALLOWED_HOSTS): ${error.message}`, field);
  }
}

function channelName(name: string | null | undefined, fallback: string): string {
  const text = (name ?? '').trim().replace(/\s+/g, ' ');
  if ([...text].length > channelLimits.nameLength) throw new InputError(`a channel's name must be at most ${channelLimits.nameLength} characters`, 'name');
  return text === '' ? fallback : text;
}

/** Adds a row, refusing the same target twice and more than the account's bound (safe under concurrent adds). */
async function insertChannel(props: { accountId: number; name: string; opened: Opened; events: string[] }): Promise<NotificationChannel> {
  const digest = targetDigest(props.opened.target);
  const same = await db().notificationChannel.findUnique({ where: { accountId_targetDigest: { accountId: props.accountId, targetDigest: digest } }, select: { name: true } });
  if (same) throw new InputError(`this channel is already set up, as "${same.name}"`, 'url');
  let row: NotificationChannel;
  try {
    row = await db().notificationChannel.create({
      data: {
        accountId: props.accountId,
        name: props.name,
        kind: props.opened.target.kind,
        targetEnc: encryptSecret(props.opened.plain, secretKey()),
        targetDigest: digest,
        summary: describeChannel(props.opened.target),
        events: props.events.join(','),
      },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new InputError('this channel is already set up', 'url');
    throw error;
  }
  // Counted after the insert: of concurrent adds past the bound, each sees the others and removes its own.
  const count = await db().notificationChannel.count({ where: { accountId: props.accountId, id: { lte: row.id } } });
  if (count > channelLimits.perAccount) {
    await db().notificationChannel.delete({ where: { id: row.id } });
    throw new InputError(`an account has at most ${channelLimits.perAccount} notification channels; remove one first`, 'url');
  }
  return row;
}

/** Adds a channel from a URL in Apprise's notation (or a plain address when the server has a mail server). */
export async function addChannel(props: {
  accountId: number;
  url: string;
  name?: string | null;
  /** The events it takes; unset, the kind's defaults (channel-events.ts). */
  events?: readonly string[] | null;
  services: ChannelServices;
}): Promise<NotificationChannel> {
  const opened = open({ kind: 'url', url: props.url }, props.services);
  const events = props.events == null ? defaultChannelEvents(opened.target.kind) : parseChannelEvents(props.events);
  const name = channelName(props.name, describeChannel(opened.target));
  await checkPolicy(opened.target, props.services, 'url');
  return insertChannel({ accountId: props.accountId, name, opened, events });
}

/**
 * Subscribes a browser for web push: a channel of kind `webpush`, named after its browser. The
 * same browser subscribing again (same endpoint) updates its channel's keys and turns it back on.
 */
export async function subscribeWebPush(props: {
  accountId: number;
  subscription: WebPushSubscriptionInput;
  name?: string | null;
  userAgent?: string | null;
  services: ChannelServices;
}): Promise<NotificationChannel> {
  const opened = open({ kind: 'webpush', subscription: props.subscription }, props.services);
  await checkPolicy(opened.target, props.services, 'endpoint');
  const name = channelName(props.name, deviceName(props.userAgent));
  const existing = await db().notificationChannel.findUnique({
    where: { accountId_targetDigest: { accountId: props.accountId, targetDigest: targetDigest(opened.target) } },
    select: { id: true },
  });
  if (existing) {
    return db().notificationChannel.update({
      where: { id: existing.id },
      data: { targetEnc: encryptSecret(opened.plain, secretKey()), enabled: true, consecutiveFailures: 0, disabledAt: null, disabledReason: null, ...(props.name ? { name } : {}) },
    });
  }
  return insertChannel({ accountId: props.accountId, name, opened, events: defaultChannelEvents('webpush') });
}

/** The account's channel, or NotFoundError (another account's id included). */
export async function findChannel(props: { accountId: number; id: number }): Promise<NotificationChannel> {
  const row = await db().notificationChannel.findFirst({ where: { id: props.id, accountId: props.accountId } });
  if (!row) throw new NotFoundError(`unknown notification channel ${props.id}`);
  return row;
}

/**
 * Changes a channel: its name, URL (checked as when added), events, or on/off. Turning it on (or
 * giving a new URL) clears its failures and the reason it was turned off.
 */
export async function updateChannel(props: {
  accountId: number;
  id: number;
  name?: string | null;
  url?: string | null;
  events?: readonly string[] | null;
  enabled?: boolean | null;
  services: ChannelServices;
}): Promise<NotificationChannel> {
  const row = await findChannel(props);
  const data: Record<string, unknown> = {};
  if (props.name != null) data.name = channelName(props.name, row.name);
  if (props.events != null) data.events = storeChannelEvents(parseChannelEvents(props.events));
  if (props.url != null) {
    if (row.kind === 'webpush' || row.kind === 'webhook') throw new InputError(`a ${row.kind === 'webpush' ? 'web push subscription' : 'signed webhook'} has no channel URL to change`, 'url');
    const opened = open({ kind: 'url', url: props.url }, props.services);
    if (opened.target.kind !== row.kind) throw new InputError(`the URL is a ${opened.target.kind} channel; this one is ${row.kind}: add it as a new channel`, 'url');
    await checkPolicy(opened.target, props.services, 'url');
    Object.assign(data, { targetEnc: encryptSecret(opened.plain, secretKey()), targetDigest: targetDigest(opened.target), summary: describeChannel(opened.target) });
  }
  if (props.enabled != null) data.enabled = props.enabled;
  if (props.enabled === true || props.url != null) Object.assign(data, { consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  if (Object.keys(data).length === 0) return row;
  try {
    return await db().notificationChannel.update({ where: { id: row.id }, data });
  } catch (error) {
    if (isUniqueViolation(error)) throw new InputError('another channel of this account already sends there', 'url');
    throw error;
  }
}

/** Removes a channel; its delivery log stays in the account's notifications, without a channel. */
export async function removeChannel(props: { accountId: number; id: number }): Promise<void> {
  const { count } = await db().notificationChannel.deleteMany({ where: { id: props.id, accountId: props.accountId } });
  if (count === 0) throw new NotFoundError(`unknown notification channel ${props.id}`);
}

/** The channel's target, decrypted and parsed again (so that a send obeys today's parsers). */
export async function openChannel(row: Pick<NotificationChannel, 'kind' | 'targetEnc'>, services: Pick<ChannelServices, 'smtpDefault'>): Promise<AnyChannelTarget> {
  const plain = decryptSecret(row.targetEnc, secretKey());
  if (row.kind === 'webpush') return parseWebPushSubscription(JSON.parse(plain) as WebPushSubscriptionInput);
  return parseChannelUrl(plain, { smtpDefault: services.smtpDefault });
}
