import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/send-webhook.ts';
import type { LookupFunction, SendWebhookProps } from '../../src/webhooks/send-webhook.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';
import { policies, startReceiver, testSecret } from '../support/webhook-receiver.ts';

function send(url: string, overrides: Partial<SendWebhookProps> = {}) {
  return sendWebhook({ url, webhookId: 'msg_test', body: '{}', secret: testSecret, policy: policies.defaults, timeoutMs: 5000, ...overrides });
}

/** A resolver answering from a script, one answer per call (the last repeats), counting calls. */
function scriptedLookup(answers: LookupAddress[][]) {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    setImmediate(() => callback(null, answer));
  };
  return { lookup, calls };
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });

describe('sendWebhook under the default policy (external,private)', () => {
  it.each([
    ['http://127.0.0.1:PORT/', '127.0.0.1 is a loopback address'],
    ['http://localhost:PORT/', 'localhost resolves to 127.0.0.1, a loopback address'],
    ['http://0x7f000001:PORT/', '127.0.0.1 is a loopback address'],
    ['http://2130706433:PORT/', '127.0.0.1 is a loopback address'],
    ['http://127.1:PORT/', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1:PORT/', '127.0.0.1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]:PORT/', '::ffff:7f00:1 is a loopback address'],
    ['http://[::ffff:7f00:1]:PORT/', '::ffff:7f00:1 is a loopback address'],
    ['http://0.0.0.0:PORT/', '0.0.0.0 is an unspecified address'],
    ['http://0:PORT/', '0.0.0.0 is an unspecified address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a cloud metadata address'],
  ])('refuses %s without connecting', async (template, reason) => {
    const receiver = await startReceiver();
    const result = await send(template.replace('PORT', String(receiver.port)));
    expect(result).toMatchObject({ outcome: 'failed', statusCode: null, retryAfterMs: null });
    expect(result.error).toContain(reason);
    expect(result.error).toContain('AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow');
    expect(receiver.connections).toBe(0);
  });

  it('never connects through http://LOCALHOST./ either (the resolver may not know the dotted name)', async () => {
    const receiver = await startReceiver();
    const result = await send(`http://LOCALHOST.:${receiver.port}/`);
    expect(result.outcome).not.toBe('success');
    expect(receiver.connections).toBe(0);
  });

  it('refuses http://[::1]/ without connecting to the receiver listening there', async () => {
    const receiver = await startReceiver({ host: '::1' });
    const result = await send(receiver.url);
    expect(result).toMatchObject({ outcome: 'failed', error: expect.stringContaining('::1 is a loopback address') });
    expect(receiver.connections).toBe(0);
  });

  it('refuses a name that resolves to a refused address, and never opens a connection', async () => {
    const receiver = await startReceiver();
    const { lookup, calls } = scriptedLookup([[v4('127.0.0.1')]]);
    const result = await send(`http://hooks.example:${receiver.port}/`, { lookup });
    expect(result).toMatchObject({ outcome: 'failed', error: expect.stringContaining('hooks.example resolves to 127.0.0.1, a loopback address') });
    expect(calls).toEqual(['hooks.example']);
    expect(receiver.connections).toBe(0);
  });
});

describe('DNS rebinding', () => {
  /** Receivers on two loopback aliases sharing one port; only 127.0.0.2 is allowed. */
  async function twoAliases() {
    const allowed = await startReceiver({ host: '127.0.0.2' });
    const refused = await startReceiver({ host: '127.0.0.1', port: allowed.port });
    return { allowed, refused, policy: parseTargetPolicy('external,private,127.0.0.2/32') };
  }

  it('connects to the address it checked: the resolver is asked once, its second answer never counts', async () => {
    const { allowed, refused, policy } = await twoAliases();
    const { lookup, calls } = scriptedLookup([[v4('127.0.0.2')], [v4('127.0.0.1')]]);
    const result = await send(`http://rebind.example:${allowed.port}/`, { lookup, policy });
    expect(result).toMatchObject({ outcome: 'success', statusCode: 204 });
    expect(calls).toEqual(['rebind.example']);
    expect(allowed.requests.map((request) => request.localAddress)).toEqual(['127.0.0.2']);
    expect(allowed.requests[0]!.headers.host).toBe(`rebind.example:${allowed.port}`);
    expect(refused.connections).toBe(0);

    // The next attempt gets the rebound answer, and is refused before connecting.
    const second = await send(`http://rebind.example:${allowed.port}/`, { lookup, policy });
    expect(second).toMatchObject({ outcome: 'failed', error: expect.stringContaining('rebind.example resolves to 127.0.0.1') });
    expect(refused.connections).toBe(0);
    expect(allowed.requests).toHaveLength(1);
  });

  it('with several addresses, connects only to allowed ones', async () => {
    const { allowed, refused, policy } = await twoAliases();
    for (const answer of [[v4('127.0.0.1'), v4('127.0.0.2')], [v4('127.0.0.2'), v4('127.0.0.1')], [v4('169.254.169.254'), v4('127.0.0.1'), v4('127.0.0.2')]]) {
      const { lookup } = scriptedLookup([answer]);
      expect(await send(`http://multi.example:${allowed.port}/`, { lookup, policy })).toMatchObject({ outcome: 'success' });
    }
    expect(allowed.requests.map((request) => request.localAddress)).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.2']);
    expect(refused.connections).toBe(0);
  });

  it('refuses when every address is refused, naming the first', async () => {
    const { allowed, refused, policy } = await twoAliases();
    const { lookup } = scriptedLookup([[v4('127.0.0.1'), { address: '::1', family: 6 }]]);
    expect(await send(`http://multi.example:${allowed.port}/`, { lookup, policy })).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('multi.example resolves to 127.0.0.1'),
    });
    expect(allowed.connections + refused.connections).toBe(0);
  });

  it('treats a resolver error or an empty answer as a retry', async () => {
    const failing: LookupFunction = (_hostname, _options, callback) => callback(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), []);
    expect(await send('http://down.example/', { lookup: failing })).toMatchObject({ outcome: 'retry', error: 'host name lookup failed (temporary DNS failure)' });
    const { lookup } = scriptedLookup([[]]);
    expect(await send('http://empty.example/', { lookup })).toMatchObject({ outcome: 'retry', error: 'host name not found' });
  });

  it('times out a resolver that never answers', async () => {
    const hanging: LookupFunction = () => {};
    expect(await send('http://slow.example/', { lookup: hanging, timeoutMs: 200 })).toMatchObject({ outcome: 'retry', error: 'no answer within 200 ms (timed out)' });
  });

  it('lets a listed host name reach loopback', async () => {
    const receiver = await startReceiver();
    const { lookup } = scriptedLookup([[v4('127.0.0.1')]]);
    const policy = parseTargetPolicy('external,private,ha.example');
    expect(await send(`http://ha.example:${receiver.port}/`, { lookup, policy })).toMatchObject({ outcome: 'success' });
    expect(receiver.requests).toHaveLength(1);
  });
});
