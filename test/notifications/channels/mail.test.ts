import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server as TcpServer, Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSmtpUrl } from '../../../src/mail/mail-server.ts';
import { parseChannelUrl, sendToChannel } from '../../../src/notifications/channels/channel-kinds.ts';
import type { ParseContext } from '../../../src/notifications/channels/channel.ts';
import { parseTargetPolicy } from '../../../src/webhooks/target-policy.ts';
import { hasOpenssl, selfSignedCertificate, testContext, testMessage } from '../../support/channel-peers.ts';

/** One mail a test server received: the envelope, whether TLS carried it, who signed in, and the mail as mailparser reads it. */
interface Received {
  from: string;
  to: string[];
  secure: boolean;
  user: string | undefined;
  mail: ParsedMail;
}

const servers: (SMTPServer | TcpServer)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A real SMTP server (smtp-server) on 127.0.0.1: accepts `user`/`password` when given, and records each mail parsed by mailparser. */
async function startSmtpServer(options: Partial<SMTPServerOptions> & { user?: string; password?: string } = {}) {
  const received: Received[] = [];
  let connections = 0;
  const { user, password, ...rest } = options;
  const server = new SMTPServer({
    authOptional: user === undefined,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session: SMTPServerSession, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((entry) => entry.address),
            secure: session.secure,
            user: session.user as string | undefined,
            mail,
          });
          callback();
        },
        (error) => callback(error),
      );
    },
    ...rest,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, connections: () => connections };
}

const noDefault: ParseContext = { smtpDefault: undefined };

