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

/**
 * A release notification through a real `serve` process killed (SIGKILL) at each step of its way:
 * after it is recorded and before its delivery is queued, before the send, after the send and
 * before the record, after the record and before the job ends. One process at a time (SQLite's
 * single-process case; on PostgreSQL the same), each started after the previous one died, told
 * by AIRDATE_TEST_CRASH_AT where to die: each must take over what the dead one held (its job locks
 * expire after AIRDATE_JOB_LOCK_MS, one second here) and nothing may be lost or sent under a
 * second webhook-id. A send cut off after the receiver got it is sent again with the same id: the
 * receiver drops it by that id (docs/webhooks.md).
 */
const config = await useTestDatabase();
initSecretKey(config);

const today = new Date().toISOString().slice(0, 10);

const { serve, crashAt, waitUntil } = crashRuns(config);

describe('a release notification when its process is killed at each step', () => {
  it('is delivered, under its one webhook-id, whatever step the kills hit', { timeout: 150_000 }, async () => {
    const receiver = await startWebhookReceiver(() => ({ status: 204 }));
    const user = await makeAccount();
    await updateAccount({ name: user.name, webhookUrl: receiver.url });
    const movie = await makeMovie({ releaseDate: today });
    await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
    const rows = () => db().notification.findMany({ where: { accountId: user.id }, include: { deliveries: true } });
    const ids = () => receiver.received.map((request) => request.headers['webhook-id']);

    // The release check that runs at start finds the release, records it, and the process dies
    // before the delivery is queued.
    await crashAt('release-recorded');
    const [recorded, ...others] = await rows();
    expect(others).toEqual([]);
    expect(recorded).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await jobRows(jobNames.delivery)).toEqual([]);

    // The next process takes the account check over, queues the delivery and dies before sending.
    await crashAt('delivery-before-send');
    expect(ids()).toEqual([]);
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 0 }]);

    // The next one sends it and dies before recording the attempt.
    await crashAt('delivery-after-send');
    expect(ids()).toEqual([recorded!.webhookId]);
    expect(await rows()).toMatchObject([{ status: 'pending', attempts: 0 }]);

    // The next one sends it again (the first send's outcome was lost), records it, and dies
    // before its job ends.
    await crashAt('delivery-after-record');
    expect(ids()).toEqual([recorded!.webhookId, recorded!.webhookId]);
    expect(await rows()).toMatchObject([{ status: 'delivered', attempts: 1 }]);

    // A process that lives finishes the dead one's job without sending anything again.
    await serve();
    await waitUntil('every job of the notification to finish', async () => (await jobRows(jobNames.delivery)).length === 0);
    await new Promise((resolve) => setTimeout(resolve, 500)); // five polls: nothing more is sent
    expect(ids()).toEqual([recorded!.webhookId, recorded!.webhookId]);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const [final] = await rows();
    expect(final).toMatchObject({ status: 'delivered', attempts: 1, webhookId: recorded!.webhookId });
    expect(final!.deliveries.map((attempt) => [attempt.number, attempt.outcome])).toEqual([[1, 'success']]);
  });
});
