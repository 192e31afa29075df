import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { parseSmtpUrl } from '../../../src/mail/mail-server.ts';
import { parseAppriseUrl } from '../../../src/notifications/channels/apprise-url.ts';
import { channelSchemes, describeChannel, parseChannelUrl } from '../../../src/notifications/channels/channel-kinds.ts';

/**
 * Channel URLs in Apprise's notation: the forms its documentation gives for each scheme parse into
 * the target Apprise would make; bad ones are refused with an InputError naming the part at fault
 * and never quoting a secret; a description never holds a secret.
 */

const noDefault = { smtpDefault: undefined };
const parse = (url: string) => parseChannelUrl(url, noDefault);
const user30 = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const token30 = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const discordToken = 'JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js';

describe("Apprise's URL notation", () => {
  it("keeps + in values (tokens hold them), reads & and ; alike, and sorts +headers, -params and :payload apart", () => {
    const url = parseAppriseUrl('json://u:p%2Bq@host:8080/a/b%20c?Method=PUT;+X-Key=a+b&-page=2&:title=heading&flag', 'JSON');
    expect(url).toMatchObject({ scheme: 'json', user: 'u', password: 'p+q', host: 'host', port: 8080, path: ['a', 'b c'], headers: { 'X-Key': 'a+b' }, params: { page: '2' }, payload: { title: 'heading' } });
    expect([...url.options]).toEqual([
      ['method', 'PUT'],
      ['flag', ''],
    ]);
  });

  it.each([
    ['json://host:99999/', 'the port must be a number from 1 to 65535'],
    ['json://host:abc/', 'the port must be a number from 1 to 65535'],
    ['json://[::1/', 'opening [ without its ]'],
    ['json://ho st/', 'spaces or control characters'],
    ['json://host/%zz', 'path segment 1 holds a malformed %-escape'],
    ['json:/host', 'not a URL of the form scheme://'],
    [`json://host/${'a'.repeat(5000)}`, 'longer than 4096 characters'],
  ])('refuses %s naming the part', (url, message) => {
    expect(() => parseAppriseUrl(url, 'JSON')).toThrow(message);
  });

  it('never quotes a secret option whose escape is malformed', () => {
    expect(() => parseAppriseUrl('json://host/?token=sec%zzret', 'JSON')).toThrow(/^JSON: the option token holds a malformed %-escape$/);
  });
});

