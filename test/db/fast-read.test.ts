import { afterEach, describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { asEpochMs, asIsoTimestamp } from '../../src/db/fast-read.ts';
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

describe('reading DateTime values as either driver returns them', () => {
  const expected = Date.UTC(2026, 10, 21, 6, 44, 1, 123);

  it('reads both databases’ text forms as UTC, whatever the host time zone, and epoch milliseconds in any type', () => {
    for (const zone of ['UTC', 'Pacific/Auckland', 'America/Los_Angeles']) {
      process.env.TZ = zone;
      expect(asEpochMs('2026-11-21T06:44:01.123+00:00')).toBe(expected);
      expect(asEpochMs('2026-11-21 06:44:01.123')).toBe(expected);
      expect(asEpochMs('2026-11-21T06:44:01.123Z')).toBe(expected);
      expect(asEpochMs('2026-11-21 06:44:01')).toBe(expected - 123);
      expect(asEpochMs('2026-11-21T08:44:01.123+02:00')).toBe(expected);
    }
    expect([asEpochMs(String(expected)), asEpochMs(expected), asEpochMs(BigInt(expected)), asEpochMs(new Date(expected))]).toEqual([expected, expected, expected, expected]);
  });

  it('writes ISO 8601 UTC with milliseconds, from text without a Date and from anything else through asEpochMs', () => {
    const iso = '2026-11-21T06:44:01.123Z';
    for (const value of ['2026-11-21T06:44:01.123+00:00', '2026-11-21 06:44:01.123', iso, '2026-11-21 06:44:01.1234', '2026-11-21T08:44:01.123+02:00', expected, new Date(expected), String(expected)]) {
      expect(asIsoTimestamp(value)).toBe(iso);
    }
    expect(asIsoTimestamp('2026-11-21 06:44:01')).toBe('2026-11-21T06:44:01.000Z');
    expect(asIsoTimestamp('2026-11-21 06:44:01.5')).toBe('2026-11-21T06:44:01.500Z');
  });

  it('refuses unreadable text instead of answering NaN', () => {
    expect(() => asEpochMs('yesterday')).toThrow(/unreadable timestamp in the database: yesterday/);
    expect(() => asIsoTimestamp('yesterday')).toThrow(/unreadable timestamp/);
  });
});
