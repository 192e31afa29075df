/** Reading what an outbound HTTP request got back: shared by the catalog clients and webhook deliveries. */

/**
 * Milliseconds a Retry-After value asks to wait: delta-seconds or an HTTP date (relative to
 * `nowMs`, never negative); null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates always name the weekday and GMT; Date.parse alone would also take "5" or "tomorrow".
  if (!/^[A-Za-z]{3},? .*\d{2}:\d{2}:\d{2} GMT$|^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} /.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

const networkErrorTexts: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the server closed the connection without answering',
  EPIPE: 'connection closed by the server while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  HPE_INVALID_CONSTANT: 'the server did not answer in HTTP',
};

/**
 * A short text for a log from a socket, DNS, TLS or HTTP parser error (node:http's errors carry the
 * code themselves; fetch's say only "fetch failed" and keep the real error as their `cause`).
 */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return 'the request failed';
  if (error.cause instanceof Error && (error as NodeJS.ErrnoException).code === undefined) return describeNetworkError(error.cause);
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && code in networkErrorTexts) return networkErrorTexts[code]!;
  if (code?.startsWith('HPE_')) return `the answer is not valid HTTP (${code})`;
  // TLS errors carry codes such as CERT_HAS_EXPIRED or ERR_TLS_CERT_ALTNAME_INVALID.
  if (code !== undefined && /CERT|TLS|SSL/.test(code)) return `TLS: ${error.message}`.slice(0, 200);
  return (code ? `${code}: ${error.message}` : error.message).slice(0, 200);
}
