import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { channelLimits } from '../../src/limits.ts';
import type { ChannelServices } from '../../src/notifications/channel-services.ts';
import { deliverNotification, findDueNotifications, prepareRedelivery } from '../../src/notifications/deliveries.ts';
import { addChannel, subscribeWebPush } from '../../src/notifications/notification-channels.ts';
import { findAccountsToCheck, recordReleaseNotifications } from '../../src/notifications/releases.ts';
import { setShowMuted } from '../../src/notifications/show-mutes.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { answering, hasOpenssl, selfSignedCertificate, startHttpsReceiver, startReceiver } from '../support/channel-peers.ts';
import type { Respond } from '../support/channel-peers.ts';

/**
 * Every message to every channel goes the webhook's durable way (issue 32, steps 2 and 3): a row
 * per (channel, event) recorded first, then delivered with retries on 429/5xx (Retry-After
 * honoured), none on other 4xx, a gone web push subscription removed, a channel turned off after
 * repeated failures with a notice on the others; a release reaches each channel that chose it once.
 */
initSecretKey(await useTestDatabase());

const tls = hasOpenssl ? selfSignedCertificate() : { key: '', cert: '' };
const services: ChannelServices = {
  policy: parseTargetPolicy('loopback'),
  timeoutMs: 3_000,
  smtpDefault: undefined,
  publicOrigin: 'https://airdate.example.com',
  trustedCertificates: [tls.cert],
};
const today = new Date().toISOString().slice(0, 10);
const record = (accountId: number) => recordReleaseNotifications({ accountId, now: new Date(), publicOrigin: services.publicOrigin });
const deliver = (notificationId: number, manual = false) => deliverNotification({ notificationId, manual, policy: services.policy, timeoutMs: services.timeoutMs, channels: services });

/** Delivers every due notification of the account, as the account check's jobs do, until none is due. */
async function deliverAll(accountId: number) {
  for (const id of await findDueNotifications({ accountId, now: new Date() })) await deliver(id);
}

async function followed(accountId: number, item: { kind: 'show' | 'movie'; id: number }) {
  await setFollow({ accountId, kind: item.kind, id: item.id, followed: true });
}

/** A JSON channel (Apprise's json://) to a fresh receiver answering as told. */
async function jsonChannel(accountId: number, respond: Respond = answering(200, { ok: true }), events?: string[]) {
  const receiver = await startReceiver({ respond });
  const channel = await addChannel({ accountId, url: `json://127.0.0.1:${receiver.port}/notify`, name: `JSON ${receiver.port}`, events, services });
  return { receiver, channel };
}

describe('a release reaches each channel that chose it, once', () => {
  it('groups one show’s episodes into one message, a film into its own; the webhook keeps one per item', async () => {
    const user = await makeAccount();
    const show = await makeShow({ title: 'Severance', episodes: [1, 2, 3].map((number) => ({ season: 2, number, title: `Part ${number}`, airDate: today })).concat([{ season: 2, number: 10, title: 'Cold Harbor', airDate: '2099-01-01' }]) });
    const movie = await makeMovie({ title: 'Arrival', releaseDate: today });
    await followed(user.id, { kind: 'show', id: show.id });
    await followed(user.id, { kind: 'movie', id: movie.id });
    const phone = await startReceiver({ respond: answering(200, { id: 'x', event: 'message' }) });
    await addChannel({ accountId: user.id, url: `ntfy://127.0.0.1:${phone.port}/airdate`, services });
    const filmsOnly = await jsonChannel(user.id, undefined, ['film-released']);
    const mail = await addChannel({ accountId: user.id, url: 'mailto://me:pw@127.0.0.1:2?to=me@example.org', services });
    const hook = await startReceiver();
    await updateAccount({ name: user.name, webhookUrl: `${hook.url}/hook` });
    // Another account following the same items, with a channel of its own that must hear nothing of this one's.
    const other = await makeAccount();
    const otherPhone = await startReceiver({ respond: answering(200, {}) });
    await addChannel({ accountId: other.id, url: `ntfy://127.0.0.1:${otherPhone.port}/other`, services });

    const first = await record(user.id);
    expect(await record(user.id)).toEqual([]);
    // ntfy: the show and the film; JSON: the film; mail (digest by default): nothing; webhook: four items.
    expect(first).toHaveLength(2 + 1 + 4);
    await deliverAll(user.id);
    await deliverAll(user.id);

    const titles = phone.requests.map((request) => JSON.parse(request.body).title).sort();
    expect(titles).toEqual(['3 new episodes of Severance', 'Arrival is in cinemas']);
    expect(filmsOnly.receiver.requests.map((request) => JSON.parse(request.body).title)).toEqual(['Arrival is in cinemas']);
    expect(hook.requests.map((request) => JSON.parse(request.body).item_key).sort()).toEqual([...show.episodes.slice(0, 3).map((episode) => `episode:${episode.id}`), `movie:${movie.id}`].sort());
    expect(await db().notification.count({ where: { channelId: mail.id } })).toBe(0);
    expect(otherPhone.requests).toHaveLength(0);
    // Each message went once, with its own key; the grouped episodes are kept as told by the first.
    const rows = await db().notification.findMany({ where: { accountId: user.id }, include: { channel: true } });
    expect(rows.filter((row) => row.status === 'delivered')).toHaveLength(7);
    expect(rows.filter((row) => row.status === 'grouped')).toHaveLength(2);
    expect(new Set(phone.requests.map((request) => request.headers['x-idempotency-key'] ?? request.body)).size).toBe(2);
  });

  it('says a season premiere out alone as a premiere, and finds nothing more once told', async () => {
    const user = await makeAccount();
    const show = await makeShow({ title: 'Andor', episodes: [{ season: 2, number: 1, title: 'One Year Later', airDate: today }, { season: 2, number: 2, airDate: '2099-01-01' }] });
    await followed(user.id, { kind: 'show', id: show.id });
    const { receiver } = await jsonChannel(user.id);
    expect(await record(user.id)).toHaveLength(1);
    await deliverAll(user.id);
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ title: 'Andor season 2 premieres' });
    expect(await record(user.id)).toEqual([]);
  });
});

