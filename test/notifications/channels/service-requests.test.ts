import { describe, expect, it } from 'vitest';
import { parseChannelUrl, sendToChannel } from '../../../src/notifications/channels/channel-kinds.ts';
import { answering, startReceiver, testContext, testMessage } from '../../support/channel-peers.ts';
import type { Receiver } from '../../support/channel-peers.ts';

/**
 * What each kind sends, checked against the service's documented API (paths, methods, headers,
 * body fields and their types, authentication), and the answers only that service gives.
 */

const parse = (url: string) => parseChannelUrl(url, { smtpDefault: undefined });
const json = (receiver: Receiver, index = 0) => JSON.parse(receiver.requests[index]!.body);
const form = (receiver: Receiver, index = 0) => Object.fromEntries(new URLSearchParams(receiver.requests[index]!.body));
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('ntfy (JSON publish: POST / with topic, title, message, tags, priority, click, attach, actions)', () => {
  it('publishes to a server of its own with an access token', async () => {
    const receiver = await startReceiver({ respond: answering(200, { id: 'hwQ2YpKdmg', time: 1, event: 'message', topic: 'airdate' }) });
    const target = parse(`ntfy://tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2@127.0.0.1:${receiver.port}/airdate?priority=high&tags=popcorn`);
    expect(await sendToChannel(target, testMessage(), testContext())).toMatchObject({ outcome: 'delivered', status: 200 });
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/');
    expect(request!.headers.authorization).toBe('Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(json(receiver)).toEqual({
      topic: 'airdate',
      title: "Severance S2E3 'Who Is Alive?' is out",
      message: 'Season 2, episode 3 of Severance is out.',
      tags: ['tv', 'popcorn'],
      priority: 4,
      click: 'https://airdate.example.com/shows/56',
      attach: 'https://image.tmdb.org/t/p/w500/sev.jpg',
      actions: [{ action: 'http', label: 'Mark watched', url: 'https://airdate.example.com/api/notification-actions/watched?token=act_abc', method: 'POST', clear: true }],
    });
  });

  it('publishes to ntfy.sh for ntfy://topic, with user and password as Basic authentication elsewhere', async () => {
    const cloud = await startReceiver({ respond: answering(200, {}) });
    await sendToChannel(parse('ntfy://airdate-mine'), testMessage({ action: null, poster: null }), testContext({ serviceUrls: { ntfy: cloud.url } }));
    expect(json(cloud)).toMatchObject({ topic: 'airdate-mine', priority: 3 });
    expect(json(cloud)).not.toHaveProperty('actions');
    expect(json(cloud)).not.toHaveProperty('attach');
    const own = await startReceiver({ respond: answering(200, {}) });
    await sendToChannel(parse(`ntfy://me:pa%24%24@127.0.0.1:${own.port}/alerts?image=no`), testMessage(), testContext());
    expect(own.requests[0]!.headers.authorization).toBe(basic('me', 'pa$$'));
    expect(json(own)).not.toHaveProperty('attach');
  });

  it('keeps a long message within ntfy\'s 4 KB', async () => {
    const receiver = await startReceiver({ respond: answering(200, {}) });
    await sendToChannel(parse(`ntfy://127.0.0.1:${receiver.port}/t`), testMessage({ body: 'ö'.repeat(5000) }), testContext());
    const { message } = json(receiver);
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(4000);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('Gotify (POST /message with X-Gotify-Key; title, message, priority, extras)', () => {
  it('posts to the path before the token, Markdown escaped, the click link and the poster in extras', async () => {
    const receiver = await startReceiver({ respond: answering(200, { id: 25, appid: 5, message: '…' }) });
    const target = parse(`gotify://127.0.0.1:${receiver.port}/gotify/AbCdEfGh12345?priority=high`);
    const message = testMessage({ body: 'Catalog *bold* [link](javascript:alert(1)) <b>' });
    expect(await sendToChannel(target, message, testContext())).toMatchObject({ outcome: 'delivered' });
    const [request] = receiver.requests;
    expect(request!.path).toBe('/gotify/message');
    expect(request!.headers['x-gotify-key']).toBe('AbCdEfGh12345');
    expect(json(receiver)).toEqual({
      title: "Severance S2E3 'Who Is Alive?' is out",
      message: 'Catalog \\*bold\\* \\[link\\]\\(javascript:alert\\(1\\)\\) \\<b\\>\n\n[Open in Airdate](https://airdate.example.com/shows/56)',
      priority: 8,
      extras: {
        'client::display': { contentType: 'text/markdown' },
        'client::notification': { click: { url: 'https://airdate.example.com/shows/56' }, bigImageUrl: 'https://image.tmdb.org/t/p/w500/sev.jpg' },
      },
    });
  });

  it('reads Gotify\'s error body into the reason', async () => {
    const receiver = await startReceiver({
      respond: answering(401, { error: 'Unauthorized', errorCode: 401, errorDescription: 'you need to provide a valid access token or user credentials to access this api' }),
    });
    const outcome = await sendToChannel(parse(`gotify://127.0.0.1:${receiver.port}/badtoken`), testMessage(), testContext());
    expect(outcome).toMatchObject({ outcome: 'failed', status: 401, reason: expect.stringContaining('Unauthorized') });
  });
});

describe('Discord (POST /api/webhooks/{id}/{token}?wait=true, one embed)', () => {
  const url = 'discord://Airdate@417429632418316298/JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js?thread=1234567890';

  it('sends an embed with title, url, escaped description, thumbnail; mentions off', async () => {
    const receiver = await startReceiver({ respond: answering(200, { id: '1', type: 0, content: '' }) });
    const message = testMessage({ body: '@everyone *Severance* is _back_' });
    expect(await sendToChannel(parse(url), message, testContext({ serviceUrls: { discord: `${receiver.url}/api/webhooks` } }))).toMatchObject({ outcome: 'delivered' });
    const [request] = receiver.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/api/webhooks/417429632418316298/JHZ7lQml277CDHmQKMHI8qBe7bk2ZwO5UKjCiOAF7711o33MyqU344Qpgv7YTpadV_js?wait=true&thread_id=1234567890');
    expect(json(receiver)).toEqual({
      username: 'Airdate',
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: "Severance S2E3 'Who Is Alive?' is out",
          description: '@everyone \\*Severance\\* is \\_back\\_',
          url: 'https://airdate.example.com/shows/56',
          color: 0x3b82f6,
          thumbnail: { url: 'https://image.tmdb.org/t/p/w500/sev.jpg' },
        },
      ],
    });
  });

  it('keeps the embed within Discord\'s limits', async () => {
    const receiver = await startReceiver({ respond: answering(200, {}) });
    await sendToChannel(parse(url), testMessage({ title: 'T'.repeat(400), body: '*'.repeat(5000) }), testContext({ serviceUrls: { discord: `${receiver.url}/api/webhooks` } }));
    const [embed] = json(receiver).embeds;
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.description).toMatch(/^(\\\*)+…$/);
  });

  it('waits as long as its 429 body says (retry_after in seconds, more precise than the header)', async () => {
    const receiver = await startReceiver({ respond: answering(429, { message: 'You are being rate limited.', retry_after: 64.57, global: false }, { 'retry-after': '65' }) });
    const outcome = await sendToChannel(parse(url), testMessage(), testContext({ serviceUrls: { discord: `${receiver.url}/api/webhooks` } }));
    expect(outcome).toMatchObject({ outcome: 'retry', status: 429, retryAfterMs: 64_570, reason: expect.stringContaining('You are being rate limited.') });
  });
});

