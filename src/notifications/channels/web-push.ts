import { createECDH } from 'node:crypto';
import { InputError } from '../../errors.ts';
import type { ChannelKind, ChannelMessage, ChannelTarget, SendContext, SendOutcome } from './channel.ts';
import { sendChannelRequest } from './channel-http.ts';
import { fitBytes } from './render.ts';
import { encryptionOverheadBytes, encryptPushMessage, vapidAuthorization } from './web-push-encryption.ts';

/** A browser's push subscription (PushSubscription.toJSON()): not an Apprise URL. */
export interface WebPushTarget extends ChannelTarget {
  kind: 'webpush';
  endpoint: string;
  /** base64url, as the browser gives them. */
  p256dh: string;
  auth: string;
}

/** What a browser hands over when it subscribes. */
export interface WebPushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** Push services take at least 4096 bytes of encrypted body (RFC 8030 §7.2); the plaintext gets what the encryption leaves. */
export const maxPushPlaintextBytes = 4096 - encryptionOverheadBytes;
/** How long a push service keeps a message for a device that is offline: a release older than a day is no news. */
export const pushTtlSeconds = 24 * 60 * 60;
const maxEndpointLength = 2048;

function refuse(message: string): InputError {
  return new InputError(`web push: ${message}`, 'subscription');
}

/**
 * Checks a subscription: an https endpoint (every push service's is), a P-256 public key (65
 * bytes, a point on the curve) and a 16-byte auth secret, all base64url.
 */
export function parseWebPushSubscription(input: WebPushSubscriptionInput): WebPushTarget {
  const { endpoint } = input;
  if (typeof endpoint !== 'string' || endpoint.length > maxEndpointLength || !URL.canParse(endpoint)) throw refuse(`the endpoint is not a URL of at most ${maxEndpointLength} characters`);
  const url = new URL(endpoint);
  if (url.protocol !== 'https:') throw refuse('the endpoint must be an https:// URL');
  if (url.username !== '' || url.password !== '') throw refuse('the endpoint must not hold a user name or password');
  const p256dh = decodeKey(input.keys?.p256dh, 'p256dh');
  const auth = decodeKey(input.keys?.auth, 'auth');
  if (p256dh.length !== 65 || p256dh[0] !== 4) throw refuse('keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)');
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(p256dh);
  } catch {
    throw refuse('keys.p256dh is not a point on the P-256 curve');
  }
  if (auth.length !== 16) throw refuse('keys.auth must be 16 bytes (base64url)');
  return { kind: 'webpush', endpoint: url.href, p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') };
}

function decodeKey(value: unknown, name: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value) || value.length > 200) throw refuse(`keys.${name} is not base64url`);
  return Buffer.from(value, 'base64url');
}

/** The JSON the app's service worker reads, bounded to what one push message carries. */
export function webPushPayload(message: ChannelMessage): Buffer {
  const payload = {
    event: message.event,
    title: message.title,
    body: message.body,
    url: message.link,
    image: message.poster,
    tag: message.topic,
    action: message.action,
  };
  const encode = () => Buffer.from(JSON.stringify(payload), 'utf8');
  if (encode().length <= maxPushPlaintextBytes) return encode();
  // Too long: the body gives way first (JSON escapes can double a character, hence the halving).
  const spare = maxPushPlaintextBytes - (encode().length - Buffer.byteLength(JSON.stringify(payload.body)));
  payload.body = fitBytes(payload.body, Math.max(0, Math.floor(spare / 2)));
  if (encode().length > maxPushPlaintextBytes) payload.title = fitBytes(payload.title, 200);
  if (encode().length > maxPushPlaintextBytes) payload.image = null;
  return encode();
}

const urgencies = { low: 'low', normal: 'normal', high: 'high' } as const;

async function send(target: WebPushTarget, message: ChannelMessage, context: SendContext): Promise<SendOutcome> {
  const endpoint = new URL(target.endpoint);
  const body = encryptPushMessage(webPushPayload(message), { p256dh: Buffer.from(target.p256dh, 'base64url'), auth: Buffer.from(target.auth, 'base64url') });
  return sendChannelRequest(
    {
      url: endpoint,
      headers: {
        ttl: String(pushTtlSeconds),
        urgency: urgencies[message.urgency],
        // RFC 8030 §5.4: a newer message with the same topic replaces one not yet delivered.
        topic: message.topic,
        'content-encoding': 'aes128gcm',
        authorization: vapidAuthorization({ endpoint, keys: context.vapid, subject: context.publicOrigin, now: context.now() }),
      },
      body: { bytes: body, contentType: 'application/octet-stream' },
    },
    context,
    // The endpoint's path is the subscription's capability: never in a reason.
    { label: 'the push service', secrets: [endpoint.pathname.length > 8 ? endpoint.pathname : null, target.auth], goneOn404: true },
  );
}

export const webPushKind: ChannelKind<WebPushTarget> = {
  kind: 'webpush',
  label: 'Web push',
  schemes: [],
  parse() {
    throw refuse('a web push channel is a browser subscription, not a URL');
  },
  describe(target) {
    return `Web push to a browser via ${new URL(target.endpoint).host}`;
  },
  send,
};
