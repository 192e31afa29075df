import type { Readable } from 'node:stream';

/** Most of a receiver's answer body that is read (and thrown away). */
export const maxResponseBytes = 4096;

/** The target is not allowed by the policy: a final failure, not worth retrying. */
export class PolicyRefusal extends Error {}

/**
 * Reads and discards up to {@link maxResponseBytes} of `stream`, then stops. Resolves when the
 * body ended, the cap was reached, or the stream failed or closed; never rejects.
 */
export function readCapped(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    const done = () => {
      stream.off('data', onData);
      stream.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received >= maxResponseBytes) done();
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}

/**
 * Milliseconds a Retry-After value asks to wait: delta-seconds or an HTTP date (relative to
 * `now`, never negative); null when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates always name the weekday and GMT; Date.parse alone would also take "5" or "tomorrow".
  if (!/^[A-Za-z]{3},? .*\d{2}:\d{2}:\d{2} GMT$|^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

const networkErrorTexts: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the receiver closed the connection without answering',
  EPIPE: 'connection closed by the receiver while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  HPE_INVALID_CONSTANT: 'the receiver did not answer in HTTP',
};

/** A short text for the delivery log from a socket, DNS, TLS or HTTP parser error. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return 'the request failed';
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && code in networkErrorTexts) return networkErrorTexts[code]!;
  if (code?.startsWith('HPE_')) return `the receiver's answer is not valid HTTP (${code})`;
  // TLS errors carry codes such as CERT_HAS_EXPIRED or ERR_TLS_CERT_ALTNAME_INVALID.
  if (code !== undefined && /CERT|TLS|SSL/.test(code)) return `TLS: ${error.message}`.slice(0, 200);
  return (code ? `${code}: ${error.message}` : error.message).slice(0, 200);
}
