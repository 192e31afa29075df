import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseTargetPolicy } from '../../../src/webhooks/target-policy.ts';
import { maxPushPlaintextBytes, parseWebPushSubscription, webPushKind } from '../../../src/notifications/channels/web-push.ts';
import { encryptPushMessage } from '../../../src/notifications/channels/web-push-encryption.ts';
import { hasOpenssl, selfSignedCertificate, startHttpsReceiver, testContext, testMessage, testNow, testVapid } from '../../support/channel-peers.ts';

/**
 * The receiving side of RFC 8291 (what a browser does), written here with node:crypto from the
 * RFC's steps: read the aes128gcm header, ECDH with the sender's key, the two HKDF stages, then
 * AES-128-GCM, and strip the padding up to the 0x02 delimiter.
 */
function decryptAsBrowser(body: Buffer, receiver: { privateKey: Buffer; publicKey: Buffer; auth: Buffer }): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyIdLength = body[20]!;
  const senderPublic = body.subarray(21, 21 + keyIdLength);
  const ciphertext = body.subarray(21 + keyIdLength);
  expect(recordSize).toBeGreaterThanOrEqual(ciphertext.length);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(receiver.privateKey);
  const shared = ecdh.computeSecret(senderPublic);
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), receiver.publicKey, senderPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, receiver.auth, info, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  expect(padded[end]).toBe(2); // the last record's delimiter
  return padded.subarray(0, end);
}

/** RFC 8291 Appendix A. */
const rfc = {
  plaintext: 'When I grow up, I want to be a watermelon',
  senderPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  receiverPrivate: 'q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94',
  receiverPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  body: 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};
const b64 = (text: string) => Buffer.from(text, 'base64url');

describe('RFC 8291 Appendix A', () => {
  it("the test's receiver decrypts the RFC's message", () => {
    const plain = decryptAsBrowser(b64(rfc.body), { privateKey: b64(rfc.receiverPrivate), publicKey: b64(rfc.receiverPublic), auth: b64(rfc.auth) });
    expect(plain.toString()).toBe(rfc.plaintext);
  });

  it("the sender writes the RFC's message byte for byte from its key and salt", () => {
    const sender = createECDH('prime256v1');
    sender.setPrivateKey(b64(rfc.senderPrivate));
    const body = encryptPushMessage(Buffer.from(rfc.plaintext), { p256dh: b64(rfc.receiverPublic), auth: b64(rfc.auth) }, { sender, salt: b64(rfc.salt) });
    expect(body.toString('base64url')).toBe(rfc.body);
  });
});

