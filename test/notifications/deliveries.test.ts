import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { InputError, NotFoundError } from '../../src/errors.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { deliverNotification, findDueNotifications, findStrandedNotifications, prepareRedelivery } from '../../src/notifications/deliveries.ts';
import { setFollow } from '../../src/library/library.ts';
import { findNewReleases, recordReleaseNotifications } from '../../src/notifications/releases.ts';
import { showWebhookSecret } from '../../src/accounts/tokens.ts';
import { maxDeliveryAttempts } from '../../src/webhooks/retry-schedule.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie } from '../support/factories.ts';
import { startWebhookReceiver, type ReceiverAnswer } from '../support/webhook-receiver.ts';
import { findWebhook } from '../../src/accounts/webhook-setting.ts';

initSecretKey(await useTestDatabase());

/** Test receivers listen on loopback, which the default policy refuses. */
const policy = parseTargetPolicy('loopback');
const timeoutMs = 2_000;
const today = new Date().toISOString().slice(0, 10);

/** An account whose webhook points at a fresh receiver, with one recorded notification (a movie out today). */
async function notificationTo(answer?: (n: number) => ReceiverAnswer) {
  const receiver = await startWebhookReceiver(answer);
  const account = await makeAccount();
  await updateAccount({ name: account.name, webhookUrl: receiver.url });
  const movie = await makeMovie({ title: 'Arrival — Ünïcode 🎬', releaseDate: today });
  await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  const [id] = await recordReleaseNotifications({ accountId: account.id, now: new Date() });
  const deliver = (manual = false, now?: () => Date) => deliverNotification({ notificationId: id!, manual, policy, timeoutMs, now });
  return { receiver, account, movie, id: id!, deliver };
}

const rowOf = (id: number) => db().notification.findUniqueOrThrow({ where: { id }, include: { deliveries: { orderBy: { number: 'asc' } } } });

