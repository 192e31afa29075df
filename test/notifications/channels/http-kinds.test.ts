import { describe, expect, it } from 'vitest';
import { parseChannelUrl, sendToChannel } from '../../../src/notifications/channels/channel-kinds.ts';
import type { AnyChannelTarget } from '../../../src/notifications/channels/channel-kinds.ts';
import type { SendContext } from '../../../src/notifications/channels/channel.ts';
import { parseTargetPolicy } from '../../../src/webhooks/target-policy.ts';
import { answering, answeringHtml, neverAnswering, startReceiver, testContext, testMessage } from '../../support/channel-peers.ts';
import type { Receiver, Respond } from '../../support/channel-peers.ts';

/**
 * Every HTTP kind against a local receiver answering as the service does, and the failures every
 * kind meets the same way: 429 with Retry-After, 5xx, another 4xx, no answer, an HTML page, a
 * huge answer, a refused address.
 */

const parse = (url: string) => parseChannelUrl(url, { smtpDefault: undefined });
const token30 = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const user30 = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

/** A kind's URL pointed at the receiver, and the context that sends there. */
interface Case {
  name: string;
  target: (receiver: Receiver) => AnyChannelTarget;
  context?: (receiver: Receiver) => Partial<SendContext>;
  /** What the service answers on success. */
  success: Respond;
  /** A secret of the URL that must never appear in an outcome. */
  secret: string;
}

const cases: Case[] = [
  { name: 'ntfy', target: (r) => parse(`ntfy://tk_secrettoken123@127.0.0.1:${r.port}/airdate`), success: answering(200, { id: 'x', event: 'message' }), secret: 'tk_secrettoken123' },
  { name: 'Gotify', target: (r) => parse(`gotify://127.0.0.1:${r.port}/AbCdEf.123-xyz`), success: answering(200, { id: 1 }), secret: 'AbCdEf.123-xyz' },
  {
    name: 'Discord',
    target: () => parse('discord://417429632418316298/JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js'),
    context: (r) => ({ serviceUrls: { discord: `${r.url}/api/webhooks` } }),
    success: answering(200, { id: '1', type: 0 }),
    secret: 'JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js',
  },
  {
    name: 'Telegram',
    target: () => parse('tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/-1001234567890'),
    context: (r) => ({ serviceUrls: { telegram: r.url } }),
    success: answering(200, { ok: true, result: { message_id: 7 } }),
    secret: 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  },
  {
    name: 'Pushover',
    target: () => parse(`pover://${user30}@${token30}/phone`),
    context: (r) => ({ serviceUrls: { pushover: `${r.url}/1/messages.json` } }),
    success: answering(200, { status: 1, request: 'abc' }),
    secret: token30,
  },
  { name: 'JSON', target: (r) => parse(`json://hook:s3cretpass@127.0.0.1:${r.port}/notify`), success: answering(200, 'ok'), secret: 's3cretpass' },
  { name: 'Apprise API', target: (r) => parse(`apprise://127.0.0.1:${r.port}/myconfigkey`), success: answering(200, { success: true }), secret: 'myconfigkey' },
];

/** The message without a poster, so Pushover sends one request (the poster fetch is tested on its own). */
const message = () => testMessage({ poster: null });

describe.each(cases)('$name: the failures every kind meets', (entry) => {
  async function sendWith(respond: Respond, overrides: Partial<SendContext> = {}) {
    const receiver = await startReceiver({ respond });
    const outcome = await sendToChannel(entry.target(receiver), message(), testContext({ ...entry.context?.(receiver), ...overrides }));
    expect(JSON.stringify(outcome)).not.toContain(entry.secret);
    return { receiver, outcome };
  }

  it('delivers on success', async () => {
    const { outcome, receiver } = await sendWith(entry.success);
    expect(outcome).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries on 429, after the Retry-After asked for', async () => {
    const { outcome } = await sendWith(answering(429, { error: 'slow down' }, { 'retry-after': '30' }));
    expect(outcome).toMatchObject({ outcome: 'retry', status: 429, retryAfterMs: 30_000 });
  });

  it.each([500, 502, 503])('retries on %i', async (status) => {
    const { outcome } = await sendWith(answering(status, 'upstream trouble'));
    expect(outcome).toMatchObject({ outcome: 'retry', status, retryAfterMs: null });
  });

  it.each([400, 401, 403, 404, 413])('fails for good on %i, with a reason safe to show', async (status) => {
    const { outcome } = await sendWith(answering(status, { error: `no (${entry.secret})` }));
    expect(outcome).toMatchObject({ outcome: 'failed', status });
    expect((outcome as { reason: string }).reason).toMatch(new RegExp(`HTTP ${status}`));
  });

  it('never follows a redirect', async () => {
    const { outcome } = await sendWith(answering(302, '', { location: 'http://127.0.0.1:1/elsewhere' }));
    expect(outcome).toMatchObject({ outcome: 'failed', status: 302, reason: expect.stringContaining('redirect not followed') });
  });

  it('retries when no answer comes within the timeout', async () => {
    const { outcome } = await sendWith(neverAnswering, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ outcome: 'retry', status: null, reason: expect.stringContaining('no answer within 300 ms') });
  });

  it('reads an HTML error page as its status says, without its markup in the reason', async () => {
    const { outcome } = await sendWith(answeringHtml(502));
    expect(outcome).toMatchObject({ outcome: 'retry', status: 502 });
    expect((outcome as { reason: string }).reason).not.toContain('<');
  });

  it('reads at most 16 KB of a huge answer and closes the connection', async () => {
    const { outcome, receiver } = await sendWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      // 64 MB would be written if the client kept reading.
      let sent = 0;
      const write = () => {
        while (sent < 1024 && response.write(chunk)) sent++;
        if (sent < 1024) response.once('drain', write);
        else response.end();
      };
      write();
    });
    expect(outcome.outcome).toBe('delivered');
    expect(outcome.answer!.length).toBeLessThanOrEqual(16 * 1024);
    await expect.poll(() => receiver.sockets.size).toBe(0);
  });

  it('is refused on a loopback address (Airdate itself, say) under the default policy, without connecting', async () => {
    const { outcome, receiver } = await sendWith(entry.success, { policy: parseTargetPolicy('external,private') });
    expect(outcome).toMatchObject({ outcome: 'failed', status: null, reason: expect.stringContaining('AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow') });
    expect(receiver.connections).toBe(0);
  });
});
