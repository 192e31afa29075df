import { createECDH, createPrivateKey, hkdfSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { secretKey } from './secret-key.ts';

/**
 * The server's VAPID key pair (RFC 8292), which signs every web push request and whose public
 * half browsers subscribe with (`applicationServerKey`).
 *
 * It is derived from the secret key (secret.key, made at first start, or AIRDATE_SECRET_KEY) with
 * HKDF rather than kept in a file of its own: it is then exactly as safe as the secret key (never
 * written anywhere else, gone with it), survives every restart, and every process of a server
 * that shares one secret key signs with the same pair — which a subscription needs, since a push
 * service refuses a request signed with any other key than the one the browser subscribed with.
 */
export interface VapidKeys {
  /** The public key, uncompressed P-256 point (65 bytes), base64url: what browsers and the `k=` parameter take. */
  publicKey: string;
  /** The private key, for ES256 signatures. */
  privateKey: KeyObject;
}

/** The order of P-256's group: a private key is a number from 1 to n − 1. */
const p256Order = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/**
 * The VAPID pair derived from a 32-byte secret key. HKDF-SHA256 gives 32 bytes; in the rare case
 * (about 1 in 2^32) that they are not a valid P-256 private key, the next counter is taken.
 */
export function deriveVapidKeys(secret: Buffer): VapidKeys {
  for (let counter = 0; ; counter++) {
    const bytes = Buffer.from(hkdfSync('sha256', secret, 'airdate', `vapid p-256 private key ${counter}`, 32));
    const scalar = BigInt(`0x${bytes.toString('hex')}`);
    if (scalar === 0n || scalar >= p256Order) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(bytes);
    const publicPoint = ecdh.getPublicKey();
    const privateKey = createPrivateKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        d: bytes.toString('base64url'),
        x: publicPoint.subarray(1, 33).toString('base64url'),
        y: publicPoint.subarray(33, 65).toString('base64url'),
      },
      format: 'jwk',
    });
    return { publicKey: publicPoint.toString('base64url'), privateKey };
  }
}

let cached: { secret: Buffer; keys: VapidKeys } | undefined;

/** The VAPID pair of the process's secret key (initSecretKey first), derived once. */
export function vapidKeys(): VapidKeys {
  const secret = secretKey();
  if (!cached || !cached.secret.equals(secret)) cached = { secret, keys: deriveVapidKeys(secret) };
  return cached.keys;
}
