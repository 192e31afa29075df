import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseChannelUrl, sendToChannel } from '../../../src/notifications/channels/channel-kinds.ts';
import { hasOpenssl, testContext, testMessage } from '../../support/channel-peers.ts';

/**
 * Our URL parsing and requests against Apprise's own, for the same URL: Debian's `apprise` (the
 * reference sender) and we send the same title and body to one local receiver, and the requests
 * must say the same thing (where the service documents two equivalent forms, such as ntfy's
 * priority in a header or in the JSON, both are read). Hosted services (Discord, Telegram,
 * Pushover) are reached by Apprise through an HTTPS proxy the test runs, which ends TLS with a
 * certificate for their names that only this Apprise process trusts. Skipped, visibly, where
 * `apprise` or `openssl` is absent; CI installs apprise (.ci/run).
 */

const hasApprise = spawnSync('apprise', ['--version']).status === 0;
const run = promisify(execFile);
const title = "Severance S2E3 'Who Is Alive?' is out";
const body = 'Season 2, episode 3 of Severance is out.';
const message = () => testMessage({ title, body, link: null, poster: null, action: null });

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Records requests, answering each as the service does on success. */
function recorder(answer: (request: IncomingMessage) => unknown) {
  const seen: Seen[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, path: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(request)));
    });
  };
  return { seen, handler };
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-apprise-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A certificate for the hosted services' names, trusted by the Apprise process only (REQUESTS_CA_BUNDLE). */
function serviceCertificate() {
  const key = path.join(scratch, 'services.key');
  const cert = path.join(scratch, 'services.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=services', '-addext', 'subjectAltName=DNS:discord.com,DNS:api.telegram.org,DNS:api.pushover.net', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8'), certFile: cert };
}

/** Runs Apprise on one URL; through `proxyPort` (an HTTPS proxy) when given. */
async function apprise(url: string, proxy?: { port: number; caFile: string }) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch };
  if (proxy) Object.assign(env, { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, https_proxy: `http://127.0.0.1:${proxy.port}`, REQUESTS_CA_BUNDLE: proxy.caFile, NO_PROXY: '' });
  await run('apprise', ['-t', title, '-b', body, url], { env, timeout: 30_000 });
}

/** An HTTPS proxy that accepts CONNECT, ends TLS itself and hands the decrypted requests to `handler`. */
async function interceptingProxy(tls: { key: string; cert: string }, handler: (request: IncomingMessage, response: ServerResponse) => void) {
  const inner = createServer(handler);
  servers.push(inner);
  const proxy = createServer((_request, response) => response.writeHead(405).end());
  proxy.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secured = new TLSSocket(socket, { isServer: true, key: tls.key, cert: tls.cert });
    secured.on('error', () => {});
    inner.emit('connection', secured);
  });
  return listen(proxy);
}

const unescapeMarkdown = (text: string) => text.replace(/\\(.)/g, '$1');