/** A browser's subscription: a fresh P-256 key pair and auth secret. */
function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys();
  const auth = randomBytes(16);
  const target = parseWebPushSubscription({ endpoint, keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') } });
  return { target, receiver: { privateKey: ecdh.getPrivateKey(), publicKey, auth } };
}

/** Checks a VAPID Authorization header as a push service does (RFC 8292 §3 and §4). */
function verifyVapid(header: string, endpoint: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  expect(match).not.toBeNull();
  const [, token, key] = match!;
  expect(key).toBe(testVapid.publicKey);
  const [head, claims, signature] = token!.split('.');
  expect(JSON.parse(Buffer.from(head!, 'base64url').toString())).toEqual({ typ: 'JWT', alg: 'ES256' });
  const point = b64(key!);
  const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
  expect(verify('sha256', Buffer.from(`${head}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, b64(signature!))).toBe(true);
  const body = JSON.parse(Buffer.from(claims!, 'base64url').toString());
  expect(body.aud).toBe(new URL(endpoint).origin);
  expect(body.sub).toBe('https://airdate.example.com');
  const nowSeconds = testNow.getTime() / 1000;
  expect(body.exp).toBeGreaterThan(nowSeconds);
  expect(body.exp).toBeLessThanOrEqual(nowSeconds + 24 * 3600);
}

describe.skipIf(!hasOpenssl)(`web push to a local push endpoint${hasOpenssl ? '' : ' (SKIPPED: openssl is not on PATH)'}`, () => {
  const tls = hasOpenssl ? selfSignedCertificate() : { key: '', cert: '' };
  const context = () => testContext({ trustedCertificates: [tls.cert] });

  it('sends an aes128gcm message the subscription decrypts, signed with VAPID, with TTL, Urgency and Topic', async () => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(201).end());
    const { target, receiver } = browserSubscription(`${endpoint.url}/push/v1/abcDEF123`);
    const outcome = await webPushKind.send(target, testMessage(), context());
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 201 });
    const [request] = endpoint.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/push/v1/abcDEF123');
    expect(request!.headers).toMatchObject({ ttl: '86400', urgency: 'normal', topic: 'show-56', 'content-encoding': 'aes128gcm', 'content-type': 'application/octet-stream' });
    verifyVapid(request!.headers.authorization!, target.endpoint);
    const payload = JSON.parse(decryptAsBrowser(request!.body, receiver).toString('utf8'));
    expect(payload).toEqual({
      event: 'episodes-released',
      title: "Severance S2E3 'Who Is Alive?' is out",
      body: 'Season 2, episode 3 of Severance is out.',
      url: 'https://airdate.example.com/shows/56',
      image: 'https://image.tmdb.org/t/p/w500/sev.jpg',
      tag: 'show-56',
      action: { label: 'Mark watched', url: 'https://airdate.example.com/api/notification-actions/watched?token=act_abc' },
    });
  });

  it('keeps a huge message within one push message (4096 bytes encrypted) and still decryptable', async () => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(201).end());
    const { target, receiver } = browserSubscription(`${endpoint.url}/push/huge`);
    const outcome = await webPushKind.send(target, testMessage({ body: '東京 "quoted" '.repeat(2000) }), context());
    expect(outcome.outcome).toBe('delivered');
    const body = endpoint.requests[0]!.body;
    expect(body.length).toBeLessThanOrEqual(4096);
    const payload = JSON.parse(decryptAsBrowser(body, receiver).toString('utf8'));
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(maxPushPlaintextBytes);
    expect(payload.body.endsWith('…')).toBe(true);
    expect(payload.title).toBe("Severance S2E3 'Who Is Alive?' is out");
  });

  it.each([404, 410])('answers %i: the subscription is gone', async (status) => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(status).end('push subscription has unsubscribed or expired.'));
    const { target } = browserSubscription(`${endpoint.url}/push/secretpath123`);
    const outcome = await webPushKind.send(target, testMessage(), context());
    expect(outcome).toMatchObject({ outcome: 'gone', status });
    expect(JSON.stringify(outcome)).not.toContain('secretpath123');
  });

  it('answers 429 with Retry-After: retry later, after the wait asked for', async () => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(429, { 'retry-after': '120' }).end());
    const { target } = browserSubscription(`${endpoint.url}/push/x`);
    expect(await webPushKind.send(target, testMessage(), context())).toMatchObject({ outcome: 'retry', status: 429, retryAfterMs: 120_000 });
  });

  it.each([
    [500, 'retry'],
    [503, 'retry'],
    [400, 'failed'],
    [403, 'failed'],
    [413, 'failed'],
  ] as const)('answers %i: %s', async (status, expected) => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(status).end());
    const { target } = browserSubscription(`${endpoint.url}/push/x`);
    expect(await webPushKind.send(target, testMessage(), context())).toMatchObject({ outcome: expected, status });
  });

  it('refuses an endpoint on a loopback address under the default policy, without connecting', async () => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(201).end());
    const { target } = browserSubscription(`${endpoint.url}/push/x`);
    const outcome = await webPushKind.send(target, testMessage(), testContext({ trustedCertificates: [tls.cert], policy: parseTargetPolicy('external,private') }));
    expect(outcome).toMatchObject({ outcome: 'failed', status: null, reason: expect.stringContaining('AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow') });
    expect(endpoint.connections()).toBe(0);
  });

  it('does not trust a self-signed push service unless told (a retry: it may be mended)', async () => {
    const endpoint = await startHttpsReceiver(tls, (_request, response) => response.writeHead(201).end());
    const { target } = browserSubscription(`${endpoint.url}/push/x`);
    const outcome = await webPushKind.send(target, testMessage(), testContext());
    expect(outcome).toMatchObject({ outcome: 'retry', reason: expect.stringMatching(/TLS: self[- ]signed certificate/) });
    expect(endpoint.requests).toHaveLength(0);
  });
});

describe('parseWebPushSubscription', () => {
  const key = createECDH('prime256v1').generateKeys().toString('base64url');
  const auth = randomBytes(16).toString('base64url');
  it.each([
    [{ endpoint: 'http://push.example/x', keys: { p256dh: key, auth } }, 'must be an https:// URL'],
    [{ endpoint: 'not a url', keys: { p256dh: key, auth } }, 'is not a URL'],
    [{ endpoint: 'https://u:p@push.example/x', keys: { p256dh: key, auth } }, 'user name or password'],
    [{ endpoint: 'https://push.example/x', keys: { p256dh: 'AAAA', auth } }, 'uncompressed P-256 public key'],
    [{ endpoint: 'https://push.example/x', keys: { p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'), auth } }, 'not a point on the P-256 curve'],
    [{ endpoint: 'https://push.example/x', keys: { p256dh: key, auth: 'AAAA' } }, 'keys.auth must be 16 bytes'],
    [{ endpoint: 'https://push.example/x', keys: { p256dh: 'not base64!', auth } }, 'keys.p256dh is not base64url'],
  ])('refuses %j', (input, message) => {
    expect(() => parseWebPushSubscription(input)).toThrow(message);
  });

  it('describes a subscription by its push service only', () => {
    const target = parseWebPushSubscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91b', keys: { p256dh: key, auth } });
    expect(webPushKind.describe(target)).toBe('Web push to a browser via fcm.googleapis.com');
  });
});
