import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DecryptionError, decryptSecret, encryptSecret, safeEqual, sha256Hex } from '../../src/keys/crypto.ts';

const key = randomBytes(32);

describe('encryptSecret / decryptSecret', () => {
  it('round-trips text, including non-ASCII and empty strings', () => {
    for (const plain of ['adt_abc', '', 'Zoë — 東京 🚀', 'x'.repeat(5000)]) {
      expect(decryptSecret(encryptSecret(plain, key), key)).toBe(plain);
    }
  });

  it('produces v1.<iv>.<tag>.<ciphertext> with a fresh IV every time, never the plain text', () => {
    const plain = 'adt_secretvalue';
    const first = encryptSecret(plain, key);
    const second = encryptSecret(plain, key);
    expect(first).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('secretvalue');
  });

  it('detects a changed ciphertext, tag or IV', () => {
    const box = encryptSecret('adt_secretvalue', key);
    const parts = box.split('.');
    for (const index of [1, 2, 3]) {
      const altered = [...parts];
      const text = altered[index]!;
      altered[index] = (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
      expect(() => decryptSecret(altered.join('.'), key)).toThrow(DecryptionError);
    }
  });

  it('refuses the wrong key with a message that points at the key', () => {
    const box = encryptSecret('adt_secretvalue', key);
    expect(() => decryptSecret(box, randomBytes(32))).toThrow(/altered or sealed with another key/);
  });

  it('refuses values in an unknown format', () => {
    expect(() => decryptSecret('adt_plaintext', key)).toThrow(/unknown format/);
    expect(() => decryptSecret(encryptSecret('x', key).replace(/^v1/, 'v9'), key)).toThrow(/unknown format/);
    expect(() => decryptSecret('v1.AAAA.AAAA.AAAA', key)).toThrow(/wrong length/);
  });
});

describe('sha256Hex', () => {
  it('is the hex SHA-256 of the UTF-8 text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('safeEqual', () => {
  it('compares strings of any length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'a')).toBe(false);
    expect(safeEqual('x'.repeat(1000), 'x'.repeat(1000))).toBe(true);
  });

  it('tells apart strings whose UTF-8 encodings collide (lone surrogates)', () => {
    expect(safeEqual('\uD800', '\uDFFF')).toBe(false);
  });
});