describe('deliverNotification', () => {
  it('posts the recorded body, signed so the official Standard Webhooks verifier accepts it, and logs the attempt', async () => {
    const { receiver, account, movie, id, deliver } = await notificationTo();
    expect(await deliver()).toEqual({ done: true, outcome: 'success', attempt: 1 });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const row = await rowOf(id);
    expect(request!.body).toBe(row.payload);
    expect(JSON.parse(request!.body)).toEqual({
      type: 'movie', title: 'Arrival — Ünïcode 🎬', subtitle: `Movie · ${today.slice(0, 4)}`, poster: null, item_key: `movie:${movie.id}`, id: movie.id, air_date: today,
    });
    expect(request!.headers['webhook-id']).toBe(row.webhookId);
    const secret = await showWebhookSecret({ accountId: account.id });
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({ item_key: `movie:${movie.id}` });
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, nextAttemptAt: null });
    expect(row.deliveredAt).toBeInstanceOf(Date);
    expect(row.deliveries).toMatchObject([{ number: 1, statusCode: 204, outcome: 'success', error: null, manual: false, url: receiver.url }]);
    // Done is done: running the job again sends nothing.
    expect(await deliver()).toEqual({ done: true, outcome: 'skipped' });
    expect(receiver.received).toHaveLength(1);
  });

  it('retries a 5xx with the same webhook-id and a new timestamp, scheduling the next attempt, then succeeds', async () => {
    const { receiver, id, deliver } = await notificationTo((n) => (n === 1 ? { status: 503 } : { status: 200 }));
    const first = new Date(Date.now() - 120_000);
    const step = await deliver(false, () => first);
    expect(step.done).toBe(false);
    if (!step.done) expect(step.retryInMs).toBeGreaterThanOrEqual(45_000);
    const pending = await rowOf(id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
    expect(pending.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(first.getTime() + 45_000);
    expect(pending.deliveries).toMatchObject([{ number: 1, statusCode: 503, outcome: 'retry' }]);
    expect(await deliver()).toEqual({ done: true, outcome: 'success', attempt: 2 });
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([pending.webhookId, pending.webhookId]);
    const [stampOne, stampTwo] = receiver.received.map((request) => Number(request.headers['webhook-timestamp']));
    expect(stampOne).toBe(Math.floor(first.getTime() / 1000));
    expect(stampTwo! - stampOne!).toBeGreaterThanOrEqual(119);
    expect((await rowOf(id)).deliveries.map((attempt) => attempt.outcome)).toEqual(['retry', 'success']);
  });

  it('honours Retry-After on a 429', async () => {
    const { deliver } = await notificationTo(() => ({ status: 429, headers: { 'retry-after': '7200' } }));
    const step = await deliver();
    expect(step).toEqual({ done: false, retryInMs: expect.any(Number), attempt: 1 });
    if (!step.done) expect(step.retryInMs).toBeGreaterThanOrEqual(7_200_000);
  });

  it('gives up after the last scheduled attempt', async () => {
    const { id, deliver } = await notificationTo(() => ({ status: 500 }));
    await db().notification.update({ where: { id }, data: { attempts: maxDeliveryAttempts - 1 } });
    expect(await deliver()).toEqual({ done: true, outcome: 'retry', attempt: maxDeliveryAttempts });
    expect(await rowOf(id)).toMatchObject({ status: 'failed', attempts: maxDeliveryAttempts, nextAttemptAt: null });
  });

  it('treats other 4xx as final, and 410 as "turn this webhook off"', async () => {
    const notFound = await notificationTo(() => ({ status: 404 }));
    expect(await notFound.deliver()).toEqual({ done: true, outcome: 'failed', attempt: 1 });
    expect(await rowOf(notFound.id)).toMatchObject({ status: 'failed', attempts: 1 });

    const gone = await notificationTo(() => ({ status: 410 }));
    expect(await gone.deliver()).toEqual({ done: true, outcome: 'gone', attempt: 1 });
    expect(await rowOf(gone.id)).toMatchObject({ status: 'failed' });
    const account = await db().account.findUniqueOrThrow({ where: { id: gone.account.id } });
    const webhook = await findWebhook(account.id);
    expect(webhook?.disabledAt).toBeInstanceOf(Date);
    expect(webhook?.disabledReason).toMatch(/410/);
    // Turned off: no more releases are found for it until the URL is set again.
    const later = await makeMovie({ releaseDate: today });
    await setFollow({ accountId: gone.account.id, kind: 'movie', id: later.id, followed: true });
    expect(await findNewReleases({ accountId: gone.account.id, now: new Date() })).toEqual([]);
    await updateAccount({ name: gone.account.name, webhookUrl: gone.receiver.url });
    expect(await findNewReleases({ accountId: gone.account.id, now: new Date() })).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    const target = await startWebhookReceiver();
    const { id, deliver } = await notificationTo(() => ({ status: 307, headers: { location: target.url } }));
    expect(await deliver()).toEqual({ done: true, outcome: 'failed', attempt: 1 });
    expect((await rowOf(id)).deliveries[0]!.error).toMatch(/redirect/);
    expect(target.received).toHaveLength(0);
  });

  it('refuses a loopback receiver under the default policy without connecting, and logs why', async () => {
    const { receiver, id } = await notificationTo();
    const step = await deliverNotification({ notificationId: id, manual: false, policy: parseTargetPolicy('external,private'), timeoutMs });
    expect(step).toEqual({ done: true, outcome: 'failed', attempt: 1 });
    expect(receiver.received).toHaveLength(0);
    expect((await rowOf(id)).deliveries[0]!.error).toMatch(/loopback/i);
  });

  it('cancels a notification whose account no longer has a webhook', async () => {
    const { receiver, account, id, deliver } = await notificationTo();
    await updateAccount({ name: account.name, webhookUrl: '' });
    expect(await deliver()).toEqual({ done: true, outcome: 'cancelled' });
    expect(await rowOf(id)).toMatchObject({ status: 'cancelled', attempts: 0 });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('prepareRedelivery', () => {
  it('puts a finished notification back to pending for its owner only, and refuses one still pending', async () => {
    const { account, id, deliver, receiver } = await notificationTo();
    await expect(prepareRedelivery({ accountId: account.id, notificationId: id, now: new Date() })).rejects.toThrow(InputError);
    await deliver();
    const stranger = await makeAccount();
    await expect(prepareRedelivery({ accountId: stranger.id, notificationId: id, now: new Date() })).rejects.toThrow(NotFoundError);
    await prepareRedelivery({ accountId: account.id, notificationId: id, now: new Date() });
    expect(await deliver(true)).toEqual({ done: true, outcome: 'success', attempt: 2 });
    const row = await rowOf(id);
    expect(row.deliveries.map((attempt) => [attempt.number, attempt.manual])).toEqual([[1, false], [2, true]]);
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([row.webhookId]));
  });
});

describe('the steps of a delivery (where crashes are tested)', () => {
  it('are reached in order: before the send, after it, after the record; none for a notification no longer pending', async () => {
    const { receiver, id } = await notificationTo();
    const steps: string[] = [];
    const props = { notificationId: id, manual: false, policy, timeoutMs, onStep: (step: string) => void steps.push(`${step}:${receiver.received.length}`) };
    await deliverNotification(props);
    expect(steps).toEqual(['delivery-before-send:0', 'delivery-after-send:1', 'delivery-after-record:1']);
    steps.length = 0;
    expect(await deliverNotification(props)).toEqual({ done: true, outcome: 'skipped' });
    expect(steps).toEqual([]);
  });
});

describe('findStrandedNotifications', () => {
  it('finds pending notifications overdue by more than the grace period, only those', async () => {
    const { id } = await notificationTo();
    const now = new Date();
    expect(await findStrandedNotifications({ now, graceMs: 60_000, limit: 10_000 })).not.toContain(id);
    expect(await findStrandedNotifications({ now: new Date(now.getTime() + 120_000), graceMs: 60_000, limit: 10_000 })).toContain(id);
  });
});

describe('findDueNotifications', () => {
  it("finds the account's pending notifications due now, not later ones, finished ones or another account's", async () => {
    const { id, account } = await notificationTo();
    const now = new Date();
    expect(await findDueNotifications({ accountId: account.id, now })).toEqual([id]);
    expect(await findDueNotifications({ accountId: account.id, now: new Date(now.getTime() - 60_000) })).toEqual([]);
    const other = await notificationTo();
    expect(await findDueNotifications({ accountId: other.account.id, now: new Date() })).toEqual([other.id]);
    await db().notification.update({ where: { id }, data: { status: 'delivered' } });
    expect(await findDueNotifications({ accountId: account.id, now })).toEqual([]);
  });
});
