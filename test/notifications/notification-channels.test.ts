import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { vapidKeys } from '../../src/keys/vapid-keys.ts';
import { channelLimits } from '../../src/limits.ts';
import { deviceName } from '../../src/notifications/device-name.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { answering, hasOpenssl, selfSignedCertificate, startHttpsReceiver, startReceiver } from '../support/channel-peers.ts';

/**
 * Notification channels through GraphQL (issue 32, step 1): added from a URL, checked against the
 * outbound policy, stored encrypted and shown redacted, another account's ids unknown, a bound per
 * account, a test message to a real receiver, and browsers subscribed for web push.
 */
const tls = hasOpenssl ? selfSignedCertificate() : { key: '', cert: '' };
const { app } = await useTestApp({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_WEBHOOK_TIMEOUT_MS: '3000' }, { channelPeers: { trustedCertificates: [tls.cert] } });

const channelFields = 'databaseId name kind kindLabel destination events enabled consecutiveFailures disabledAt disabledReason';
const add = `mutation($input: AddNotificationChannelInput!) { addNotificationChannel(input: $input) {
  __typename ... on MutationAddNotificationChannelSuccess { data { ${channelFields} } } ... on InputError { message field } ... on Error { code message } } }`;
const update = `mutation($input: UpdateNotificationChannelInput!) { updateNotificationChannel(input: $input) {
  __typename ... on MutationUpdateNotificationChannelSuccess { data { ${channelFields} } } ... on InputError { message field } ... on Error { code message } } }`;
const remove = `mutation($id: Int!) { removeNotificationChannel(id: $id) { __typename ... on MutationRemoveNotificationChannelSuccess { data } ... on Error { code message } } }`;
const test = `mutation($id: Int!) { testNotificationChannel(id: $id) {
  __typename ... on MutationTestNotificationChannelSuccess { data { ok outcome status reason answer idempotencyKey removed } } ... on Error { code message } } }`;
const subscribe = `mutation($input: SubscribeWebPushInput!) { subscribeWebPush(input: $input) {
  __typename ... on MutationSubscribeWebPushSuccess { data { ${channelFields} } } ... on InputError { message field } ... on Error { code message } } }`;
const list = `{ viewer { notificationChannels { ${channelFields} deliveries { databaseId } } } }`;

async function addChannel(token: string, input: Record<string, unknown>) {
  const { json } = await graphql(app, token, add, { input });
  return json.data.addNotificationChannel;
}

it('adds a channel from its URL, stores the URL encrypted and never answers it', async () => {
  const user = await makeAccount();
  const url = 'ntfys://tk_supersecrettoken42@127.0.0.1:8443/airdate?priority=high';
  const added = await addChannel(user.token, { url, name: ' Phone  (ntfy) ' });
  expect(added.__typename).toBe('MutationAddNotificationChannelSuccess');
  expect(added.data).toMatchObject({
    name: 'Phone (ntfy)',
    kind: 'ntfy',
    kindLabel: 'ntfy',
    enabled: true,
    consecutiveFailures: 0,
    events: ['EPISODES_RELEASED', 'SEASON_PREMIERE', 'SERIES_PREMIERE', 'SEASON_FINALE', 'FILM_RELEASED', 'GAME_RELEASED', 'RELEASE_DATE_MOVED', 'SHOW_STATUS_CHANGED'],
  });
  expect(added.data.destination).toBe('ntfy: https://127.0.0.1:8443, topic airdate, with an access token');
  const listed = await graphql(app, user.token, list);
  expect(listed.json.data.viewer.notificationChannels).toEqual([{ ...added.data, deliveries: [] }]);
  expect(listed.text).not.toContain('supersecret');
  const row = await db().notificationChannel.findFirstOrThrow({ where: { accountId: user.id } });
  expect(JSON.stringify(row)).not.toContain('supersecret');
  expect(row.targetEnc).toMatch(/^v1\./);
});

it('gives each kind its default events, and takes the events asked for', async () => {
  const user = await makeAccount();
  const mail = await addChannel(user.token, { url: 'mailtos://me:pw@127.0.0.1?to=me@example.org' });
  expect(mail.data).toMatchObject({ kind: 'mail', events: ['SHOW_STATUS_CHANGED', 'DAILY_DIGEST', 'WEEKLY_PREMIERES'] });
  const chosen = await addChannel(user.token, { url: 'gotify://127.0.0.1/AbCdEfGh12345', events: ['GAME_RELEASED', 'EPISODES_RELEASED', 'GAME_RELEASED'] });
  expect(chosen.data.events).toEqual(['EPISODES_RELEASED', 'GAME_RELEASED']);
  const none = await addChannel(user.token, { url: 'gotify://127.0.0.1/Other12345', events: [] });
  expect(none.data.events).toEqual([]);
});

