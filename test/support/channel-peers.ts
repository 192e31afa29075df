import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { deriveVapidKeys } from '../../src/keys/vapid-keys.ts';
import type { ChannelMessage, SendContext } from '../../src/notifications/channels/channel.ts';
import { writeNotification } from '../../src/notifications/notification-text.ts';
import { policies, startReceiver } from './webhook-receiver.ts';
import type { Receiver, Respond } from './webhook-receiver.ts';

export { policies, startReceiver };
export type { Receiver, Respond };

/** A fixed secret key, so the VAPID pair is the same in every run. */
export const testVapid = deriveVapidKeys(Buffer.alloc(32, 7));

export const testNow = new Date('2026-11-23T12:00:00.000Z');

/** A send context for tests: loopback allowed, a short timeout, the fixed clock and keys. */
export function testContext(overrides: Partial<SendContext> = {}): SendContext {
  return {
    policy: policies.withLoopback,
    timeoutMs: 3000,
    idempotencyKey: 'msg_2tGbQ0cnhJ7kzV9sT3fVYbRw1aa',
    smtpDefault: undefined,
    publicOrigin: 'https://airdate.example.com',
    vapid: testVapid,
    now: () => testNow,
    ...overrides,
  };
}

/** The message of "Severance S2E3 'Who Is Alive?' is out", with a "Mark watched" action. */
export function testMessage(overrides: Partial<ChannelMessage> = {}): ChannelMessage {
  const text = writeNotification(
    {
      type: 'episodes-released',
      show: { id: 56, title: 'Severance', poster: 'https://image.tmdb.org/t/p/w500/sev.jpg' },
      episodes: [{ season: 2, number: 3, title: 'Who Is Alive?' }],
    },
    { publicOrigin: 'https://airdate.example.com' },
  );
  return { ...text, action: { label: 'Mark watched', url: 'https://airdate.example.com/api/notification-actions/watched?token=act_abc' }, webhookBody: null, ...overrides };
}

/** A receiver answering each request with a status, headers and body (JSON when an object). */
export function answering(status: number, body: unknown = '', headers: Record<string, string> = {}): Respond {
  return (_request: IncomingMessage, response: ServerResponse) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const type = typeof body === 'string' ? 'text/plain' : 'application/json';
    response.writeHead(status, { 'content-type': type, ...headers }).end(text);
  };
}

/** A receiver that answers with `bytes` of HTML (a huge answer when large), as a proxy's error page would. */
export function answeringHtml(status: number, bytes = 200): Respond {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html' });
    response.end(`<html><body><h1>Bad gateway</h1>${'<p>x</p>'.repeat(Math.ceil(bytes / 8))}</body></html>`);
  };
}

/** A receiver that never answers (for timeouts). */
export const neverAnswering: Respond = () => {};

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-channel-tls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A self-signed certificate for 127.0.0.1 and localhost (openssl), trusted only by the tests that pass it. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const key = path.join(scratch, 'key.pem');
  const cert = path.join(scratch, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}

const httpsServers: Server[] = [];
afterEach(async () => {
  const open = httpsServers.splice(0);
  for (const server of open) server.closeAllConnections();
  await Promise.all(open.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** An HTTPS receiver on 127.0.0.1 with a self-signed certificate; requests are recorded with their raw body. */
export async function startHttpsReceiver(tls: { key: string; cert: string }, respond: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void) {
  const requests: { method: string; path: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  let connections = 0;
  const server = createHttpsServer(tls, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      respond(request, response, body);
    });
  });
  server.on('secureConnection', () => connections++);
  server.on('connection', (socket: Socket) => socket.on('error', () => {}));
  httpsServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, requests, connections: () => connections };
}
