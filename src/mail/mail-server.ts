/**
 * An SMTP server to send mail through: the server-wide one (AIRDATE_SMTP_URL, parsed here so that
 * config.ts can read it) or one a mail channel names itself (notifications/channels/mail.ts).
 */

/**
 * How the connection is secured, in Apprise's words: `ssl` is TLS from the first byte (port 465),
 * `starttls` a plain connection that must be upgraded with STARTTLS before anything else is said
 * (port 587), `insecure` no TLS at all (port 25; a relay on the same host or network).
 */
export type MailSecurity = 'ssl' | 'starttls' | 'insecure';

export const defaultMailPorts: Record<MailSecurity, number> = { ssl: 465, starttls: 587, insecure: 25 };

export interface MailServer {
  host: string;
  port: number;
  security: MailSecurity;
  /** AUTH user and password; none when both are null. */
  user: string | null;
  password: string | null;
  /** The From address and, optionally, its display name. */
  from: { address: string; name: string | null };
}

/** A plain e-mail address: one @, no spaces or angle brackets, a dotted domain or an IP literal. */
const addressPattern = /^[^\s@<>()[\]\\,;:"]+@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+|\[[0-9a-f:.]+\])$/i;

/** Whether `text` is a plain e-mail address (`me@example.com`). */
export function isMailAddress(text: string): boolean {
  return text.length <= 254 && addressPattern.test(text);
}

/**
 * Parses AIRDATE_SMTP_URL: `smtp://` (STARTTLS required, port 587) or `smtps://` (TLS, port 465),
 * `user:password@` for AUTH (percent-encoded), `?from=airdate@example.com` (required) and
 * `&name=Airdate`, `&mode=insecure` for a relay without TLS (port 25 unless given). Throws an Error
 * naming the part at fault, never quoting the password.
 */
export function parseSmtpUrl(text: string): MailServer {
  if (!URL.canParse(text)) throw new Error('not a URL (smtp://user:password@host:port?from=address, or smtps://…)');
  const url = new URL(text);
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'smtp' && scheme !== 'smtps') throw new Error(`must start with smtp:// or smtps://, not ${scheme}://`);
  // WHATWG URL leaves a special-less scheme's host as written; an empty one is an empty string.
  const host = url.hostname;
  if (host === '') throw new Error('the host is missing');
  const mode = url.searchParams.get('mode')?.toLowerCase();
  if (mode !== undefined && mode !== 'ssl' && mode !== 'starttls' && mode !== 'insecure') throw new Error(`mode= must be ssl, starttls or insecure, not "${mode.slice(0, 20)}"`);
  const security: MailSecurity = (mode as MailSecurity | undefined) ?? (scheme === 'smtps' ? 'ssl' : 'starttls');
  const from = url.searchParams.get('from');
  if (from === null || from === '') throw new Error('from= is missing: the address mail is sent from (smtp://…?from=airdate@example.com)');
  if (!isMailAddress(from)) throw new Error(`from= "${from.slice(0, 80)}" is not an e-mail address`);
  for (const key of url.searchParams.keys()) {
    if (!['from', 'name', 'mode'].includes(key)) throw new Error(`unknown option "${key.slice(0, 30)}" (known: from, name, mode)`);
  }
  let user: string | null = null;
  let password: string | null = null;
  try {
    user = url.username === '' ? null : decodeURIComponent(url.username);
    password = url.password === '' ? null : decodeURIComponent(url.password);
  } catch {
    throw new Error('the user name or password holds a malformed %-escape');
  }
  return {
    host: host.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? defaultMailPorts[security] : Number(url.port),
    security,
    user,
    password,
    from: { address: from, name: url.searchParams.get('name') || null },
  };
}