describe('rules before anything is sent', () => {
  it('tells nothing of a muted show on any channel, and again once unmuted', async () => {
    const user = await makeAccount();
    const episodes = [{ season: 1, number: 4, airDate: today }, { season: 1, number: 5, airDate: '2099-01-01' }];
    const muted = await makeShow({ title: 'Muted', episodes });
    const heard = await makeShow({ title: 'Heard', episodes });
    await followed(user.id, { kind: 'show', id: muted.id });
    await followed(user.id, { kind: 'show', id: heard.id });
    const { receiver } = await jsonChannel(user.id);
    await setShowMuted({ accountId: user.id, showId: muted.id, muted: true });
    await setShowMuted({ accountId: user.id, showId: muted.id, muted: true });
    expect(await findAccountsToCheck(new Date())).toContain(user.id);
    await record(user.id);
    await deliverAll(user.id);
    expect(receiver.requests.map((request) => JSON.parse(request.body).title)).toEqual(["Heard S1E4 'Episode 4' is out"]);
    // Another account's mute is its own.
    const other = await makeAccount();
    await followed(other.id, { kind: 'show', id: muted.id });
    const { receiver: others } = await jsonChannel(other.id);
    await record(other.id);
    await deliverAll(other.id);
    expect(others.requests).toHaveLength(1);
    await setShowMuted({ accountId: user.id, showId: muted.id, muted: false });
    expect(await record(user.id)).toHaveLength(1);
  });

  it('tells nothing of a watched item, an archived or unfollowed show', async () => {
    const user = await makeAccount();
    const watchedMovie = await makeMovie({ title: 'Seen', releaseDate: today });
    await followed(user.id, { kind: 'movie', id: watchedMovie.id });
    await setWatched({ accountId: user.id, kind: 'movie', id: watchedMovie.id, watched: true });
    const archived = await makeShow({ episodes: [{ number: 2, airDate: today }] });
    await followed(user.id, { kind: 'show', id: archived.id });
    await setFollow({ accountId: user.id, kind: 'show', id: archived.id, archived: true });
    const unfollowed = await makeShow({ episodes: [{ number: 2, airDate: today }] });
    await followed(user.id, { kind: 'show', id: unfollowed.id });
    await setFollow({ accountId: user.id, kind: 'show', id: unfollowed.id, followed: false });
    await jsonChannel(user.id);
    expect(await record(user.id)).toEqual([]);
  });
});