it('refuses bad URLs with the part at fault, and never echoes a token', async () => {
  const user = await makeAccount();
  for (const [url, message] of [
    ['', /empty/],
    ['https://example.com/hook', /https:\/\/ is not a channel/],
    ['not a url', /not a channel URL/],
    ['gotify://127.0.0.1', /token/i],
    ['tgram://123456:AAsecretbottoken/', /chat/i],
  ] as const) {
    const answer = await addChannel(user.token, { url });
    expect(answer.__typename, url).toBe('InputError');
    expect(answer.field).toBe('url');
    expect(answer.message).toMatch(message);
    expect(answer.message).not.toContain('AAsecretbottoken');
  }
  const unknownEvent = await graphql(app, user.token, add, { input: { url: 'gotify://127.0.0.1/Token123', events: ['NOPE'] } });
  expect(unknownEvent.json.errors[0].message).toMatch(/NOPE/);
  const longName = await addChannel(user.token, { url: 'gotify://127.0.0.1/Token123', name: 'n'.repeat(channelLimits.nameLength + 1) });
  expect(longName).toMatchObject({ __typename: 'InputError', field: 'name' });
  expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(0);
});

it('refuses a server AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow, when added and when changed', async () => {
  const user = await makeAccount();
  for (const url of ['gotify://10.0.0.1/Token123', 'json://169.254.169.254/latest', 'ntfy://192.168.1.20/topic', 'mailto://me:pw@10.1.2.3?to=me@example.org']) {
    const answer = await addChannel(user.token, { url });
    expect(answer.__typename, url).toBe('InputError');
    expect(answer.message).toMatch(/AIRDATE_WEBHOOK_ALLOWED_HOSTS/);
  }
  const allowed = await addChannel(user.token, { url: 'gotify://127.0.0.1/Token123' });
  const moved = (await graphql(app, user.token, update, { input: { id: allowed.data.databaseId, url: 'gotify://10.0.0.1/Token123' } })).json.data.updateNotificationChannel;
  expect(moved).toMatchObject({ __typename: 'InputError', field: 'url' });
  expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(1);
});

it("answers NOT_FOUND for another account's channel, and lists only the account's own", async () => {
  const owner = await makeAccount();
  const other = await makeAccount();
  const { data } = await addChannel(owner.token, { url: 'gotify://127.0.0.1/OwnersToken1' });
  const id = data.databaseId;
  const changed = await graphql(app, other.token, update, { input: { id, name: 'mine now', enabled: false } });
  expect(changed.json.data.updateNotificationChannel).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  expect((await graphql(app, other.token, remove, { id })).json.data.removeNotificationChannel).toMatchObject({ code: 'NOT_FOUND' });
  expect((await graphql(app, other.token, test, { id })).json.data.testNotificationChannel).toMatchObject({ code: 'NOT_FOUND' });
  expect((await graphql(app, other.token, list)).json.data.viewer.notificationChannels).toEqual([]);
  expect(await db().notificationChannel.findUniqueOrThrow({ where: { id } })).toMatchObject({ name: 'Gotify: http://127.0.0.1, with an application token', enabled: true });
});

