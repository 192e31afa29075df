import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';

/** One request a test receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The local address the connection arrived at (which loopback alias the client connected to). */
  localAddress: string | undefined;
}

/** A local webhook receiver: a real HTTP server on a loopback address and port 0 (or a given port). */
export interface Receiver {
  port: number;
  host: string;
  /** `http://<host>:<port>` (IPv6 in brackets). */
  url: string;
  requests: ReceivedRequest[];
  /** Every connection accepted, whether or not a request followed. */
  connections: number;
  /** Sockets still open, for tests that check the client hung up. */
  sockets: Set<Socket>;
}

export type Respond = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Server[] = [];

afterEach(async () => {
  const open = servers.splice(0);
  for (const server of open) server.closeAllConnections();
  await Promise.all(open.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Starts a receiver that answers 204 unless `respond` says otherwise; closed after each test. */
export async function startReceiver(options: { host?: string; port?: number; respond?: Respond } = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const respond: Respond = options.respond ?? ((_, response) => response.writeHead(204).end());
  const sockets = new Set<Socket>();
  const receiver: Receiver = { port: 0, host, url: '', requests: [], connections: 0, sockets };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, localAddress: request.socket.localAddress });
      respond(request, response, body);
    });
  });
  server.on('connection', (socket: Socket) => {
    receiver.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://${host.includes(':') ? `[${host}]` : host}:${receiver.port}`;
  return receiver;
}

/** Policies the tests use: the default, and the default plus loopback (test receivers are on loopback). */
export const policies = {
  defaults: parseTargetPolicy('external,private'),
  withLoopback: parseTargetPolicy('external,private,loopback'),
};

/** A test secret (24 bytes, like generated ones). */
export const testSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** What a scripted receiver answers: a status (and headers, after `delayMs`), or `hang` to never answer. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A receiver for release-engine tests: answers the n-th request (1-based) with `answer(n)` (204
 * unless told), can change its answers later, and can be waited on for a number of requests.
 */
export async function startWebhookReceiver(answer: (requestNumber: number) => ReceiverAnswer = () => ({ status: 204 })) {
  let next = answer;
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver = await startReceiver({
    respond: (_request, response) => {
      const received = receiver.requests.length;
      for (const waiter of waiters.filter((entry) => received >= entry.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const reply = next(received);
      if (reply === 'hang') return; // the connection is closed after the test
      const send = () => response.writeHead(reply.status, reply.headers).end();
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    },
  });
  return {
    url: `${receiver.url}/hooks/airdate`,
    received: receiver.requests,
    /** Changes what later requests are answered. */
    answerWith(later: (requestNumber: number) => ReceiverAnswer) {
      next = later;
    },
    /** Resolves once `count` requests in all have arrived (rejects after `timeoutMs`). */
    waitFor(count: number, timeoutMs = 15_000): Promise<void> {
      if (receiver.requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${receiver.requests.length} of ${count} webhook(s) arrived in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}
