import { createCipheriv, createECDH, hkdfSync, randomBytes, sign } from 'node:crypto';
import type { ECDH } from 'node:crypto';
import type { VapidKeys } from '../../keys/vapid-keys.ts';

/**
 * Web push's message encryption (RFC 8291, `aes128gcm` of RFC 8188) and VAPID's signed token
 * (RFC 8292), with node:crypto. The `web-push` npm package does the same but sends the request
 * itself, outside the outbound address policy, and brings five dependencies for what is here
 * some sixty lines; these are checked byte for byte against RFC 8291's Appendix A.
 */

/** Bytes the encryption adds: the header (salt 16, record size 4, key id length 1, key 65), the padding delimiter 1 and the tag 16. */
export const encryptionOverheadBytes = 16 + 4 + 1 + 65 + 1 + 16;
/** One record holds the whole message (push services take 4096 bytes at most). */
const recordSize = 4096;

/** A subscription's keys: the browser's P-256 public key (65 bytes) and its 16-byte auth secret. */
export interface SubscriptionKeys {
  p256dh: Buffer;
  auth: Buffer;
}

/**
 * Encrypts `plaintext` for one subscription: a fresh sender key pair and salt each time (both can
 * be given, for the RFC's test vector). Returns the request body, header included.
 */
export function encryptPushMessage(plaintext: Buffer, keys: SubscriptionKeys, fixed: { sender?: ECDH; salt?: Buffer } = {}): Buffer {
  const sender = fixed.sender ?? createECDH('prime256v1');
  if (!fixed.sender) sender.generateKeys();
  const senderPublic = sender.getPublicKey();
  const salt = fixed.salt ?? randomBytes(16);
  const sharedSecret = sender.computeSecret(keys.p256dh);
  // RFC 8291 §3.4: the auth secret and both public keys bind the key to this subscription.
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0', 'latin1'), keys.p256dh, senderPublic]);
  const inputKey = Buffer.from(hkdfSync('sha256', sharedSecret, keys.auth, keyInfo, 32));
  const contentKey = Buffer.from(hkdfSync('sha256', inputKey, salt, Buffer.from('Content-Encoding: aes128gcm\0', 'latin1'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', inputKey, salt, Buffer.from('Content-Encoding: nonce\0', 'latin1'), 12));
  const cipher = createCipheriv('aes-128-gcm', contentKey, nonce);
  // One record, the last: the plaintext then the delimiter 0x02 (RFC 8188 §2), no further padding.
  const ciphertext = Buffer.concat([cipher.update(Buffer.concat([plaintext, Buffer.from([2])])), cipher.final(), cipher.getAuthTag()]);
  const header = Buffer.alloc(21);
  salt.copy(header, 0);
  header.writeUInt32BE(recordSize, 16);
  header.writeUInt8(senderPublic.length, 20);
  return Buffer.concat([header, senderPublic, ciphertext]);
}

/** How long a VAPID token holds: RFC 8292 allows at most 24 hours; 12 leaves room for clock skew. */
export const vapidTokenSeconds = 12 * 60 * 60;

/**
 * The `Authorization` header of a push request (RFC 8292 §3): `vapid t=<ES256 JWT>, k=<public key>`,
 * the token naming the push service's origin (`aud`), an expiry and the sender's contact (`sub`).
 */
export function vapidAuthorization(props: { endpoint: URL; keys: VapidKeys; subject: string; now: Date }): string {
  const header = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'ES256' })).toString('base64url');
  const claims = Buffer.from(
    JSON.stringify({ aud: props.endpoint.origin, exp: Math.floor(props.now.getTime() / 1000) + vapidTokenSeconds, sub: props.subject }),
  ).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key: props.keys.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `vapid t=${header}.${claims}.${signature}, k=${props.keys.publicKey}`;
}
