import { createPublicKey, sign, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { deriveVapidKeys, vapidKeys } from '../../src/keys/vapid-keys.ts';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The public key of a VAPID pair as a KeyObject, from its uncompressed point. */
function publicKeyOf(point: string) {
  const bytes = Buffer.from(point, 'base64url');
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: bytes.subarray(1, 33).toString('base64url'), y: bytes.subarray(33).toString('base64url') }, format: 'jwk' });
}

describe('VAPID keys', () => {
  it('are a P-256 pair: the public point is 65 bytes and verifies what the private key signs', () => {
    const keys = deriveVapidKeys(Buffer.alloc(32, 1));
    expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(keys.publicKey, 'base64url')[0]).toBe(4);
    const signature = sign('sha256', Buffer.from('claims'), { key: keys.privateKey, dsaEncoding: 'ieee-p1363' });
    expect(verify('sha256', Buffer.from('claims'), { key: publicKeyOf(keys.publicKey), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
  });

  it('are the same for the same secret key (every process, every restart) and differ for another', () => {
    expect(deriveVapidKeys(Buffer.alloc(32, 1)).publicKey).toBe(deriveVapidKeys(Buffer.alloc(32, 1)).publicKey);
    expect(deriveVapidKeys(Buffer.alloc(32, 2)).publicKey).not.toBe(deriveVapidKeys(Buffer.alloc(32, 1)).publicKey);
  });

  it('come from the data folder\'s secret.key made at first start, survive a restart, and add no file beside it', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'airdate-vapid-'));
    folders.push(folder);
    const config = loadConfig({ AIRDATE_DATA_DIR: path.join(folder, 'data') });
    initSecretKey(config);
    const first = vapidKeys().publicKey;
    // A restart: the key file is read again.
    initSecretKey(config);
    expect(vapidKeys().publicKey).toBe(first);
    expect(readdirSync(path.join(folder, 'data'))).toEqual(['secret.key']);
    // Another server with its own secret key has its own pair.
    initSecretKey({ secretKey: Buffer.alloc(32, 9), dataDir: folder });
    expect(vapidKeys().publicKey).not.toBe(first);
    expect(vapidKeys().publicKey).toBe(deriveVapidKeys(Buffer.alloc(32, 9)).publicKey);
  });
});
