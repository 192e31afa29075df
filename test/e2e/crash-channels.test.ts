import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { jobNames } from '../../src/jobs.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie } from '../support/factories.ts';
import { jobRows } from '../support/jobs.ts';
import { crashRuns } from '../support/crash-runs.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { addChannel } from '../../src/notifications/notification-channels.ts';
import { parseTargetPolicy } from '../../src/webhooks/target-policy.ts';

/**
 * A release to a signed webhook and a JSON channel through real `serve` processes killed (SIGKILL)
 * at each step of its way, one after the other, as test/e2e/crash-steps.test.ts does for one
 * webhook: both channels' rows are recorded at once or not at all, nothing is lost, and each peer
 * sees its one key only (a send cut off after the peer got it is sent again under the same key).
 * A database of its own: the release check that finds the release runs when a process starts.
 */
const config = await useTestDatabase();
initSecretKey(config);

const channelServices = { policy: parseTargetPolicy('loopback'), timeoutMs: 1_500, smtpDefault: undefined, publicOrigin: 'http://localhost' };
const today = new Date().toISOString().slice(0, 10);

const { serve, crashAt, waitUntil } = crashRuns(config);

describe('a release to several channels when its processes are killed at each step', () => {
  it('records every channel’s message at once, and delivers each under its one key whatever step the kills hit', { timeout: 180_000 }, async () => {
    const hook = await startWebhookReceiver(() => ({ status: 204 }));
    const json = await startWebhookReceiver(() => ({ status: 200 }));
    const user = await makeAccount();
    await updateAccount({ name: user.name, webhookUrl: hook.url });
    await addChannel({ accountId: user.id, url: json.url.replace(/^http:/, 'json:'), services: channelServices });
    const movie = await makeMovie({ releaseDate: today });
    await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
    const rows = () => db().notification.findMany({ where: { accountId: user.id }, include: { deliveries: true, channel: true }, orderBy: { id: 'asc' } });

    // One transaction: the kill after the record leaves both channels' rows, or neither.
    await crashAt('release-recorded');
    expect((await rows()).map((row) => [row.channel!.kind, row.status])).toEqual([['webhook', 'pending'], ['json', 'pending']]);
    for (const step of ['delivery-before-send', 'delivery-after-send', 'delivery-after-record'] as const) await crashAt(step);
    await serve();
    await waitUntil('both notifications to be delivered', async () => (await rows()).every((row) => row.status === 'delivered'), 60_000);
    await waitUntil('every delivery job to finish', async () => (await jobRows(jobNames.delivery)).length === 0);
    const [webhookRow, jsonRow] = await rows();
    // Each peer saw one key only (a send cut off by a kill is sent again under it), and each row one successful attempt.
    expect(new Set(hook.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([webhookRow!.webhookId]));
    expect(new Set(json.received.map((request) => request.headers['idempotency-key']))).toEqual(new Set([jsonRow!.webhookId]));
    expect(json.received.length).toBeGreaterThanOrEqual(1);
    for (const row of [webhookRow!, jsonRow!]) expect(row.deliveries.filter((attempt) => attempt.outcome === 'success')).toHaveLength(1);
  });
});