it('changes name, events and on/off; a URL of another kind is refused; removing deletes it', async () => {
  const user = await makeAccount();
  const { data } = await addChannel(user.token, { url: 'gotify://127.0.0.1/Token123' });
  const id = data.databaseId;
  await db().notificationChannel.update({ where: { id }, data: { enabled: false, consecutiveFailures: 10, disabledAt: new Date(), disabledReason: 'failed 10 times' } });
  const changed = (await graphql(app, user.token, update, { input: { id, name: 'Desk', events: ['FILM_RELEASED'], enabled: true } })).json.data.updateNotificationChannel;
  expect(changed.data).toMatchObject({ name: 'Desk', events: ['FILM_RELEASED'], enabled: true, consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  const otherKind = (await graphql(app, user.token, update, { input: { id, url: 'ntfy://127.0.0.1/topic' } })).json.data.updateNotificationChannel;
  expect(otherKind).toMatchObject({ __typename: 'InputError', field: 'url' });
  const newUrl = (await graphql(app, user.token, update, { input: { id, url: 'gotify://127.0.0.1:8080/Token456' } })).json.data.updateNotificationChannel;
  expect(newUrl.data.destination).toMatch(/127\.0\.0\.1:8080/);
  expect((await graphql(app, user.token, remove, { id })).json.data.removeNotificationChannel).toEqual({ __typename: 'MutationRemoveNotificationChannelSuccess', data: id });
  expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(0);
});

it('refuses the same channel twice, even written differently', async () => {
  const user = await makeAccount();
  await addChannel(user.token, { url: 'ntfy://127.0.0.1/topic?priority=high&tags=tv', name: 'First' });
  const again = await addChannel(user.token, { url: 'ntfy://127.0.0.1/topic?tags=tv&priority=4' });
  expect(again).toMatchObject({ __typename: 'InputError', field: 'url', message: 'this channel is already set up, as "First"' });
  // Another account may send to the same place.
  const other = await makeAccount();
  expect((await addChannel(other.token, { url: 'ntfy://127.0.0.1/topic?priority=high&tags=tv' })).__typename).toBe('MutationAddNotificationChannelSuccess');
});

it(`keeps an account at ${channelLimits.perAccount} channels, under a burst of adds too`, async () => {
  const user = await makeAccount();
  const answers = await Promise.all(Array.from({ length: channelLimits.perAccount + 6 }, (_, index) => addChannel(user.token, { url: `gotify://127.0.0.1/Token${String(index).padStart(4, '0')}` })));
  const refused = answers.filter((answer) => answer.__typename === 'InputError');
  expect(refused.length).toBe(6);
  expect(refused[0].message).toMatch(new RegExp(`at most ${channelLimits.perAccount}`));
  expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(channelLimits.perAccount);
});

it('sends a test to the channel and reports the answer; a refusal is reported, not thrown', async () => {
  const receiver = await startReceiver({ respond: answering(200, { id: 'abc', event: 'message' }) });
  const user = await makeAccount();
  const { data } = await addChannel(user.token, { url: `ntfy://tk_testtoken99@127.0.0.1:${receiver.port}/airdate`, name: 'Phone' });
  const report = (await graphql(app, user.token, test, { id: data.databaseId })).json.data.testNotificationChannel.data;
  expect(report).toMatchObject({ ok: true, outcome: 'delivered', status: 200, reason: null, removed: false });
  expect(receiver.requests).toHaveLength(1);
  const sent = JSON.parse(receiver.requests[0]!.body);
  expect(sent).toMatchObject({ topic: 'airdate', title: 'Airdate test notification' });
  expect(sent.message).toContain('"Phone" works');
  expect(receiver.requests[0]!.headers.authorization).toBe('Bearer tk_testtoken99');

  const refusing = await startReceiver({ respond: answering(403, { error: 'forbidden tk_testtoken99' }) });
  const second = await addChannel(user.token, { url: `ntfy://tk_testtoken99@127.0.0.1:${refusing.port}/airdate` });
  const refused = await graphql(app, user.token, test, { id: second.data.databaseId });
  expect(refused.json.data.testNotificationChannel.data).toMatchObject({ ok: false, outcome: 'failed', status: 403 });
  expect(refused.text).not.toContain('tk_testtoken99');
  // A test is not a delivery: nothing in the log, no failure counted.
  expect(await db().notification.count({ where: { accountId: user.id } })).toBe(0);
  expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: second.data.databaseId } })).consecutiveFailures).toBe(0);
});

it('answers the VAPID public key browsers subscribe with', async () => {
  const user = await makeAccount();
  const { json } = await graphql(app, user.token, '{ webPushPublicKey }');
  expect(json.data.webPushPublicKey).toBe(vapidKeys().publicKey);
  expect(Buffer.from(json.data.webPushPublicKey, 'base64url')).toHaveLength(65);
});

