import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/send-webhook.ts';
import type { SendWebhookProps } from '../../src/webhooks/send-webhook.ts';
import { policies, startReceiver, testSecret } from '../support/webhook-receiver.ts';

const body = JSON.stringify({ type: 'movie', title: 'Amélie — 東京', subtitle: 'Movie · 2001', poster: 'https://img.example/p.jpg', item_key: 'movie:7', id: 7, air_date: '2001-04-25' });

function send(url: string, overrides: Partial<SendWebhookProps> = {}) {
  return sendWebhook({ url, webhookId: 'msg_test', body, secret: testSecret, policy: policies.withLoopback, timeoutMs: 5000, ...overrides });
}

describe('sendWebhook deliveries', () => {
  it('POSTs the exact body with signed headers the official library verifies', async () => {
    const receiver = await startReceiver();
    const result = await send(`${receiver.url}/hooks/airdate?x=1`);
    expect(result).toEqual({ outcome: 'success', statusCode: 204, durationMs: expect.any(Number), error: null, retryAfterMs: null, responseBody: '' });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/airdate?x=1');
    expect(request!.body).toBe(body);
    expect(request!.headers).toMatchObject({
      'webhook-id': 'msg_test',
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
      'content-type': 'application/json',
      'user-agent': 'Airdate-Webhooks/1',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(new Webhook(testSecret).verify(request!.body, request!.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('signs with the injected clock', async () => {
    const receiver = await startReceiver();
    await send(receiver.url, { now: () => new Date('2030-01-02T03:04:05.678Z') });
    expect(receiver.requests[0]!.headers['webhook-timestamp']).toBe(String(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000));
  });

  it('reaches a receiver on [::1] when loopback is allowed', async () => {
    const receiver = await startReceiver({ host: '::1' });
    expect((await send(receiver.url)).outcome).toBe('success');
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([
    [200, 'success'],
    [202, 'success'],
    [410, 'gone'],
    [400, 'failed'],
    [404, 'failed'],
    [500, 'retry'],
    [503, 'retry'],
  ] as const)('answers HTTP %i → %s', async (status, outcome) => {
    const receiver = await startReceiver({ respond: (_, response) => response.writeHead(status).end('nope') });
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome, statusCode: status, retryAfterMs: null });
    expect(result.error === null).toBe(outcome === 'success');
    if (outcome !== 'success') expect(result.error).toMatch(new RegExp(`^the receiver answered HTTP ${status}`));
  });

  it('reads Retry-After as seconds or as an HTTP date', async () => {
    const seconds = await startReceiver({ respond: (_, response) => response.writeHead(429, { 'retry-after': '120' }).end() });
    expect(await send(seconds.url)).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 120_000 });
    const now = new Date('2030-01-01T12:00:00Z');
    const dated = await startReceiver({ respond: (_, response) => response.writeHead(503, { 'retry-after': 'Tue, 01 Jan 2030 12:30:00 GMT' }).end() });
    expect(await send(dated.url, { now: () => now })).toMatchObject({ outcome: 'retry', statusCode: 503, retryAfterMs: 30 * 60_000 });
    const garbage = await startReceiver({ respond: (_, response) => response.writeHead(503, { 'retry-after': 'soon' }).end() });
    expect(await send(garbage.url)).toMatchObject({ outcome: 'retry', retryAfterMs: null });
  });

  it('never follows a redirect', async () => {
    const target = await startReceiver();
    for (const status of [301, 302, 307, 308]) {
      const redirecting = await startReceiver({ respond: (_, response) => response.writeHead(status, { location: `${target.url}/` }).end() });
      const result = await send(redirecting.url);
      expect(result).toMatchObject({ outcome: 'failed', statusCode: status, error: `redirect not followed (HTTP ${status} to ${target.url}/)` });
      expect(redirecting.requests).toHaveLength(1);
    }
    expect(target.connections).toBe(0);
  });

  it('gives up on a receiver that never answers after timeoutMs, as a retry', async () => {
    const silent = await startReceiver({ respond: () => {} });
    const result = await send(silent.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'retry', statusCode: null, error: 'no answer within 300 ms (timed out)' });
    expect(silent.requests).toHaveLength(1);
  });

  it('keeps the status of an answer whose body is still trickling in at the deadline', async () => {
    const trickling = await startReceiver({ respond: (_, response) => response.writeHead(200).write('{') });
    expect(await send(trickling.url, { timeoutMs: 300 })).toMatchObject({ outcome: 'success', statusCode: 200, error: null });
  });

  it('retries when the connection is refused', async () => {
    // A port that was just listening and is closed again refuses connections.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    expect(await send(`http://127.0.0.1:${port}/`)).toMatchObject({ outcome: 'retry', statusCode: null, error: 'connection refused', retryAfterMs: null });
  });

  it('reads only a few KB of an endless answer and hangs up', async () => {
    let written = 0;
    const endless = await startReceiver({
      respond: (_, response) => {
        response.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) written += chunk.length;
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
      },
    });
    // A deadline past the test's own timeout: only the cap can end this attempt in time.
    expect(await send(endless.url, { timeoutMs: 60_000 })).toMatchObject({ outcome: 'success', statusCode: 200 });
    // The client closed its end: the server's socket closes instead of streaming for ever.
    await expect.poll(() => endless.sockets.size).toBe(0);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it.each([
    ['ftp://127.0.0.1/x', 'the webhook URL must start with http:// or https://, not ftp://'],
    ['file:///etc/passwd', 'the webhook URL must start with http:// or https://, not file://'],
    ['not a url', 'the webhook URL is not a valid URL'],
  ])('refuses %s without sending', async (url, error) => {
    expect(await send(url)).toMatchObject({ outcome: 'failed', statusCode: null, error });
  });

  it('reports an unusable secret as a failure without showing it', async () => {
    const receiver = await startReceiver();
    const result = await send(receiver.url, { secret: 'plain-secret-value' });
    expect(result).toMatchObject({ outcome: 'failed', error: 'cannot sign the webhook: a webhook secret starts with whsec_' });
    expect(receiver.connections).toBe(0);
  });
});
