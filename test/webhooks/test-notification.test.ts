import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { graphql } from '../support/http.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

/** sendTestNotification: one signed attempt to the account's URL, its answer reported, nothing stored. */
const { app } = await useTestApp({ AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback', AIRDATE_WEBHOOK_TIMEOUT_MS: '2000' });

const send = `mutation { sendTestNotification {
  __typename
  ... on MutationSendTestNotificationSuccess { data { ok status responseBody error durationMs webhookId } }
  ... on Error { code message }
} }`;
const secretQuery = '{ viewer { webhookSecret } }';

it('sends a signed test notification and reports what the receiver answered', async () => {
  const receiver = await startReceiver({ respond: (_request, response) => response.writeHead(202, { 'content-type': 'text/plain' }).end('queued by the receiver') });
  const user = await makeAccount();
  await updateAccount({ name: user.name, webhookUrl: `${receiver.url}/hook` });
  const { json } = await graphql(app, user.token, send);
  const report = json.data.sendTestNotification.data;
  expect(report).toMatchObject({ ok: true, status: 202, responseBody: 'queued by the receiver', error: null });
  expect(receiver.requests).toHaveLength(1);
  const [request] = receiver.requests;
  expect(request!.headers['webhook-id']).toBe(report.webhookId);
  const secret = (await graphql(app, user.token, secretQuery)).json.data.viewer.webhookSecret;
  const payload = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as Record<string, unknown>;
  expect(payload).toMatchObject({ type: 'test', item_key: 'test', title: 'Airdate test notification' });
  // Not a release: no notification row, so the delivery log stays empty.
  expect(await db().notification.count({ where: { accountId: user.id } })).toBe(0);
});

it('reports a refusing receiver, an address the policy refuses and a dead port without failing the request', async () => {
  const receiver = await startReceiver({ respond: (_request, response) => response.writeHead(500).end('x'.repeat(10_000)) });
  const user = await makeAccount();
  await updateAccount({ name: user.name, webhookUrl: receiver.url });
  const refused = (await graphql(app, user.token, send)).json.data.sendTestNotification.data;
  expect(refused).toMatchObject({ ok: false, status: 500, error: 'the receiver answered HTTP 500 Internal Server Error' });
  expect(refused.responseBody.length).toBe(4096); // capped as every delivery reads it

  await updateAccount({ name: user.name, webhookUrl: 'http://10.0.0.1/hook' });
  const policy = (await graphql(app, user.token, send)).json.data.sendTestNotification.data;
  expect(policy).toMatchObject({ ok: false, status: null, responseBody: null });
  expect(policy.error).toMatch(/private/);

  await updateAccount({ name: user.name, webhookUrl: 'http://127.0.0.1:1/hook' });
  const dead = (await graphql(app, user.token, send)).json.data.sendTestNotification.data;
  expect(dead).toMatchObject({ ok: false, status: null });
  expect(dead.error).toMatch(/refused/i);
});

it('without a webhook URL it is a BAD_INPUT error', async () => {
  const user = await makeAccount();
  const { status, json } = await graphql(app, user.token, send);
  expect(status).toBe(200);
  expect(json.data.sendTestNotification).toMatchObject({ __typename: 'InputError', code: 'BAD_INPUT', message: 'set a webhook URL first' });
});
