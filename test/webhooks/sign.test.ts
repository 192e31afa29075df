import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../src/keys/token-format.ts';
import { newWebhookId, signWebhook, webhookHeaders } from '../../src/webhooks/sign.ts';

/**
 * The known-answer vector of the Standard Webhooks JavaScript library
 * (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts, "sign function works").
 */
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const nonAsciiBody = JSON.stringify({ type: 'episode', title: 'Shōgun — 東京 🚀', subtitle: 'S01E02 · Servants of Two Masters', item_key: 'episode:42' });

describe('signWebhook', () => {
  it('gives the Standard Webhooks known answer', () => {
    expect(signWebhook(vector.secret, vector.id, vector.timestamp, vector.payload)).toBe(vector.signature);
  });

  it('agrees with the official library, for non-ASCII text too', () => {
    const secret = generateWebhookSecret();
    const at = new Date(vector.timestamp * 1000);
    for (const body of [vector.payload, nonAsciiBody]) {
      expect(signWebhook(secret, vector.id, vector.timestamp, body)).toBe(new Webhook(secret).sign(vector.id, at, body));
    }
  });

  it('refuses a malformed secret or timestamp without echoing the secret', () => {
    const secret = 'not-a-secret-ABCDEFGH';
    expect(() => signWebhook(secret, 'msg_1', 1, '{}')).toThrow(/starts with whsec_/);
    try {
      signWebhook(secret, 'msg_1', 1, '{}');
    } catch (error) {
      expect((error as Error).message).not.toContain('ABCDEFGH');
    }
    expect(() => signWebhook('whsec_', 'msg_1', 1, '{}')).toThrow(/holds no key bytes/);
    expect(() => signWebhook(vector.secret, 'msg_1', 1.5, '{}')).toThrow(/whole number of seconds/);
    expect(() => signWebhook(vector.secret, '', 1, '{}')).toThrow(/cannot be empty/);
  });
});

describe('webhookHeaders', () => {
  it('gives headers the official library verifies, with the timestamp in whole seconds', () => {
    const secret = generateWebhookSecret();
    const now = new Date();
    const headers = webhookHeaders({ secret, webhookId: 'msg_abc', body: nonAsciiBody, now });
    expect(headers).toEqual({
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      'content-type': 'application/json',
      'user-agent': 'Airdate-Webhooks/1',
    });
    expect(new Webhook(secret).verify(nonAsciiBody, headers)).toEqual(JSON.parse(nonAsciiBody));
    // A changed body or another secret fails, so the check above is not vacuous.
    expect(() => new Webhook(secret).verify(nonAsciiBody.replace('東京', '京都'), headers)).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(nonAsciiBody, headers)).toThrow();
  });
});

describe('newWebhookId', () => {
  it('is msg_ and 27 base62 characters, different every time', () => {
    const ids = Array.from({ length: 1000 }, () => newWebhookId());
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-Za-z]{27}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