describe.skipIf(!hasApprise)(`our requests against Apprise's for the same URL${hasApprise ? '' : ' (SKIPPED: apprise is not installed; apt-get install apprise)'}`, () => {
  it('ntfy: the same topic, title, message, priority, tags and user', async () => {
    const { seen, handler } = recorder(() => ({ id: 'x', event: 'message' }));
    const port = await listen(createServer(handler));
    // User and password: Debian's Apprise (1.2) predates the access-token forms (tk_… as the user,
    // ?token=), which follow Apprise's current source and are checked in service-requests.test.ts.
    const url = `ntfy://me:pa55word@127.0.0.1:${port}/airdate?priority=high&tags=popcorn`;
    await apprise(url);
    await sendToChannel(parseChannelUrl(url, { smtpDefault: undefined }), message(), testContext());
    const [theirs, ours] = seen as [Seen, Seen];
    const read = (request: Seen) => {
      const json = JSON.parse(request.body);
      const priority = json.priority ?? { min: 1, low: 2, default: 3, high: 4, max: 5 }[request.headers['x-priority'] as string] ?? 3;
      const tags = (json.tags ?? (request.headers['x-tags'] as string | undefined)?.split(',') ?? []).filter((tag: string) => tag !== 'tv');
      return { method: request.method, path: request.path, auth: request.headers.authorization, topic: json.topic, title: json.title, message: json.message, priority, tags };
    };
    expect(read(ours)).toEqual(read(theirs));
  });

  it('Gotify: the same path, token header, title, message and priority', async () => {
    const { seen, handler } = recorder(() => ({ id: 1 }));
    const port = await listen(createServer(handler));
    const url = `gotify://127.0.0.1:${port}/sub/AbCdEf12345?priority=high`;
    await apprise(url);
    await sendToChannel(parseChannelUrl(url, { smtpDefault: undefined }), message(), testContext());
    const read = (request: Seen) => {
      const json = JSON.parse(request.body);
      return { method: request.method, path: request.path, key: request.headers['x-gotify-key'], title: json.title, message: unescapeMarkdown(json.message), priority: json.priority };
    };
    expect(read(seen[1]!)).toEqual(read(seen[0]!));
  });

  it("JSON: Apprise's body exactly, with the same authentication, headers and query", async () => {
    const { seen, handler } = recorder(() => ({}));
    const port = await listen(createServer(handler));
    const url = `json://hook:s3cret@127.0.0.1:${port}/notify/me?+X-Token=abc&-source=airdate`;
    await apprise(url);
    await sendToChannel(parseChannelUrl(url, { smtpDefault: undefined }), message(), testContext());
    const read = (request: Seen) => ({ method: request.method, path: request.path, auth: request.headers.authorization, token: request.headers['x-token'], type: request.headers['content-type'], body: JSON.parse(request.body) });
    expect(read(seen[1]!)).toEqual(read(seen[0]!));
  });

  describe.skipIf(!hasOpenssl)('hosted services, Apprise reaching them through an intercepting proxy', () => {
    const certificate = hasOpenssl ? serviceCertificate() : undefined;

    /** Apprise through the proxy, then us straight to the same handler; both requests as seen. */
    async function both(url: string, answer: (request: IncomingMessage) => unknown, service: 'discord' | 'telegram' | 'pushover', base: (origin: string) => string) {
      const { seen, handler } = recorder(answer);
      const proxyPort = await interceptingProxy(certificate!, handler);
      await apprise(url, { port: proxyPort, caFile: certificate!.certFile });
      const direct = await listen(createServer(handler));
      await sendToChannel(parseChannelUrl(url, { smtpDefault: undefined }), message(), testContext({ serviceUrls: { [service]: base(`http://127.0.0.1:${direct}`) } }));
      expect(seen).toHaveLength(2);
      return seen as [Seen, Seen];
    }

    it('Discord: the same webhook path and token, the title and body in the message', async () => {
      const url = 'discord://417429632418316298/JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js';
      const [theirs, ours] = await both(url, () => ({ id: '1' }), 'discord', (origin) => `${origin}/api/webhooks`);
      expect(ours.path.split('?')[0]).toBe(theirs.path.split('?')[0]);
      expect(ours.method).toBe(theirs.method);
      const text = (request: Seen) => {
        const json = JSON.parse(request.body);
        return unescapeMarkdown([json.content, ...(json.embeds ?? []).flatMap((embed: { title?: string; description?: string }) => [embed.title, embed.description])].filter(Boolean).join('\n'));
      };
      expect(text(theirs)).toContain(title);
      expect(text(ours)).toContain(title);
      expect(text(theirs)).toContain(body);
      expect(text(ours)).toContain(body);
    });

    it('Telegram: the same bot path and method, chat, HTML parse mode, silence; the title bold and the body', async () => {
      const url = 'tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/-1001234567890?silent=yes';
      const [theirs, ours] = await both(url, () => ({ ok: true, result: { message_id: 1 } }), 'telegram', (origin) => origin);
      expect(ours.path).toBe(theirs.path);
      const read = (request: Seen) => {
        const json = JSON.parse(request.body);
        return { chat: String(json.chat_id), mode: json.parse_mode, silent: json.disable_notification, text: json.text.replace(/\r\n/g, '\n') };
      };
      expect({ ...read(ours), text: undefined }).toEqual({ ...read(theirs), text: undefined });
      expect(read(ours).text).toBe(`<b>${title}</b>\n${body}`);
      expect(read(theirs).text).toContain(`<b>${title}</b>`);
      expect(read(theirs).text).toContain(body);
    });

    it('Pushover: the same token, user, device, title, message and priority', async () => {
      const url = 'pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi/phone?priority=high';
      const [theirs, ours] = await both(url, () => ({ status: 1, request: 'r' }), 'pushover', (origin) => `${origin}/1/messages.json`);
      expect(ours.path).toBe(theirs.path);
      const read = (request: Seen) => {
        const form = Object.fromEntries(new URLSearchParams(request.body));
        return { token: form.token, user: form.user, device: form.device, title: form.title, message: form.message, priority: form.priority };
      };
      expect(read(ours)).toEqual(read(theirs));
    });
  });
});

