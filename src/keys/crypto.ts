import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Raised when an encrypted value cannot be opened: altered, truncated, or sealed with another key. */
export class DecryptionError extends Error {
  override name = 'DecryptionError';
}

const boxVersion = 'v1';
const ivBytes = 12;
const tagBytes = 16;

/** SHA-256 of the UTF-8 text, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Seals `plain` with AES-256-GCM under a fresh random 12-byte IV. The result is one
 * self-describing string, `v1.<iv>.<tag>.<ciphertext>` (each part base64url), so the format can
 * change later without guessing what a stored value is.
 */
export function encryptSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return `${boxVersion}.${iv.toString('base64url')}.${tag.toString('base64url')}.${ciphertext.toString('base64url')}`;
}

/** Opens a value made by `encryptSecret`; throws DecryptionError when it was altered or the key is wrong. */
export function decryptSecret(box: string, key: Buffer): string {
  const parts = box.split('.');
  if (parts.length !== 4 || parts[0] !== boxVersion) {
    throw new DecryptionError(`cannot decrypt a stored secret: unknown format (expected ${boxVersion}.<iv>.<tag>.<ciphertext>)`);
  }
  const [, ivText, tagText, ciphertextText] = parts as [string, string, string, string];
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== ivBytes || tag.length !== tagBytes) {
    throw new DecryptionError('cannot decrypt a stored secret: the IV or authentication tag has the wrong length');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError(
      'cannot decrypt a stored secret: it was altered or sealed with another key (check AIRDATE_SECRET_KEY or the secret.key file in the data folder)',
    );
  }
}

/**
 * The JSON a cookie value sealed by `encryptSecret` holds, or undefined when there is no value, it
 * is longer than `maxLength` (not ours, not worth decrypting), or it was altered, sealed with
 * another key or is no JSON: a cookie is the browser's to change, so none of that is an error.
 */
export function unsealCookieJson(value: string | undefined, key: Buffer, maxLength: number): unknown {
  if (value === undefined || value === '' || value.length > maxLength) return undefined;
  try {
    return JSON.parse(decryptSecret(value, key));
  } catch (error) {
    if (error instanceof DecryptionError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Compares two strings in time that depends on neither their content nor their lengths: both are
 * hashed to 32 bytes first (UTF-16 code units, which encode every JS string losslessly), then
 * compared with `timingSafeEqual`.
 */
export function safeEqual(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a, 'utf16le').digest();
  const digestB = createHash('sha256').update(b, 'utf16le').digest();
  return timingSafeEqual(digestA, digestB);
}