describe('Telegram (sendPhoto / sendMessage, HTML parse mode)', () => {
  const url = 'tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/-1001234567890?thread=42&silent=yes';
  const context = (receiver: Receiver) => testContext({ serviceUrls: { telegram: receiver.url } });

  it('sends the poster with the text as its caption, HTML escaped', async () => {
    const receiver = await startReceiver({ respond: answering(200, { ok: true, result: { message_id: 7 } }) });
    const message = testMessage({ title: 'Tom & Jerry <3', body: 'A <b>bold</b> "claim" & more' });
    expect(await sendToChannel(parse(url), message, context(receiver))).toMatchObject({ outcome: 'delivered' });
    const [request] = receiver.requests;
    expect(request!.path).toBe('/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendPhoto');
    expect(json(receiver)).toEqual({
      chat_id: '-1001234567890',
      message_thread_id: 42,
      disable_notification: true,
      parse_mode: 'HTML',
      photo: 'https://image.tmdb.org/t/p/w500/sev.jpg',
      caption: '<b>Tom &amp; Jerry &lt;3</b>\nA &lt;b&gt;bold&lt;/b&gt; &quot;claim&quot; &amp; more\n<a href="https://airdate.example.com/shows/56">Open in Airdate</a>',
    });
  });

  it('sends text alone without a poster, within 4096 characters', async () => {
    const receiver = await startReceiver({ respond: answering(200, { ok: true, result: {} }) });
    await sendToChannel(parse(url), testMessage({ poster: null, body: '<'.repeat(5000) }), context(receiver));
    expect(receiver.requests[0]!.path).toMatch(/\/sendMessage$/);
    const body = json(receiver);
    expect(body.text.length).toBeLessThanOrEqual(4096);
    expect(body.text).not.toMatch(/&l?$|&lt(?!;)/);
    expect(body.link_preview_options).toEqual({ is_disabled: true });
  });

  it('falls back to the text when Telegram cannot fetch the poster', async () => {
    const receiver = await startReceiver({
      respond: (request, response, body) =>
        request.url!.endsWith('/sendPhoto')
          ? answering(400, { ok: false, error_code: 400, description: 'Bad Request: wrong file identifier/HTTP URL specified' })(request, response, body)
          : answering(200, { ok: true, result: {} })(request, response, body),
    });
    expect(await sendToChannel(parse(url), testMessage(), context(receiver))).toMatchObject({ outcome: 'delivered' });
    expect(receiver.requests.map((request) => request.path.split('/').at(-1))).toEqual(['sendPhoto', 'sendMessage']);
  });

  it('reads ok: false with error_code and parameters.retry_after', async () => {
    const receiver = await startReceiver({ respond: answering(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 35', parameters: { retry_after: 35 } }) });
    expect(await sendToChannel(parse(url), testMessage({ poster: null }), context(receiver))).toMatchObject({
      outcome: 'retry',
      status: 429,
      retryAfterMs: 35_000,
      reason: expect.stringContaining('Too Many Requests: retry after 35'),
    });
    const blocked = await startReceiver({ respond: answering(403, { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }) });
    expect(await sendToChannel(parse(url), testMessage({ poster: null }), context(blocked))).toMatchObject({ outcome: 'failed', status: 403, reason: expect.stringContaining('bot was blocked') });
  });
});

describe('Pushover (POST /1/messages.json, form fields)', () => {
  const user = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
  const token = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';

  it('sends the form with HTML text, the item link and the poster as attachment', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const images = await startReceiver({ respond: (_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(png) });
    const receiver = await startReceiver({ respond: answering(200, { status: 1, request: '647d2300-702c-4b38-8b2f-d56326ae460b' }) });
    const message = testMessage({ poster: `${images.url}/poster.png`, body: 'Fish & <chips>' });
    const outcome = await sendToChannel(parse(`pover://${user}@${token}/phone/tablet?priority=high&sound=cosmic`), message, testContext({ serviceUrls: { pushover: `${receiver.url}/1/messages.json` } }));
    expect(outcome).toMatchObject({ outcome: 'delivered' });
    expect(receiver.requests[0]!.path).toBe('/1/messages.json');
    expect(receiver.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form(receiver)).toEqual({
      token,
      user,
      device: 'phone,tablet',
      title: "Severance S2E3 'Who Is Alive?' is out",
      message: 'Fish &amp; &lt;chips&gt;',
      html: '1',
      priority: '1',
      sound: 'cosmic',
      url: 'https://airdate.example.com/shows/56',
      url_title: 'Open in Airdate',
      attachment_base64: png.toString('base64'),
      attachment_type: 'image/png',
    });
  });

  it("reads Pushover's errors array", async () => {
    const receiver = await startReceiver({ respond: answering(400, { user: 'invalid', errors: ['user identifier is not a valid user, group, or subscribed user key'], status: 0 }) });
    const outcome = await sendToChannel(parse(`pover://${user}@${token}`), testMessage({ poster: null }), testContext({ serviceUrls: { pushover: receiver.url } }));
    expect(outcome).toMatchObject({ outcome: 'failed', status: 400, reason: expect.stringContaining('user identifier is not a valid user') });
  });
});

describe("JSON (Apprise's body: version, title, message, attachments, type)", () => {
  it('posts the body with Basic authentication, extra headers, query parameters and payload changes', async () => {
    const receiver = await startReceiver({ respond: answering(204) });
    const target = parse(`json://hook:s3cret@127.0.0.1:${receiver.port}/notify/me?+X-Token=abc&-source=airdate&:message=text&:type=&:app=Airdate`);
    expect(await sendToChannel(target, testMessage(), testContext())).toMatchObject({ outcome: 'delivered', status: 204 });
    const [request] = receiver.requests;
    expect(request!.path).toBe('/notify/me?source=airdate');
    expect(request!.headers).toMatchObject({ authorization: basic('hook', 's3cret'), 'x-token': 'abc', 'content-type': 'application/json', 'idempotency-key': 'msg_2tGbQ0cnhJ7kzV9sT3fVYbRw1aa' });
    expect(json(receiver)).toEqual({
      version: '1.0',
      title: "Severance S2E3 'Who Is Alive?' is out",
      text: 'Season 2, episode 3 of Severance is out.\n\nhttps://airdate.example.com/shows/56',
      attachments: [],
      app: 'Airdate',
    });
  });

  it('sends PUT when told', async () => {
    const receiver = await startReceiver({ respond: answering(200) });
    await sendToChannel(parse(`json://127.0.0.1:${receiver.port}/?method=put`), testMessage(), testContext());
    expect(receiver.requests[0]!.method).toBe('PUT');
  });
});

describe('Apprise API (POST /notify/{key}, or the stateless /notify/)', () => {
  it('posts the form to a stored configuration with its tags', async () => {
    const receiver = await startReceiver({ respond: answering(200, { success: true }) });
    const target = parse(`apprise://admin:pw@127.0.0.1:${receiver.port}/apprise/mykey?tags=tv,phone`);
    expect(await sendToChannel(target, testMessage(), testContext())).toMatchObject({ outcome: 'delivered' });
    const [request] = receiver.requests;
    expect(request!.path).toBe('/apprise/notify/mykey');
    expect(request!.headers).toMatchObject({ authorization: basic('admin', 'pw'), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
    expect(form(receiver)).toEqual({
      title: "Severance S2E3 'Who Is Alive?' is out",
      body: 'Season 2, episode 3 of Severance is out.\n\nhttps://airdate.example.com/shows/56',
      type: 'info',
      format: 'text',
      tag: 'tv,phone',
    });
  });

  it('sends JSON to the stateless endpoint with the URLs to notify', async () => {
    const receiver = await startReceiver({ respond: answering(200, {}) });
    const urls = encodeURIComponent('mailto://user:pass@example.com, pbul://o.gn5kj6nfhv736I7jC3cj3QLRiyhgl98b');
    await sendToChannel(parse(`apprise://127.0.0.1:${receiver.port}/?method=json&urls=${urls}`), testMessage(), testContext());
    expect(receiver.requests[0]!.path).toBe('/notify/');
    expect(json(receiver)).toMatchObject({ urls: 'mailto://user:pass@example.com, pbul://o.gn5kj6nfhv736I7jC3cj3QLRiyhgl98b', type: 'info', format: 'text' });
  });

  it("fails on its 424 (one or more of its notifications failed)", async () => {
    const receiver = await startReceiver({ respond: answering(424, { error: 'One or more notification could not be sent.' }) });
    expect(await sendToChannel(parse(`apprise://127.0.0.1:${receiver.port}/k`), testMessage(), testContext())).toMatchObject({ outcome: 'failed', status: 424 });
  });
});
