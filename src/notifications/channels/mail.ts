import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createTransport } from 'nodemailer';
import { describeNetworkError } from '../../http/outbound-errors.ts';
import { defaultMailPorts, isMailAddress } from '../../mail/mail-server.ts';
import type { MailSecurity, MailServer } from '../../mail/mail-server.ts';
import { resolveTarget } from '../../webhooks/outbound-request.ts';
import { PolicyRefusal } from '../../webhooks/send-helpers.ts';
import type { ChannelKind, ChannelMessage, ChannelTarget, ParseContext, SendContext, SendOutcome } from './channel.ts';
import { bad, parseAppriseUrl, refuseUnknownOptions, textOption } from './apprise-url.ts';
import { plain, scrub } from './channel-http.ts';
import { escapeHtml, fitChars } from './render.ts';

/**
 * E-mail over SMTP, Apprise's `mailto://user:password@host` (from user@host, to the same unless
 * told) and `mailtos://…` (STARTTLS), with `smtp=` (the SMTP server when it is not the host),
 * `from=`, `name=`, `to=` (or addresses as path segments), `mode=ssl|starttls|insecure`; or, when
 * the operator set AIRDATE_SMTP_URL, a plain address (`me@example.com`, `mailto:me@example.com`)
 * sent through that server. A multipart text and HTML mail, through nodemailer.
 */
export interface MailTarget extends ChannelTarget {
  kind: 'mail';
  /** The channel's own server, or null for the server-wide one (AIRDATE_SMTP_URL). */
  server: MailServer | null;
  to: string[];
}

const label = 'e-mail';
const maxRecipients = 10;

/**
 * Apprise's table of well-known providers (its email templates), for `mailto://user:password@gmail.com`:
 * the SMTP server, port and security of the address's domain, and whether the provider signs in
 * with the whole address (`email`) or the part before the @ (`user`).
 */
const knownProviders: { domain: RegExp; host: string; port: number; security: MailSecurity; login: 'email' | 'user' }[] = [
  { domain: /^gmail\.com$/i, host: 'smtp.gmail.com', port: 587, security: 'starttls', login: 'email' },
  { domain: /^yandex\.(com|ru|ua|by|kz|uz|tr|fr)$/i, host: 'smtp.yandex.ru', port: 465, security: 'ssl', login: 'user' },
  { domain: /^(hotmail|live)\.com(\.au)?$/i, host: 'smtp-mail.outlook.com', port: 587, security: 'starttls', login: 'email' },
  { domain: /^(smtp\.)?outlook\.com(\.au)?$/i, host: 'smtp.outlook.com', port: 587, security: 'starttls', login: 'email' },
  { domain: /^(smtp\.)?office365\.com$/i, host: 'smtp.office365.com', port: 587, security: 'starttls', login: 'email' },
  { domain: /^yahoo\.(ca|com)$/i, host: 'smtp.mail.yahoo.com', port: 465, security: 'ssl', login: 'email' },
  { domain: /^gmx\.(com|net|de|at|ch|fr)$/i, host: 'mail.gmx.com', port: 587, security: 'starttls', login: 'email' },
  { domain: /^fastmail\.(com|cn|co\.uk|com\.au|de|es|fm|fr|im|in|jp|mx|net|nl|org|se|to|tw|uk|us)$/i, host: 'smtp.fastmail.com', port: 465, security: 'ssl', login: 'email' },
];

