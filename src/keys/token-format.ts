import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Digits, upper case, lower case: the base62 alphabet of tokens and their checksums. */
export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Every API token starts with this, so secret scanners and people can recognise one. */
export const tokenPrefix = 'adt_';
/** Random base62 characters after the prefix (32 × log2(62) ≈ 190 bits). */
export const tokenRandomLength = 32;
/** Base62 CRC32 of the random part; 62^6 > 2^32, so six characters hold any CRC32. */
export const tokenChecksumLength = 6;
/** Length of a whole token: 4 + 32 + 6 = 42 characters. */
export const tokenLength = tokenPrefix.length + tokenRandomLength + tokenChecksumLength;

/** Standard Webhooks prefix of a signing secret. */
export const webhookSecretPrefix = 'whsec_';
const webhookSecretBytes = 24;

/**
 * Prefix of a media server connection's token (src/media-servers): it can only record watches,
 * and its own prefix keeps it apart from an API token wherever either is pasted.
 */
export const connectionTokenPrefix = 'adw_';

const tokenPatterns = new Map<string, RegExp>();
const patternOf = (prefix: string): RegExp => {
  let pattern = tokenPatterns.get(prefix);
  if (!pattern) tokenPatterns.set(prefix, (pattern = new RegExp(`^${prefix}[0-9A-Za-z]{${tokenRandomLength + tokenChecksumLength}}$`)));
  return pattern;
};

/**
 * A new API token: `adt_` + 32 random base62 characters + their 6-character base62 CRC32; with
 * another `prefix` (connectionTokenPrefix), a token of that kind of the same shape.
 */
export function generateToken(prefix: string = tokenPrefix): string {
  const random = randomBase62(tokenRandomLength);
  return `${prefix}${random}${checksumOf(random)}`;
}

/**
 * Whether `text` has a token's shape (with `prefix`, the API token's by default) and a matching
 * checksum. Lets the server turn away typos and garbage without a database query; it proves
 * nothing about the token being valid.
 */
export function isWellFormedToken(text: unknown, prefix: string = tokenPrefix): text is string {
  if (typeof text !== 'string' || !patternOf(prefix).test(text)) return false;
  const random = text.slice(prefix.length, prefix.length + tokenRandomLength);
  return text.slice(prefix.length + tokenRandomLength) === checksumOf(random);
}

/** A new webhook signing secret in the Standard Webhooks format: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `${webhookSecretPrefix}${randomBytes(webhookSecretBytes).toString('base64')}`;
}

/** The HMAC key bytes of a `whsec_` secret, as the Standard Webhooks scheme signs with them. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(webhookSecretPrefix)) throw new Error(`a webhook secret starts with ${webhookSecretPrefix}`);
  return Buffer.from(secret.slice(webhookSecretPrefix.length), 'base64');
}

/** Base62 of the unsigned CRC32 of `text`, left-padded with '0' to six characters. */
function checksumOf(text: string): string {
  let value = crc32(text) >>> 0;
  let digits = '';
  do {
    digits = base62Alphabet[value % 62] + digits;
    value = Math.floor(value / 62);
  } while (value > 0);
  return digits.padStart(tokenChecksumLength, '0');
}

/**
 * `length` uniformly random base62 characters. Bytes of 248 and above are thrown away
 * (rejection sampling): 248 = 4 × 62, so `byte % 62` is uniform over what is kept.
 */
export function randomBase62(length: number): string {
  const limit = 256 - (256 % base62Alphabet.length);
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < limit && result.length < length) result += base62Alphabet[byte % base62Alphabet.length];
    }
  }
  return result;
}
