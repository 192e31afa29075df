import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  base62Alphabet,
  generateToken,
  generateWebhookSecret,
  isWellFormedToken,
  tokenLength,
  webhookSecretKey,
} from '../../src/keys/token-format.ts';

describe('API tokens', () => {
  it('are adt_ + 32 base62 characters + a 6-character base62 CRC32 of the random part', () => {
    const token = generateToken();
    expect(token).toMatch(/^adt_[0-9A-Za-z]{38}$/);
    expect(token).toHaveLength(42);
    expect(tokenLength).toBe(42);
    const random = token.slice(4, 36);
    const checksum = token.slice(36);
    // Decode the checksum independently of the implementation.
    const decoded = [...checksum].reduce((value, char) => value * 62 + base62Alphabet.indexOf(char), 0);
    expect(decoded).toBe(crc32(random) >>> 0);
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('differ every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken()));
    expect(tokens.size).toBe(1000);
  });

  it('fail the checksum when any one character of the random part changes', () => {
    const token = generateToken();
    for (let index = 4; index < 36; index += 1) {
      const original = token[index]!;
      const replacement = original === 'a' ? 'b' : 'a';
      const altered = token.slice(0, index) + replacement + token.slice(index + 1);
      expect(isWellFormedToken(altered), `changed position ${index}`).toBe(false);
    }
  });

  it('fail when the checksum itself is changed', () => {
    const token = generateToken();
    const last = token.at(-1) === '0' ? '1' : '0';
    expect(isWellFormedToken(token.slice(0, -1) + last)).toBe(false);
  });

  it('reject garbage: wrong prefix, length, characters, types', () => {
    const token = generateToken();
    expect(isWellFormedToken('ADT_' + token.slice(4))).toBe(false);
    expect(isWellFormedToken('xyz_' + token.slice(4))).toBe(false);
    expect(isWellFormedToken(token + 'a')).toBe(false);
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(token.slice(0, 10) + '-' + token.slice(11))).toBe(false);
    expect(isWellFormedToken(` ${token}`)).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
    expect(isWellFormedToken(undefined)).toBe(false);
    expect(isWellFormedToken(42)).toBe(false);
  });

  it('use every base62 character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const samples = 4000;
    for (let index = 0; index < samples; index += 1) {
      for (const char of generateToken().slice(4, 36)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    // 128,000 characters: each expected ~2065 times (σ ≈ 45). A `byte % 62` bias would put the
    // first eight characters near 2580; ±12 % is wide enough to never flake and narrow enough to catch it.
    const expected = (samples * 32) / 62;
    for (const [char, count] of counts) {
      expect(Math.abs(count - expected) / expected, `character ${char} seen ${count} times`).toBeLessThan(0.12);
    }
  });
});

describe('webhook secrets', () => {
  it('are whsec_ + base64 of 24 random bytes (Standard Webhooks)', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSecretKey(secret)).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});
