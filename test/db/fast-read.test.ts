import { afterEach, describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/auth/secret-key.ts';
import { asEpochMs } from '../../src/db/fast-read.ts';
import { db, fastReader } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';

initSecretKey(await useTestDatabase());
const hostZone = process.env.TZ;
afterEach(() => {
  if (hostZone === undefined) delete process.env.TZ;
  else process.env.TZ = hostZone;
});

describe('the driver-level reader', () => {
  it('reads the timestamps Prisma wrote as the same instants, whatever the host time zone', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2026-01-01' }] });
    const changedAt = new Date('2026-03-29T01:30:00.123Z');
    await db().watchState.create({ data: { accountId: account.id, kind: 'episode', episodeId: show.episodes[0]!.id, watched: true, changedAt } });
    for (const zone of ['UTC', 'Pacific/Auckland', 'America/Los_Angeles']) {
      process.env.TZ = zone;
      const [row] = await fastReader().rows(`SELECT "changedAt", "watched" FROM "WatchState" WHERE "accountId" = ?`, [account.id]);
      expect(asEpochMs(row![0])).toBe(changedAt.getTime());
    }
  });
});
