import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  at: Date;
}

/** What the receiver answers: a status (and headers, after `delayMs`), or `hang` to never answer. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real HTTP webhook receiver on 127.0.0.1 for the calling test file: records every request and
 * answers with `answer(n)` for the n-th one (1-based; 204 unless told). Closed after the file.
 */
export async function startWebhookReceiver(answer: (requestNumber: number) => ReceiverAnswer = () => ({ status: 204 })) {
  const received: ReceivedWebhook[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();
  let respond = answer;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: new Date() });
      for (const waiter of waiters.filter((entry) => received.length >= entry.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const reply = respond(received.length);
      if (reply === 'hang') {
        hanging.add(response);
        return;
      }
      const answer = () => response.writeHead(reply.status, reply.headers).end();
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  afterAll(close);
  return {
    url: `http://127.0.0.1:${port}/hooks/airdate`,
    port,
    received,
    /** Changes what later requests are answered. */
    answerWith(next: (requestNumber: number) => ReceiverAnswer) {
      respond = next;
    },
    /** Resolves once `count` requests in all have arrived (rejects after `timeoutMs`). */
    waitFor(count: number, timeoutMs = 15_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} webhook(s) arrived in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close,
  };
}