it('names a device from its browser', () => {
  expect(deviceName('Mozilla/5.0 (Android 14; Mobile; rv:132.0) Gecko/132.0 Firefox/132.0')).toBe('Firefox on Android');
  expect(deviceName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari on iPhone');
  expect(deviceName('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0')).toBe('Edge on Windows');
  expect(deviceName('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36')).toBe('Chrome on Linux');
  expect(deviceName(null)).toBe('A browser');
});

describe.skipIf(!hasOpenssl)(`web push subscriptions${hasOpenssl ? '' : ' (SKIPPED: openssl is not on PATH)'}`, () => {
  const browserKeys = () => ({ p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') });
  const androidFirefox = 'Mozilla/5.0 (Android 14; Mobile; rv:132.0) Gecko/132.0 Firefox/132.0';

  it('subscribes a browser as a channel named after it; subscribing again updates the same channel', async () => {
    const user = await makeAccount();
    const endpoint = 'https://127.0.0.1:9/push/v2/abcdefghijklmnop';
    const subscribeAs = (keys: { p256dh: string; auth: string }) =>
      call(app, 'POST', '/graphql', { token: user.token, headers: { 'user-agent': androidFirefox }, body: { query: subscribe, variables: { input: { endpoint, keys } } } });
    const first = (await subscribeAs(browserKeys())).json.data.subscribeWebPush;
    expect(first.data).toMatchObject({ kind: 'webpush', kindLabel: 'Web push', name: 'Firefox on Android', destination: 'Web push to a browser via 127.0.0.1:9' });
    const again = await subscribeAs(browserKeys());
    expect(again.json.data.subscribeWebPush.data.databaseId).toBe(first.data.databaseId);
    expect(again.text).not.toContain('abcdefghijklmnop');
    expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(1);
  });

  it('refuses a subscription that is not one', async () => {
    const user = await makeAccount();
    for (const input of [
      { endpoint: 'http://127.0.0.1/push', keys: browserKeys() },
      { endpoint: 'https://127.0.0.1/push', keys: { p256dh: 'AAAA', auth: browserKeys().auth } },
      { endpoint: 'https://127.0.0.1/push', keys: { p256dh: browserKeys().p256dh, auth: 'short' } },
      { endpoint: `https://127.0.0.1/${'p'.repeat(3000)}`, keys: browserKeys() },
      { endpoint: 'https://10.0.0.1/push', keys: browserKeys() },
    ]) {
      const answer = (await graphql(app, user.token, subscribe, { input })).json.data.subscribeWebPush;
      expect(answer.__typename).toBe('InputError');
    }
    expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(0);
  });

  it('a test the push service answers 410 removes the subscription', async () => {
    const pushService = await startHttpsReceiver(tls, (_request, response) => response.writeHead(410).end('push subscription has unsubscribed or expired.'));
    const user = await makeAccount();
    const { json } = await graphql(app, user.token, subscribe, { input: { endpoint: `${pushService.url}/push/v2/gone-device`, keys: browserKeys() } });
    const id = json.data.subscribeWebPush.data.databaseId;
    const report = (await graphql(app, user.token, test, { id })).json.data.testNotificationChannel.data;
    expect(report).toMatchObject({ ok: false, outcome: 'gone', status: 410, removed: true });
    expect(pushService.requests).toHaveLength(1);
    expect(pushService.requests[0]!.headers['content-encoding']).toBe('aes128gcm');
    expect(await db().notificationChannel.count({ where: { accountId: user.id } })).toBe(0);
  });
});

it('mutes a show through GraphQL; an unknown show is NOT_FOUND', async () => {
  const user = await makeAccount();
  const show = await makeShow({ title: 'Loud' });
  const mute = `mutation($showId: Int!, $muted: Boolean!) { setShowNotificationsMuted(showId: $showId, muted: $muted) {
    __typename ... on MutationSetShowNotificationsMutedSuccess { data { databaseId notificationsMuted } } ... on Error { code } } }`;
  expect((await graphql(app, user.token, mute, { showId: show.id, muted: true })).json.data.setShowNotificationsMuted.data).toEqual({ databaseId: show.id, notificationsMuted: true });
  // Muted for this account only.
  const other = await makeAccount();
  const read = `query($id: Int!) { show(id: $id) { notificationsMuted } }`;
  expect((await graphql(app, other.token, read, { id: show.id })).json.data.show).toEqual({ notificationsMuted: false });
  expect((await graphql(app, user.token, read, { id: show.id })).json.data.show).toEqual({ notificationsMuted: true });
  expect((await graphql(app, user.token, mute, { showId: show.id, muted: false })).json.data.setShowNotificationsMuted.data.notificationsMuted).toBe(false);
  expect((await graphql(app, user.token, mute, { showId: 2_000_000_000, muted: true })).json.data.setShowNotificationsMuted).toEqual({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
});
