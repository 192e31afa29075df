import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { testDatabaseKind, useTestDatabase } from '../support/database.ts';

await useTestDatabase();

describe.runIf(testDatabaseKind() === 'sqlite')('SQLite settings', () => {
  it.each([
    ['journal_mode', 'wal'],
    ['synchronous', '2'],
    ['foreign_keys', '1'],
    ['busy_timeout', '10000'],
  ])('%s is %s on the connection the server uses', async (name, expected) => {
    const rows = await db().$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`);
    expect(String(Object.values(rows[0] ?? {})[0]).toLowerCase()).toBe(expected);
  });
});
