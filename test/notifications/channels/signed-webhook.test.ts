import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { sendToChannel } from '../../../src/notifications/channels/channel-kinds.ts';
import { signedWebhookKind, signedWebhookTarget } from '../../../src/notifications/channels/signed-webhook.ts';
import { answering, startReceiver, testContext, testMessage } from '../../support/channel-peers.ts';
import { testSecret } from '../../support/webhook-receiver.ts';

/**
 * The signed webhook as a channel sends exactly what the webhook sender of main sent for the same
 * input: webhook-request.golden.txt holds the raw request main's sendWebhook wrote (recorded before
 * the sender moved onto the shared outbound module), with its port written as PORT.
 */

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A raw TCP receiver: records every byte of one request, answers 204. */
async function rawReceiver() {
  const chunks: Buffer[] = [];
  const server = createServer((socket) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? 0);
      if (end >= 0 && Buffer.concat(chunks).length >= end + 4 + length) socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, bytes: () => Buffer.concat(chunks) };
}

const storedPayload = JSON.stringify({
  type: 'episode',
  title: 'Severance — 東京',
  subtitle: 'S02E03 · Who Is Alive?',
  poster: 'https://image.tmdb.org/t/p/w500/x.jpg',
  item_key: 'episode:1234',
  id: 1234,
  air_date: '2025-01-31',
  show_id: 56,
});

describe('the signed webhook as a channel', () => {
  it("sends main's request byte for byte: the stored body, the idempotency key as webhook-id, the signature", async () => {
    const receiver = await rawReceiver();
    const target = signedWebhookTarget({ url: `http://127.0.0.1:${receiver.port}/hooks/airdate?x=1`, secret: testSecret });
    const outcome = await sendToChannel(target, testMessage({ webhookBody: storedPayload }), testContext({ idempotencyKey: 'msg_2tGbQ0cnhJ7kzV9sT3fVYbRw1aa' }));
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 204 });
    const golden = readFileSync(new URL('./webhook-request.golden.txt', import.meta.url));
    const sent = Buffer.from(receiver.bytes().toString('latin1').replace(`127.0.0.1:${receiver.port}`, '127.0.0.1:PORT'), 'latin1');
    // Line ends compared as written on the wire: CRLF, whatever a checkout made of the file's.
    const wire = (bytes: Buffer) => bytes.toString('latin1').replace(/\r?\n/g, '\r\n');
    expect(wire(sent)).toBe(wire(golden));
  });

  it('writes a body from the text when the caller has none, verified by the official library', async () => {
    const receiver = await startReceiver();
    const target = signedWebhookTarget({ url: `${receiver.url}/hook`, secret: testSecret });
    // The library checks the timestamp against the real clock.
    await sendToChannel(target, testMessage(), testContext({ now: () => new Date() }));
    const [request] = receiver.requests;
    expect(new Webhook(testSecret).verify(request!.body, request!.headers as Record<string, string>)).toEqual({
      type: 'episodes-released',
      title: "Severance S2E3 'Who Is Alive?' is out",
      subtitle: 'Season 2, episode 3 of Severance is out.',
      poster: 'https://image.tmdb.org/t/p/w500/sev.jpg',
      item_key: 'show-56',
      link: 'https://airdate.example.com/shows/56',
    });
  });

  it.each([
    [410, 'gone'],
    [429, 'retry'],
    [503, 'retry'],
    [400, 'failed'],
  ] as const)('answers %i: %s', async (status, expected) => {
    const receiver = await startReceiver({ respond: answering(status, '', status === 429 ? { 'retry-after': '7' } : {}) });
    const outcome = await sendToChannel(signedWebhookTarget({ url: receiver.url, secret: testSecret }), testMessage(), testContext());
    expect(outcome).toMatchObject({ outcome: expected, status });
    if (status === 429) expect(outcome).toMatchObject({ retryAfterMs: 7000 });
  });

  it('is described without its path or secret, and refuses a bad URL or secret', () => {
    const target = signedWebhookTarget({ url: 'https://ha.example.lan/api/webhook/secret-id', secret: testSecret });
    expect(signedWebhookKind.describe(target)).toBe('Signed webhook to https://ha.example.lan/…');
    expect(() => signedWebhookTarget({ url: 'ftp://x', secret: testSecret })).toThrow('must start with http:// or https://');
    expect(() => signedWebhookTarget({ url: 'https://x', secret: 'nope' })).toThrow('whsec_');
  });
});