describe('delivery to a channel', () => {
  async function oneMessage(respond: Respond) {
    const user = await makeAccount();
    const movie = await makeMovie({ title: 'Heat', releaseDate: today });
    await followed(user.id, { kind: 'movie', id: movie.id });
    const { receiver, channel } = await jsonChannel(user.id, respond);
    const [id] = await record(user.id);
    return { user, receiver, channel, id: id! };
  }

  it('retries a 429 no sooner than its Retry-After, then delivers under the same key', async () => {
    let answered = 0;
    const { receiver, channel, id } = await oneMessage((_request, response) => {
      answered++;
      if (answered === 1) response.writeHead(429, { 'retry-after': '120' }).end();
      else response.writeHead(200).end('{}');
    });
    const step = await deliver(id);
    expect(step).toMatchObject({ done: false, attempt: 1 });
    if (!step.done) expect(step.retryInMs).toBeGreaterThanOrEqual(120_000);
    expect(await db().notification.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await deliver(id)).toMatchObject({ done: true, outcome: 'success', attempt: 2 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[0]!.headers['idempotency-key']).toBe(receiver.requests[1]!.headers['idempotency-key']);
    const log = await db().deliveryAttempt.findMany({ where: { notificationId: id }, orderBy: { number: 'asc' } });
    expect(log.map((attempt) => [attempt.outcome, attempt.statusCode])).toEqual([['retry', 429], ['success', 200]]);
    expect(log[0]!.url).toBe(`JSON POST to http://127.0.0.1:${receiver.port}/…`);
    expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).consecutiveFailures).toBe(0);
  });

  it('does not retry a 400, and counts it as a failure of the channel', async () => {
    const { receiver, channel, id } = await oneMessage(answering(400, { error: 'bad' }));
    expect(await deliver(id)).toEqual({ done: true, outcome: 'failed', attempt: 1 });
    expect(receiver.requests).toHaveLength(1);
    expect(await db().notification.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).consecutiveFailures).toBe(1);
  });

  it('sends again on request ("send again"), under the same key, marked manual in the log', async () => {
    const { receiver, user, id } = await oneMessage(answering(200, {}));
    await deliver(id);
    await prepareRedelivery({ accountId: user.id, notificationId: id, now: new Date() });
    expect(await deliver(id, true)).toMatchObject({ done: true, outcome: 'success', attempt: 2 });
    expect(receiver.requests.map((request) => request.headers['idempotency-key'])).toEqual([receiver.requests[0]!.headers['idempotency-key'], receiver.requests[0]!.headers['idempotency-key']]);
    expect((await db().deliveryAttempt.findMany({ where: { notificationId: id }, orderBy: { number: 'asc' } })).map((attempt) => attempt.manual)).toEqual([false, true]);
  });

  it(`turns a channel off after ${channelLimits.failuresInARow} failures in a row and tells the account's other channels`, async () => {
    const user = await makeAccount();
    const broken = await jsonChannel(user.id, answering(401, { error: 'unauthorised' }), ['film-released']);
    const { receiver: other } = await jsonChannel(user.id, answering(200, {}), ['game-released']);
    for (let index = 0; index < channelLimits.failuresInARow; index++) {
      const movie = await makeMovie({ title: `Film ${index}`, releaseDate: today });
      await followed(user.id, { kind: 'movie', id: movie.id });
    }
    const ids = await record(user.id);
    expect(ids).toHaveLength(channelLimits.failuresInARow);
    const steps = [];
    for (const id of ids) steps.push(await deliver(id));
    const notices = steps.flatMap((step) => (step.done ? (step.notices ?? []) : []));
    expect(notices).toHaveLength(1);
    expect(steps.slice(0, -1).every((step) => step.done && step.notices === undefined)).toBe(true);
    const channel = await db().notificationChannel.findUniqueOrThrow({ where: { id: broken.channel.id } });
    expect(channel).toMatchObject({ enabled: false, consecutiveFailures: channelLimits.failuresInARow });
    expect(channel.disabledReason).toMatch(/failed 10 times in a row \(last: .*401/);
    await deliver(notices[0]!);
    expect(other.requests).toHaveLength(1);
    expect(JSON.parse(other.requests[0]!.body).title).toBe(`Notifications to "${broken.channel.name}" are turned off`);
    // Turned off: the next release does not reach it.
    const later = await makeMovie({ title: 'Later', releaseDate: today });
    await followed(user.id, { kind: 'movie', id: later.id });
    expect(await record(user.id)).toEqual([]);
    expect(broken.receiver.requests).toHaveLength(channelLimits.failuresInARow);
  });

  it('a delivered message clears the failures counted so far', async () => {
    const { channel, id } = await oneMessage(answering(200, {}));
    await db().notificationChannel.update({ where: { id: channel.id }, data: { consecutiveFailures: 9 } });
    await deliver(id);
    expect((await db().notificationChannel.findUniqueOrThrow({ where: { id: channel.id } })).consecutiveFailures).toBe(0);
  });

  it('cancels a message whose channel was removed or turned off meanwhile, sending nothing', async () => {
    const { receiver, channel, id } = await oneMessage(answering(200, {}));
    await db().notificationChannel.update({ where: { id: channel.id }, data: { enabled: false } });
    expect(await deliver(id)).toEqual({ done: true, outcome: 'cancelled' });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe.skipIf(!hasOpenssl)(`web push deliveries${hasOpenssl ? '' : ' (SKIPPED: openssl is not on PATH)'}`, () => {
  it('a push service answering 410 removes the subscription; its log stays', async () => {
    const pushService = await startHttpsReceiver(tls, (_request, response) => response.writeHead(410).end());
    const user = await makeAccount();
    const keys = { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') };
    const channel = await subscribeWebPush({ accountId: user.id, subscription: { endpoint: `${pushService.url}/push/abc`, keys }, services });
    const movie = await makeMovie({ title: 'Heat', releaseDate: today });
    await followed(user.id, { kind: 'movie', id: movie.id });
    const [id] = await record(user.id);
    expect(await deliver(id!)).toEqual({ done: true, outcome: 'gone', attempt: 1 });
    expect(pushService.requests).toHaveLength(1);
    expect(await db().notificationChannel.findUnique({ where: { id: channel.id } })).toBeNull();
    expect(await db().notification.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({ status: 'failed', channelId: null, attempts: 1 });
  });
});