describe('the registry', () => {
  it('knows every scheme of the brief', () => {
    expect([...channelSchemes].sort()).toEqual(['apprise', 'apprises', 'discord', 'gotify', 'gotifys', 'json', 'jsons', 'mailto', 'mailtos', 'ntfy', 'ntfys', 'pover', 'tgram'].sort());
  });

  it.each([
    ['', 'the channel URL is empty'],
    ['https://example.com/hook', 'https:// is not a channel Airdate sends to'],
    ['slack://T1/B1/C1', 'slack:// is not a channel Airdate sends to'],
    ['ntfy.sh/topic', 'not a channel URL'],
  ])('refuses %j', (url, message) => {
    const error = (() => {
      try {
        parse(url);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(message);
    expect((error as InputError).field).toBe('url');
  });
});

/** A good URL, the target it makes, and its description. */
type Good = [url: string, target: Record<string, unknown>, description: string];
/** A bad URL, the words of its refusal, and a secret in it that the refusal must not quote. */
type Bad = [url: string, message: string, secret?: string];

const kinds: { name: string; good: Good[]; bad: Bad[] }[] = [
  {
    name: 'ntfy',
    good: [
      ['ntfy://airdate-topic', { server: null, topic: 'airdate-topic', auth: null, priority: null, tags: [], image: true }, 'ntfy: ntfy.sh, topic air…'],
      ['ntfys://ntfy.sh/airdate?priority=max&tags=tv,popcorn', { server: null, topic: 'airdate', priority: 5, tags: ['tv', 'popcorn'] }, 'ntfy: ntfy.sh, topic air…'],
      ['ntfy://me:pw@ntfy.lan:8080/alerts', { server: 'http://ntfy.lan:8080', topic: 'alerts', auth: { type: 'basic', user: 'me', password: 'pw' } }, 'ntfy: http://ntfy.lan:8080, topic alerts, as me'],
      ['ntfys://tk_AgQdq7mVBoFD37zQVN29RhuMz@ntfy.example.com/alerts', { server: 'https://ntfy.example.com', auth: { type: 'token', token: 'tk_AgQdq7mVBoFD37zQVN29RhuMz' } }, 'ntfy: https://ntfy.example.com, topic alerts, with an access token'],
      ['ntfys://ntfy.example.com/alerts?token=tk_abc123&priority=low&image=no&click=https://x.example/', { auth: { type: 'token', token: 'tk_abc123' }, priority: 2, image: false, click: 'https://x.example/' }, 'ntfy: https://ntfy.example.com, topic alerts, with an access token'],
    ],
    bad: [
      ['ntfy://', 'the topic is missing'],
      ['ntfy://host/a/b', 'one topic per channel'],
      ['ntfy://host/bad!topic', 'the topic must be 1 to 64 letters'],
      ['ntfy://host/t?priority=urgentt', 'priority= must be min, low, default, high, max or 1 to 5'],
      ['ntfy://host/t?colour=red', 'unknown option "colour"'],
      ['ntfy://host/t?click=javascript:alert(1)', 'click= must be an http(s) URL'],
      ['ntfy://host/t?auth=magic&token=tk_sekrit', 'auth= must be token or basic', 'tk_sekrit'],
    ],
  },
  {
    name: 'Gotify',
    good: [
      ['gotify://gotify.lan/AbCdEf12345', { server: 'http://gotify.lan', basePath: '/', token: 'AbCdEf12345', priority: null }, 'Gotify: http://gotify.lan, with an application token'],
      ['gotifys://example.com:8443/gotify/AbCdEf12345?priority=high', { server: 'https://example.com:8443', basePath: '/gotify/', priority: 8 }, 'Gotify: https://example.com:8443/gotify, with an application token'],
      ['gotify://gotify.lan/T?priority=10', { priority: 10 }, 'Gotify: http://gotify.lan, with an application token'],
    ],
    bad: [
      ['gotify://gotify.lan', 'the application token is missing'],
      ['gotify://gotify.lan/tok$en', 'holds characters a Gotify token never has', 'tok$en'],
      ['gotify:///token', 'the host is missing'],
      ['gotify://gotify.lan/t?priority=urgent', 'priority= must be low, moderate, normal, high, emergency or 0 to 10'],
    ],
  },
  {
    name: 'Discord',
    good: [
      [`discord://417429632418316298/${discordToken}`, { webhookId: '417429632418316298', webhookToken: discordToken, botName: null, threadId: null, image: true }, 'Discord: webhook 4174…'],
      [`discord://Airdate@417429632418316298/${discordToken}?thread=12345&image=no`, { botName: 'Airdate', threadId: '12345', image: false }, 'Discord: webhook 4174…, thread 12345, as Airdate'],
    ],
    bad: [
      ['discord://', 'the webhook id is missing'],
      [`discord://abc/${discordToken}`, 'the webhook id (after discord://) must be digits'],
      ['discord://417429632418316298', 'the webhook token is missing'],
      ['discord://417429632418316298/bad%20token!', 'holds characters a Discord token never has', 'bad token!'],
      [`discord://417429632418316298/${discordToken}?thread=abc`, 'thread= must be a thread id'],
    ],
  },
  {
    name: 'Telegram',
    good: [
      ['tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/12315544', { botToken: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chatId: '12315544', threadId: null, silent: false, preview: false, image: true }, 'Telegram: bot 123456789 (token …), chat 12315544'],
      ['tgram://bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/-1001234567890:42?silent=yes', { chatId: '-1001234567890', threadId: 42, silent: true }, 'Telegram: bot 123456789 (token …), chat -1001234567890, topic 42'],
      ['tgram://123456789%3AAAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/@mychannel?thread=7&preview=yes', { chatId: '@mychannel', threadId: 7, preview: true }, 'Telegram: bot 123456789 (token …), chat @mychannel, topic 7'],
    ],
    bad: [
      ['tgram://notatoken/123', 'the bot token must be <digits>:', 'notatoken'],
      ['tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', 'the chat id is missing', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'],
      ['tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/1/2', 'one chat per channel', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'],
      ['tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/1?silent=maybe', 'silent= must be yes or no', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'],
    ],
  },
  {
    name: 'Pushover',
    good: [
      [`pover://${user30}@${token30}`, { userKey: user30, appToken: token30, devices: [], priority: null }, 'Pushover: user uQiR…, every device'],
      [`pover://${user30}@${token30}/phone/tablet?priority=high&sound=cosmic&url_title=Go`, { devices: ['phone', 'tablet'], priority: 1, sound: 'cosmic', urlTitle: 'Go' }, 'Pushover: user uQiR…, devices phone, tablet'],
    ],
    bad: [
      [`pover://${token30}`, 'the user key is missing', token30],
      [`pover://short@${token30}`, 'the user key (before the @) must be', token30],
      [`pover://${user30}@bad`, 'the application token (after the @) must be', user30],
      [`pover://${user30}@${token30}?priority=emergency`, 'Airdate does not send emergencies', token30],
      [`pover://${user30}@${token30}/bad.device`, 'is not a device name', token30],
    ],
  },
  {
    name: 'e-mail',
    good: [
      ['mailto://user:pass@example.com', { server: { host: 'example.com', port: 25, security: 'insecure', user: 'user', password: 'pass', from: { address: 'user@example.com', name: null } }, to: ['user@example.com'] }, 'E-mail to user@example.com via example.com:25 (no TLS required), as user'],
      ['mailtos://me:app-password@gmail.com?to=friend@example.org', { server: { host: 'smtp.gmail.com', port: 587, security: 'starttls', user: 'me@gmail.com' }, to: ['friend@example.org'] }, 'E-mail to friend@example.org via smtp.gmail.com:587 (STARTTLS), as me@gmail.com'],
      ['mailtos://user:pass@example.com:465?smtp=mail.example.com&mode=ssl&from=airdate@example.com&name=Airdate', { server: { host: 'mail.example.com', port: 465, security: 'ssl', from: { address: 'airdate@example.com', name: 'Airdate' } } }, 'E-mail to airdate@example.com via mail.example.com:465 (TLS), as user'],
      ['mailto://user:pass@example.com/a@example.org/b@example.org', { to: ['a@example.org', 'b@example.org'] }, 'E-mail to a@example.org, b@example.org via example.com:25 (no TLS required), as user'],
    ],
    bad: [
      ['mailto://user:pass@example.com?mode=tls', 'mode= must be ssl, starttls or insecure'],
      ['mailto://example.com', 'from= is missing or not an address'],
      ['mailto://u:p@example.com?to=not-an-address', '"not-an-address" is not an e-mail address'],
      ['mailto://u:p@example.com?smtp=bad_host!', 'the mail server is not a valid host name'],
    ],
  },
  {
    name: 'JSON',
    good: [
      ['json://localhost', { url: 'http://localhost/', user: null, method: 'POST', headers: {}, payload: {} }, 'JSON POST to http://localhost'],
      ['jsons://user:pw@hooks.example.com:8443/path/to?method=patch&+X-Key=k&-q=1&:type=', { url: 'https://hooks.example.com:8443/path/to?q=1', user: 'user', password: 'pw', method: 'PATCH', headers: { 'X-Key': 'k' }, payload: { type: '' } }, 'JSON PATCH to https://hooks.example.com:8443/…, as user'],
    ],
    bad: [
      ['json://host/?method=delete', 'method= must be POST, PUT or PATCH'],
      ['json://host/?+Content-Length=1', 'the header Content-Length cannot be set'],
      ['json://host/?+Bad%20Name=1', 'is not a valid header name'],
      ['json://host/?+X-Split=a%0D%0AInjected:%201', "the header X-Split's value holds control characters"],
    ],
  },
  {
    name: 'Apprise API',
    good: [
      ['apprise://apprise.lan/abc123def', { server: 'http://apprise.lan', basePath: '', key: 'abc123def', urls: null, tags: [], method: 'form' }, 'Apprise API: http://apprise.lan, key abc…'],
      ['apprises://u:p@apprise.example.com:8000/sub/abc123def?tags=tv,phone&method=json', { server: 'https://apprise.example.com:8000', basePath: '/sub', key: 'abc123def', tags: ['tv', 'phone'], method: 'json' }, 'Apprise API: https://apprise.example.com:8000/sub, key abc…, tags tv, phone'],
      ['apprise://apprise.lan/?urls=ntfy%3A%2F%2Ftopic', { key: null, urls: 'ntfy://topic' }, 'Apprise API: http://apprise.lan, its stateless endpoint'],
    ],
    bad: [
      ['apprise://apprise.lan', 'the configuration key is missing'],
      ['apprise://apprise.lan/?to=k&urls=x', 'either a configuration key or urls=, not both'],
      ['apprise://apprise.lan/bad.key', 'the configuration key (the last part of the path) must be'],
      ['apprise://apprise.lan/k?method=xml', 'method= must be form or json'],
    ],
  },
];

describe.each(kinds)('$name URLs', ({ good, bad }) => {
  it.each(good)('reads %s', (url, target, description) => {
    const parsed = parse(url);
    expect(parsed).toMatchObject(target);
    expect(describeChannel(parsed)).toBe(description);
  });

  it.each(good)('describes %s without any secret', (url) => {
    const parsed = parse(url) as unknown as Record<string, unknown>;
    const secrets = collectSecrets(parsed);
    const description = describeChannel(parsed as never);
    for (const secret of secrets) expect(description).not.toContain(secret);
  });

  it.each(bad)('refuses %s', (url, message, secret) => {
    let error: unknown;
    try {
      parse(url);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain(message);
    if (secret) expect((error as Error).message).not.toContain(secret);
  });
});

/** Every value of a field named like a secret (token, password, key…), anywhere in a target. */
function collectSecrets(value: unknown, name = ''): string[] {
  if (typeof value === 'string') return /token|password|secret|userkey|key$|auth/i.test(name) && value.length > 3 ? [value] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, entry]) => collectSecrets(entry, key));
}

describe('AIRDATE_SMTP_URL', () => {
  it.each([
    ['smtp://relay.example.com?from=airdate@example.com', { host: 'relay.example.com', port: 587, security: 'starttls', user: null, password: null, from: { address: 'airdate@example.com', name: null } }],
    ['smtps://u:p%40ss@mail.example.com?from=a@example.com&name=Airdate', { port: 465, security: 'ssl', user: 'u', password: 'p@ss', from: { address: 'a@example.com', name: 'Airdate' } }],
    ['smtp://localhost:2525?from=a@example.com&mode=insecure', { host: 'localhost', port: 2525, security: 'insecure' }],
    ['smtp://[::1]?from=a@example.com&mode=insecure', { host: '::1', port: 25 }],
  ])('reads %s', (url, server) => {
    expect(parseSmtpUrl(url)).toMatchObject(server);
  });

  it.each([
    ['relay.example.com', 'not a URL'],
    ['http://relay.example.com?from=a@example.com', 'must start with smtp:// or smtps://'],
    ['smtp://relay.example.com', 'from= is missing'],
    ['smtp://relay.example.com?from=nobody', 'is not an e-mail address'],
    ['smtp://relay.example.com?from=a@example.com&mode=tls', 'mode= must be ssl, starttls or insecure'],
    ['smtp://relay.example.com?from=a@example.com&pool=true', 'unknown option "pool"'],
    ['smtp://u:secretpw@?from=a@example.com', 'not a URL'],
  ])('refuses %s', (url, message) => {
    expect(() => parseSmtpUrl(url)).toThrow(message);
    try {
      parseSmtpUrl(url);
    } catch (error) {
      expect((error as Error).message).not.toContain('secretpw');
    }
  });
});
