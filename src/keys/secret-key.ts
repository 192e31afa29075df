import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { syncFolder } from './durable-files.ts';

/** Raised when the secret key is missing, unreadable or malformed. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/** Name of the key file inside the data folder. */
export const secretKeyFileName = 'secret.key';

const keyBytes = 32;
const keyFilePattern = /^[0-9a-fA-F]{64}$/;

/** The key bytes of `AIRDATE_SECRET_KEY` (64 hex characters or base64), or undefined when it is not 32 bytes. */
export function decodeSecretKey(text: string): Buffer | undefined {
  const key = keyFilePattern.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return key.length === keyBytes ? key : undefined;
}

let current: Buffer | undefined;

/**
 * Sets up the process's encryption key (AES-256-GCM for stored tokens and webhook secrets) and
 * returns it: `config.secretKey` when set, otherwise `<dataDir>/secret.key`, created with 32
 * random bytes on first start. Several processes starting at once on a fresh data folder end up
 * with the same key. Calling it again re-reads the configuration. (It takes the two settings it
 * reads rather than the Config type: config.ts decodes AIRDATE_SECRET_KEY with this module.)
 */
export function initSecretKey(config: { secretKey?: Buffer | undefined; dataDir: string }): Buffer {
  const key = config.secretKey ?? readOrCreateKeyFile(path.join(config.dataDir, secretKeyFileName));
  if (key.length !== keyBytes) throw new SecretKeyError(`the secret key must be ${keyBytes} bytes, not ${key.length}`);
  current = key;
  return key;
}

/** The key set up by `initSecretKey`; same accessor pattern as `db()`. */
export function secretKey(): Buffer {
  if (!current) throw new SecretKeyError('the secret key is not initialised (call initSecretKey first)');
  return current;
}

function readOrCreateKeyFile(file: string): Buffer {
  return readKeyFile(file) ?? createKeyFile(file);
}

/** The key in `file`, or undefined when the file does not exist. */
function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw new SecretKeyError(`cannot read the secret key file ${file}: ${(error as Error).message}`);
  }
  const hex = text.trim();
  if (!keyFilePattern.test(hex)) {
    // Never generate a replacement: a new key would make every stored token unreadable.
    throw new SecretKeyError(
      `the secret key file ${file} is malformed: it must hold 64 hex characters (32 bytes); restore it from a backup or set AIRDATE_SECRET_KEY`,
    );
  }
  return Buffer.from(hex, 'hex');
}

/**
 * Writes a fresh key to a private temporary file, then hard-links it into place. `link` fails
 * when the target exists, so a key created concurrently by another process is never clobbered
 * and nobody ever reads a half-written file; the loser reads the winner's key instead.
 */
function createKeyFile(file: string): Buffer {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const key = randomBytes(keyBytes);
  const descriptor = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(descriptor, `${key.toString('hex')}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, file);
    syncFolder(path.dirname(file));
    return key;
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw new SecretKeyError(`cannot create the secret key file ${file}: ${(error as Error).message}`);
    const winner = readKeyFile(file);
    if (!winner) throw new SecretKeyError(`the secret key file ${file} disappeared while it was being created`);
    return winner;
  } finally {
    unlinkSync(temporary);
  }
}


function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