function parse(text: string, context: ParseContext): MailTarget {
  const trimmed = text.trim();
  const plainAddresses = /^mailto:(?!\/\/)(.*)$/i.exec(trimmed)?.[1] ?? (isMailAddress(trimmed) ? trimmed : null);
  if (plainAddresses !== null) {
    const to = recipients(decodeURIComponent(plainAddresses.split('?')[0]!).split(/[,\s]+/).filter(Boolean));
    if (!context.smtpDefault) {
      throw bad(label, 'a plain address needs the server-wide mail server (AIRDATE_SMTP_URL), which this server has not set; give the SMTP server in the URL instead (mailtos://user:password@smtp.example.com?to=me@example.com)');
    }
    return { kind: 'mail', server: null, to };
  }
  const url = parseAppriseUrl(trimmed, label);
  refuseUnknownOptions(url, ['smtp', 'from', 'name', 'to', 'mode', 'user', 'pass'], label);
  const mode = textOption(url, 'mode')?.toLowerCase();
  if (mode !== undefined && mode !== 'ssl' && mode !== 'starttls' && mode !== 'insecure') throw bad(label, `mode= must be ssl, starttls or insecure, not "${mode.slice(0, 20)}"`);
  const provider = textOption(url, 'smtp') === undefined ? knownProviders.find((entry) => entry.domain.test(url.host)) : undefined;
  const security: MailSecurity = (mode as MailSecurity | undefined) ?? provider?.security ?? (url.scheme === 'mailtos' ? 'starttls' : 'insecure');
  const given = textOption(url, 'user') ?? url.user;
  const user = provider?.login === 'email' && given !== null && !given.includes('@') ? `${given}@${url.host}` : given;
  const password = textOption(url, 'pass') ?? url.password;
  const host = textOption(url, 'smtp') ?? provider?.host ?? url.host;
  if (host === '') throw bad(label, 'the mail server is missing (mailto://user:password@host, or smtp=)');
  if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$|^[0-9.]+$/i.test(host)) throw bad(label, 'the mail server is not a valid host name');
  // Apprise's rule: the From address is given, or user@host (the user may be a whole address).
  const fromText = textOption(url, 'from') ?? (given === null ? null : given.includes('@') ? given : `${given}@${url.host}`);
  if (fromText === null || !isMailAddress(fromText)) throw bad(label, 'from= is missing or not an address, and user@host is not one either');
  const to = recipients([...url.path, ...(textOption(url, 'to')?.split(/[,\s]+/).filter(Boolean) ?? [])]);
  return {
    kind: 'mail',
    server: {
      host: host.replace(/^\[|\]$/g, ''),
      port: url.port ?? (provider && mode === undefined ? provider.port : defaultMailPorts[security]),
      security,
      user,
      password,
      from: { address: fromText, name: textOption(url, 'name') ?? null },
    },
    to: to.length > 0 ? to : [fromText],
  };
}

function recipients(addresses: string[]): string[] {
  for (const address of addresses) {
    if (!isMailAddress(address)) throw bad(label, `"${address.slice(0, 80)}" is not an e-mail address`);
  }
  if (addresses.length > maxRecipients) throw bad(label, `at most ${maxRecipients} recipients`);
  return addresses;
}

/** The mail: subject, plain text and HTML (poster linked to the item's page, never a tracking pixel). */
export function mailContent(message: ChannelMessage, publicOrigin: string): { subject: string; text: string; html: string } {
  const lines = [message.title, '', message.body];
  if (message.link) lines.push('', `Open in Airdate: ${message.link}`);
  if (message.action) lines.push(`${message.action.label}: ${message.action.url}`);
  lines.push('', '-- ', `Airdate · ${publicOrigin}`);
  const body = escapeHtml(message.body).replace(/\n/g, '<br>');
  const poster = message.poster
    ? `<p>${message.link ? `<a href="${escapeHtml(message.link)}">` : ''}<img src="${escapeHtml(message.poster)}" alt="" width="154" style="border-radius:6px">${message.link ? '</a>' : ''}</p>`
    : '';
  const link = message.link ? `<p><a href="${escapeHtml(message.link)}">Open in Airdate</a></p>` : '';
  const action = message.action ? `<p><a href="${escapeHtml(message.action.url)}">${escapeHtml(message.action.label)}</a></p>` : '';
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    `<h1 style="font-size:1.2em">${escapeHtml(message.title)}</h1>`,
    poster,
    `<p>${body}</p>`,
    link,
    action,
    `<p style="color:#666;font-size:0.85em">Airdate · <a href="${escapeHtml(publicOrigin)}">${escapeHtml(publicOrigin)}</a></p>`,
    '</body></html>',
  ].join('');
  return { subject: fitChars(message.title, 200), text: lines.join('\n'), html };
}