describe('mail through a real SMTP server', () => {
  it('sends a multipart text and HTML mail with AUTH, parsed back by mailparser', async () => {
    const smtp = await startSmtpServer({ user: 'airdate', password: 'p@ss word', disabledCommands: ['STARTTLS'] });
    const target = parseChannelUrl(`mailto://airdate:p%40ss%20word@127.0.0.1:${smtp.port}?from=airdate@example.com&name=Airdate&to=me@example.org`, noDefault);
    const outcome = await sendToChannel(target, testMessage({ title: 'Tom & Jerry <3', body: 'A line\nand <b>another</b>' }), testContext());
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 250 });
    expect(JSON.stringify(outcome)).not.toContain('p@ss word');
    const [mail] = smtp.received;
    expect(mail!.user).toBe('airdate');
    expect(mail!.from).toBe('airdate@example.com');
    expect(mail!.to).toEqual(['me@example.org']);
    expect(mail!.mail.subject).toBe('Tom & Jerry <3');
    expect(mail!.mail.from!.value).toEqual([{ name: 'Airdate', address: 'airdate@example.com' }]);
    expect(mail!.mail.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    expect(mail!.mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail!.mail.text).toContain('A line\nand <b>another</b>');
    expect(mail!.mail.text).toContain('Open in Airdate: https://airdate.example.com/shows/56');
    expect(mail!.mail.text).toContain('Mark watched: https://airdate.example.com/api/notification-actions/watched?token=act_abc');
    const html = mail!.mail.html as string;
    expect(html).toContain('<h1 style="font-size:1.2em">Tom &amp; Jerry &lt;3</h1>');
    expect(html).toContain('A line<br>and &lt;b&gt;another&lt;/b&gt;');
    // The poster is an image linked to the item's page, not a hidden pixel.
    expect(html).toContain('<a href="https://airdate.example.com/shows/56"><img src="https://image.tmdb.org/t/p/w500/sev.jpg" alt="" width="154"');
    expect(html).toContain('<a href="https://airdate.example.com/shows/56">Open in Airdate</a>');
  });

  it('gives every attempt of one message the same Message-ID, and another message another', async () => {
    const smtp = await startSmtpServer({ disabledCommands: ['STARTTLS'] });
    const target = parseChannelUrl(`mailto://127.0.0.1:${smtp.port}?from=airdate@example.com`, noDefault);
    await sendToChannel(target, testMessage(), testContext({ idempotencyKey: 'key-1' }));
    await sendToChannel(target, testMessage(), testContext({ idempotencyKey: 'key-1' }));
    await sendToChannel(target, testMessage(), testContext({ idempotencyKey: 'key-2' }));
    const ids = smtp.received.map((entry) => entry.mail.messageId);
    expect(ids[0]).toMatch(/^<[0-9a-f]{32}@airdate\.example\.com>$/);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    // No `to`: the mail goes to the From address, as Apprise does.
    expect(smtp.received[0]!.to).toEqual(['airdate@example.com']);
  });

  it('fails for good on a wrong password (535), without the password in the reason', async () => {
    const smtp = await startSmtpServer({ user: 'airdate', password: 'right', disabledCommands: ['STARTTLS'] });
    const target = parseChannelUrl(`mailto://airdate:wrongpassword@127.0.0.1:${smtp.port}?from=a@example.com`, noDefault);
    const outcome = await sendToChannel(target, testMessage(), testContext());
    expect(outcome).toMatchObject({ outcome: 'failed', status: 535 });
    expect(JSON.stringify(outcome)).not.toContain('wrongpassword');
    expect(smtp.received).toHaveLength(0);
  });

  it('retries on a temporary refusal (451) and fails on a permanent one (550)', async () => {
    for (const [code, expected] of [
      [451, 'retry'],
      [550, 'failed'],
    ] as const) {
      const smtp = await startSmtpServer({
        disabledCommands: ['STARTTLS'],
        onRcptTo(_address, _session, callback) {
          callback(Object.assign(new Error(code === 451 ? 'Try again later' : 'No such user'), { responseCode: code }));
        },
      });
      const target = parseChannelUrl(`mailto://127.0.0.1:${smtp.port}?from=a@example.com&to=b@example.org`, noDefault);
      expect(await sendToChannel(target, testMessage(), testContext())).toMatchObject({ outcome: expected, status: code });
    }
  });

  it('retries when the server never greets within the timeout', async () => {
    const silent = createTcpServer((socket: Socket) => socket.on('error', () => {}));
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const target = parseChannelUrl(`mailto://127.0.0.1:${port}?from=a@example.com`, noDefault);
    const started = Date.now();
    const outcome = await sendToChannel(target, testMessage(), testContext({ timeoutMs: 500 }));
    expect(outcome).toMatchObject({ outcome: 'retry', status: null });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("refuses a channel's own server on a loopback address under the default policy, without connecting", async () => {
    const smtp = await startSmtpServer({ disabledCommands: ['STARTTLS'] });
    const target = parseChannelUrl(`mailto://127.0.0.1:${smtp.port}?from=a@example.com`, noDefault);
    const outcome = await sendToChannel(target, testMessage(), testContext({ policy: parseTargetPolicy('external,private') }));
    expect(outcome).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow') });
    expect(smtp.connections()).toBe(0);
  });

  it("sends a plain address through the operator's AIRDATE_SMTP_URL (trusted, even on loopback)", async () => {
    const smtp = await startSmtpServer({ user: 'relay', password: 'relaypw', disabledCommands: ['STARTTLS'] });
    const smtpDefault = parseSmtpUrl(`smtp://relay:relaypw@127.0.0.1:${smtp.port}?mode=insecure&from=airdate@example.com&name=Airdate`);
    for (const url of ['me@example.org', 'mailto:me@example.org']) {
      const target = parseChannelUrl(url, { smtpDefault });
      expect(target).toEqual({ kind: 'mail', server: null, to: ['me@example.org'] });
      const outcome = await sendToChannel(target, testMessage(), testContext({ smtpDefault, policy: parseTargetPolicy('external,private') }));
      expect(outcome).toMatchObject({ outcome: 'delivered' });
    }
    expect(smtp.received.map((entry) => [entry.user, entry.from, entry.to])).toEqual([
      ['relay', 'airdate@example.com', ['me@example.org']],
      ['relay', 'airdate@example.com', ['me@example.org']],
    ]);
  });

  it('refuses a plain address when the operator set no mail server', () => {
    expect(() => parseChannelUrl('me@example.org', noDefault)).toThrow(/a plain address needs the server-wide mail server \(AIRDATE_SMTP_URL\)/);
  });
});

describe.skipIf(!hasOpenssl)(`mail over TLS to a server with a self-signed certificate${hasOpenssl ? '' : ' (SKIPPED: openssl is not on PATH)'}`, () => {
  const tls = hasOpenssl ? selfSignedCertificate() : { key: '', cert: '' };

  it('mailtos:// upgrades with STARTTLS before AUTH, trusting the certificate only where told', async () => {
    const smtp = await startSmtpServer({ key: tls.key, cert: tls.cert, user: 'u', password: 'pw', allowInsecureAuth: false });
    const target = parseChannelUrl(`mailtos://u:pw@127.0.0.1:${smtp.port}?from=a@example.com`, noDefault);
    expect(await sendToChannel(target, testMessage(), testContext({ trustedCertificates: [tls.cert] }))).toMatchObject({ outcome: 'delivered' });
    expect(smtp.received[0]!.secure).toBe(true);
    const untrusted = await sendToChannel(target, testMessage(), testContext());
    expect(untrusted).toMatchObject({ outcome: 'retry', reason: expect.stringMatching(/self[- ]signed certificate/) });
    expect(smtp.received).toHaveLength(1);
  });

  it('mailtos:// refuses a server that does not offer STARTTLS, rather than sending the password in the clear', async () => {
    const smtp = await startSmtpServer({ disabledCommands: ['STARTTLS'], user: 'u', password: 'pw' });
    const target = parseChannelUrl(`mailtos://u:pw@127.0.0.1:${smtp.port}?from=a@example.com`, noDefault);
    expect((await sendToChannel(target, testMessage(), testContext())).outcome).not.toBe('delivered');
    expect(smtp.received).toHaveLength(0);
  });

  it('mode=ssl speaks TLS from the first byte', async () => {
    const smtp = await startSmtpServer({ secure: true, key: tls.key, cert: tls.cert, user: 'u', password: 'pw' });
    const target = parseChannelUrl(`mailtos://u:pw@127.0.0.1:${smtp.port}?from=a@example.com&mode=ssl`, noDefault);
    expect(await sendToChannel(target, testMessage(), testContext({ trustedCertificates: [tls.cert] }))).toMatchObject({ outcome: 'delivered' });
    expect(smtp.received[0]!.secure).toBe(true);
  });
});
