import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { jobNames } from '../../src/jobs.ts';
import { queueStrandedDeliveries } from '../../src/notifications/release-jobs.ts';
import { recordReleaseNotifications } from '../../src/notifications/releases.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow } from '../../src/library/library.ts';
import { showWebhookSecret } from '../../src/accounts/tokens.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { jobRowById, jobRows, jobRowsFor, removeJobRow, setJobState } from '../support/jobs.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const { app } = await useTestApp({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_JOB_POLL_MS: '100' });
const today = new Date().toISOString().slice(0, 10);

/** An account with a webhook at a fresh receiver, following a movie and a show with an episode out today. */
async function userWithReleases() {
  const receiver = await startWebhookReceiver();
  const user = await makeAccount();
  await updateAccount({ name: user.name, webhookUrl: receiver.url });
  const movie = await makeMovie({ releaseDate: today });
  const show = await makeShow({ title: 'Andor', episodes: [{ number: 1, airDate: '2020-01-01' }, { number: 2, title: 'Rix Road', airDate: today }] });
  await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
  await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
  return { receiver, user, movie, show };
}

async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('POST /api/machine/sync', () => {
  it('answers {"ok":true} at once and queues one sync per account however often it is asked', async () => {
    const { user, receiver } = await userWithReleases();
    // No body; `?token=`; `{}`; and an empty body declared as JSON, as Home Assistant's rest_command and curl -H send it.
    const emptyJson = { token: user.token, rawBody: '', headers: { 'content-type': 'application/json' } };
    for (const options of [{ token: user.token }, { queryToken: user.token }, { token: user.token, body: {} }, emptyJson]) {
      const response = await call(app, 'POST', '/api/machine/sync', options);
      expect(response.status).toBe(200);
      expect(response.text).toBe('{"ok":true}');
    }
    expect(await jobRowsFor(jobNames.accountSync, user.id)).toHaveLength(1);
    // Nothing runs in a process whose jobs were not started (AIRDATE_ROLE=web), however long it waits.
    await new Promise((resolve) => setTimeout(resolve, 300)); // three poll intervals
    const [queued] = await jobRowsFor(jobNames.accountSync, user.id);
    expect(queued!.lastRunAt).toBeNull();
    expect(receiver.received).toHaveLength(0);
  });

  it('queues again a sync whose job ran to its end without being removed (retries exhausted)', async () => {
    const { user } = await userWithReleases();
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    const [queued] = await jobRowsFor(jobNames.accountSync, user.id);
    // What Agenda leaves after the last failed retry: unlocked, failed, never to run again.
    await setJobState(queued!, { nextRunAt: null, lockedAt: null, failedAt: Date.now() });
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    const rows = await jobRowsFor(jobNames.accountSync, user.id);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.nextRunAt)).toBeGreaterThan(0);
    // A locked (running) one is left alone: nextRunAt is null while a one-time job runs.
    await setJobState(queued!, { nextRunAt: null, lockedAt: Date.now() });
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    expect((await jobRowsFor(jobNames.accountSync, user.id))[0]!.nextRunAt).toBeNull();
    await removeJobRow(queued!.id);
  });

  it('refuses a missing token, a wrong method, a non-JSON body and a non-object body', async () => {
    const { user } = await userWithReleases();
    expect((await call(app, 'POST', '/api/machine/sync')).status).toBe(401);
    expect((await call(app, 'GET', '/api/machine/sync', { token: user.token })).status).toBe(405);
    const wrongType = await call(app, 'POST', '/api/machine/sync', { token: user.token, rawBody: 'now please', headers: { 'content-type': 'text/plain' } });
    expect(wrongType).toMatchObject({ status: 415, json: { error: expect.any(String) } });
    expect((await call(app, 'POST', '/api/machine/sync', { token: user.token, body: [1] })).status).toBe(400);
    expect(await jobRowsFor(jobNames.accountSync, user.id)).toHaveLength(0);
  });
});