async function send(target: MailTarget, message: ChannelMessage, context: SendContext): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const server = target.server ?? context.smtpDefault;
  const secrets = [server?.password].filter((secret): secret is string => typeof secret === 'string' && secret.length >= 3);
  if (!server) return { outcome: 'failed', status: null, durationMs: elapsed(), answer: null, reason: 'e-mail: the server-wide mail server (AIRDATE_SMTP_URL) is no longer set' };
  // A channel's own server passes the outbound policy like any peer; the operator's is trusted.
  let address = server.host;
  if (target.server !== null) {
    try {
      const resolved = await resolveTarget({ hostname: server.host }, context.policy, context.lookup);
      address = resolved.addresses[0]!.address;
    } catch (error) {
      if (error instanceof PolicyRefusal) return { outcome: 'failed', status: null, durationMs: elapsed(), answer: null, reason: scrub(error.message, secrets) };
      return { outcome: 'retry', status: null, durationMs: elapsed(), answer: null, reason: `e-mail: ${describeNetworkError(error)}`, retryAfterMs: null };
    }
  }
  const transport = createTransport({
    host: address,
    port: server.port,
    secure: server.security === 'ssl',
    requireTLS: server.security === 'starttls',
    // `insecure`: STARTTLS still when the server offers it, plain when it fails (Apprise sends plain).
    opportunisticTLS: server.security === 'insecure',
    servername: server.host,
    auth: server.user !== null ? { user: server.user, pass: server.password ?? '' } : undefined,
    tls: { servername: server.host, ...(context.trustedCertificates?.length ? { ca: [...context.trustedCertificates] } : {}) },
    connectionTimeout: context.timeoutMs,
    greetingTimeout: context.timeoutMs,
    socketTimeout: context.timeoutMs,
  });
  const content = mailContent(message, context.publicOrigin);
  const idHost = URL.canParse(context.publicOrigin) ? new URL(context.publicOrigin).hostname : 'airdate';
  // The same Message-ID on every attempt of one message, so a mail system can drop a repeat.
  const messageId = `<${createHash('sha256').update(context.idempotencyKey).digest('hex').slice(0, 32)}@${idHost}>`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const info = await Promise.race([
      transport.sendMail({
        from: server.from.name ? { name: server.from.name, address: server.from.address } : server.from.address,
        to: target.to,
        subject: content.subject,
        text: content.text,
        html: content.html,
        messageId,
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), context.timeoutMs + 1000);
      }),
    ]);
    const code = Number(/^(\d{3})/.exec(String(info.response ?? ''))?.[1] ?? 250);
    return { outcome: 'delivered', status: code, durationMs: elapsed(), answer: scrub(plain(String(info.response ?? '')), secrets) };
  } catch (error) {
    return mailFailure(error, elapsed(), context, secrets);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

/** SMTP's own classes: a 4xx reply is temporary (retry), a 5xx permanent (failed); a lost connection is retried. */
function mailFailure(error: unknown, durationMs: number, context: SendContext, secrets: string[]): SendOutcome {
  const failure = error as { code?: string; responseCode?: number; response?: string; message?: string };
  const status = typeof failure.responseCode === 'number' ? failure.responseCode : null;
  const said = failure.response ? plain(failure.response) : plain(failure.message ?? 'the mail was not sent');
  const reason = scrub(`e-mail: ${status !== null ? `the server answered ${said}` : failure.code === 'ETIMEDOUT' ? `no answer within ${context.timeoutMs} ms (timed out)` : `${failure.code ? `${failure.code}: ` : ''}${said}`}`, secrets).slice(0, 300);
  if (status !== null && status >= 500) return { outcome: 'failed', status, durationMs, answer: null, reason };
  if (status !== null && status >= 400) return { outcome: 'retry', status, durationMs, answer: null, reason, retryAfterMs: null };
  if (failure.code === 'EAUTH' || failure.code === 'EENVELOPE' || failure.code === 'EMESSAGE') return { outcome: 'failed', status, durationMs, answer: null, reason };
  return { outcome: 'retry', status, durationMs, answer: null, reason, retryAfterMs: null };
}

export const mailKind: ChannelKind<MailTarget> = {
  kind: 'mail',
  label: 'E-mail',
  schemes: ['mailto', 'mailtos'],
  parse,
  describe(target) {
    const to = target.to.join(', ');
    if (target.server === null) return `E-mail to ${to} (through the server's mail settings)`;
    const { host, port, security, user } = target.server;
    return `E-mail to ${to} via ${host}:${port} (${security === 'ssl' ? 'TLS' : security === 'starttls' ? 'STARTTLS' : 'no TLS required'})${user ? `, as ${user}` : ''}`;
  },
  send,
};