describe('with the jobs running', () => {
  it('delivers each of the account’s releases once, signed, after a sync', async () => {
    await app.jobs.start();
    const { receiver, user, movie, show } = await userWithReleases();
    expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).json).toEqual({ ok: true });
    await receiver.waitFor(2);
    // The secret as the account reads it through GraphQL, next to its token (decisions.md).
    const viewer = async () => (await graphql(app, user.token, '{ viewer { webhookSecret } }')).json.data.viewer.webhookSecret as string;
    const secret = await viewer();
    expect(secret).toMatch(/^whsec_/);
    expect(await viewer()).toBe(secret);
    expect(secret).toBe(await showWebhookSecret({ accountId: user.id }));
    const verifier = new Webhook(secret);
    const payloads = receiver.received.map((request) => verifier.verify(request.body, request.headers as Record<string, string>) as { item_key: string });
    expect(payloads.map((payload) => payload.item_key).sort()).toEqual([`episode:${show.episodes[1]!.id}`, `movie:${movie.id}`].sort());

    // A second sync, and the 30-minute check, find nothing new: each is waited for until its job
    // is gone, then any delivery either could have queued, before counting.
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    await waitUntil(async () => (await jobRowsFor(jobNames.accountSync, user.id)).length === 0, 'the second sync to finish');
    const check = await app.jobs.agenda.now(jobNames.releaseCheck);
    await waitUntil(async () => (await jobRowById(String(check.attrs._id))) === null, 'the release check to finish');
    await waitUntil(async () => (await jobRowsFor(jobNames.accountCheck, user.id)).length === 0, 'the account check to finish');
    // (Only this account's: earlier tests' accounts have deliveries waiting for a retry.)
    const notificationIds = new Set((await db().notification.findMany({ where: { accountId: user.id } })).map((row) => row.id));
    const deliveriesOfUser = async () =>
      (await jobRows(jobNames.delivery)).filter((row) => notificationIds.has((row.data as { notificationId: number }).notificationId));
    await waitUntil(async () => (await deliveriesOfUser()).length === 0, 'its deliveries to finish');
    await new Promise((resolve) => setTimeout(resolve, 300)); // three poll intervals
    expect(receiver.received).toHaveLength(2);
    expect(await db().notification.count({ where: { accountId: user.id } })).toBe(2);
    expect(await db().notification.count({ where: { accountId: user.id, status: 'delivered' } })).toBe(2);
    expect(await db().deliveryAttempt.count({ where: { notification: { accountId: user.id } } })).toBe(2);
  });

  it('the 30-minute release check finds accounts with releases on its own', async () => {
    const { receiver } = await userWithReleases();
    await app.jobs.agenda.now(jobNames.releaseCheck);
    await receiver.waitFor(2);
  });

  it('keeps the two 30-minute jobs and the one-minute delivery sweep, once each', async () => {
    await app.jobs.start();
    for (const [name, interval] of [[jobNames.releaseCheck, '30 minutes'], [jobNames.catalogRefresh, '30 minutes'], [jobNames.deliverySweep, '1 minute']] as const) {
      const rows = await jobRows(name);
      expect(rows, name).toHaveLength(1);
      expect(rows[0]!.type).toBe('single');
      expect(rows[0]!.repeatInterval).toBe(interval);
    }
  });

  it('a sync delivers the notifications an earlier run recorded but never queued (its process died in between)', async () => {
    const { receiver, user } = await userWithReleases();
    // What the cut-off run left: the notifications, no delivery job.
    const recorded = await recordReleaseNotifications({ accountId: user.id, now: new Date() });
    expect(recorded).toHaveLength(2);
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    await receiver.waitFor(2);
    const rows = await db().notification.findMany({ where: { accountId: user.id } });
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id']))).toEqual(new Set(rows.map((row) => row.webhookId)));
    await waitUntil(async () => (await db().notification.count({ where: { accountId: user.id, status: 'delivered' } })) === 2, 'both delivered');
  });

  it('the delivery sweep queues due notifications without a live delivery job, and leaves those with one', async () => {
    const stranded = await userWithReleases();
    const waiting = await userWithReleases();
    const givenUp = await userWithReleases();
    const lockMs = loadConfig({}).jobs.lockMs;
    const recordDue = async (accountId: number) => {
      const ids = await recordReleaseNotifications({ accountId, now: new Date() });
      // Due for longer than the sweep's grace (a job lock's lifetime).
      await db().notification.updateMany({ where: { id: { in: ids } }, data: { nextAttemptAt: new Date(Date.now() - 2 * lockMs) } });
      return ids;
    };
    await recordDue(stranded.user.id);
    // A delivery job waiting for its retry in an hour: alive.
    const [waitingId] = await recordDue(waiting.user.id);
    const retry = await app.jobs.agenda.create(jobNames.delivery, { notificationId: waitingId }).unique({ 'data.notificationId': waitingId }).schedule('in 1 hour').save();
    // A delivery job that gave up after its retries (a database outage): not alive.
    const [givenUpId] = await recordDue(givenUp.user.id);
    const exhausted = await app.jobs.agenda.create(jobNames.delivery, { notificationId: givenUpId }).unique({ 'data.notificationId': givenUpId }).schedule('in 1 hour').save();
    await setJobState((await jobRowById(String(exhausted.attrs._id)))!, { nextRunAt: null, lockedAt: null, failedAt: Date.now() });

    await queueStrandedDeliveries(app.jobs, { now: new Date(), graceMs: lockMs });
    await stranded.receiver.waitFor(2);
    await givenUp.receiver.waitFor(2);
    await waiting.receiver.waitFor(1);
    const waitingJobs = (await jobRows(jobNames.delivery)).filter((row) => (row.data as { notificationId: number }).notificationId === waitingId);
    expect(waitingJobs.map((row) => [row.id, row.nextRunAt])).toEqual([[String(retry.attrs._id), retry.attrs.nextRunAt!.getTime()]]);
    const waitingRow = await db().notification.findUniqueOrThrow({ where: { id: waitingId } });
    expect(waiting.receiver.received.map((request) => request.headers['webhook-id'])).not.toContain(waitingRow.webhookId);
    await removeJobRow(String(retry.attrs._id));
  });

  it('schedules a retry when the receiver fails, and shows every attempt through GraphQL; redelivery keeps the webhook-id', async () => {
    const { receiver, user } = await userWithReleases();
    receiver.answerWith((n) => (n === 1 ? { status: 503 } : { status: 200 }));
    const started = Date.now();
    await call(app, 'POST', '/api/machine/sync', { token: user.token });
    await receiver.waitFor(2);
    // One of the two failed once: its job waits for the schedule's first delay (about a minute).
    await waitUntil(async () => (await db().notification.count({ where: { accountId: user.id, attempts: { gt: 0 } } })) === 2, 'both first attempts');
    const retrying = await db().notification.findFirstOrThrow({ where: { accountId: user.id, status: 'pending' } });
    expect(retrying.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    const job = (await jobRows(jobNames.delivery)).find((row) => (row.data as { notificationId: number }).notificationId === retrying.id);
    expect(Number(job!.nextRunAt)).toBeGreaterThan(Date.now() + 30_000);

    const list = await graphql(app, user.token, `{ viewer { notifications(first: 10) { edges { node {
      databaseId itemKey status attempts webhookId deliveries { number statusCode outcome manual at durationMs error url } } } } } }`);
    const listed = Date.now();
    const nodes = list.json.data.viewer.notifications.edges.map((edge: { node: unknown }) => edge.node);
    expect(nodes).toHaveLength(2);
    const delivered = nodes.find((node: { status: string }) => node.status === 'delivered');
    // Every attempt's time, duration, error and address, as the database holds them (decisions.md).
    const inRun = { at: expect.any(String), durationMs: expect.any(Number), url: receiver.url };
    expect(delivered.deliveries).toEqual([{ number: 1, statusCode: 200, outcome: 'success', manual: false, error: null, ...inRun }]);
    const failedAttempt = nodes.find((node: { status: string }) => node.status === 'pending').deliveries;
    expect(failedAttempt).toEqual([{ number: 1, statusCode: 503, outcome: 'retry', manual: false, error: expect.stringMatching(/503/), ...inRun }]);
    for (const attempt of [...delivered.deliveries, ...failedAttempt] as { at: string; durationMs: number }[]) {
      expect(Date.parse(attempt.at)).toBeGreaterThanOrEqual(started);
      expect(Date.parse(attempt.at) + attempt.durationMs).toBeLessThanOrEqual(listed);
    }
    const stored = await db().deliveryAttempt.findFirstOrThrow({ where: { notificationId: retrying.id } });
    expect([stored.at.toISOString(), stored.durationMs]).toEqual([failedAttempt[0].at, failedAttempt[0].durationMs]);

    // Redelivery: refused while retries are scheduled, accepted once delivered.
    const refused = await graphql(app, user.token, `mutation($id: Int!) { redeliverNotification(id: $id) { __typename ... on Error { code } } }`, { id: retrying.id });
    expect(refused.json.data.redeliverNotification).toEqual({ __typename: 'InputError', code: 'BAD_INPUT' });
    const again = await graphql(app, user.token, `mutation($id: Int!) { redeliverNotification(id: $id) {
      __typename ... on MutationRedeliverNotificationSuccess { data { status } } } }`, { id: delivered.databaseId });
    expect(again.json.data.redeliverNotification.__typename).toBe('MutationRedeliverNotificationSuccess');
    await receiver.waitFor(3);
    expect(receiver.received[2]!.headers['webhook-id']).toBe(delivered.webhookId);
    await waitUntil(async () => (await db().deliveryAttempt.count({ where: { notificationId: delivered.databaseId } })) === 2, 'the redelivery log entry');
    const log = await db().deliveryAttempt.findMany({ where: { notificationId: delivered.databaseId }, orderBy: { number: 'asc' } });
    expect(log.map((entry) => [entry.number, entry.manual, entry.outcome])).toEqual([[1, false, 'success'], [2, true, 'success']]);
    // The redelivery's attempt comes after the first one, and within this test's run.
    expect(log[1]!.at.getTime()).toBeGreaterThanOrEqual(log[0]!.at.getTime() + log[0]!.durationMs);
    expect(log[1]!.at.getTime() + log[1]!.durationMs).toBeLessThanOrEqual(Date.now());

    // Someone else's notification is not found.
    const stranger = await makeAccount();
    const hidden = await graphql(app, stranger.token, `mutation($id: Int!) { redeliverNotification(id: $id) { __typename } }`, { id: delivered.databaseId });
    expect(hidden.json.data.redeliverNotification.__typename).toBe('NotFoundError');
  });

  it('runs a sync through the GraphQL mutation too', async () => {
    const { receiver, user } = await userWithReleases();
    const response = await graphql(app, user.token, 'mutation { sync { ok } }');
    expect(response.json).toEqual({ data: { sync: { ok: true } } });
    await receiver.waitFor(2);
  });
});
