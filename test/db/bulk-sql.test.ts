import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { insertRowsReturning, updateRows } from '../../src/db/bulk-sql.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';

/**
 * The bulk statements of src/db/bulk-sql.ts that the marks use: updateRows (each row its own
 * values, one JSON parameter) and insertRowsReturning with skipConflicts. What they write reads back
 * as Prisma's own writes do, and compares with them in SQL. Runs on SQLite and PostgreSQL.
 */
initSecretKey(await useTestDatabase());

async function statesOf(count: number) {
  const account = await makeAccount();
  const show = await makeShow({ episodes: Array.from({ length: count }, (_, index) => ({ season: 1 + Math.floor(index / 100), number: 1 + (index % 100), airDate: '2020-01-01' })) });
  const at = new Date('2024-05-06T07:08:09.123Z');
  await db().watchState.createMany({ data: show.episodes.map((episode) => ({ accountId: account.id, kind: 'episode', episodeId: episode.id, watched: false, changedAt: at })) });
  const states = await db().watchState.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
  return { account, show, states, at };
}

describe('updateRows', () => {
  it('sets 1,200 rows each to its own values in one statement, read back and compared as Prisma writes them', async () => {
    const { account, states, at } = await statesOf(1_200);
    const timeOf = (index: number) => new Date(at.getTime() + index * 1_000);
    const updated = await db().$transaction((tx) => updateRows(tx, 'WatchState', 'id', ['watched', 'changedAt'], states.map((state, index) => [state.id, index % 2 === 0, timeOf(index)])));
    expect(updated).toBe(1_200);
    const after = await db().watchState.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
    expect(after.map((state) => [state.watched, state.changedAt.toISOString()])).toEqual(states.map((_, index) => [index % 2 === 0, timeOf(index).toISOString()]));
    // Compared in SQL with a time Prisma binds: the stored form is the one Prisma writes.
    expect(await db().watchState.count({ where: { accountId: account.id, changedAt: { gte: timeOf(600) } } })).toBe(600);
    expect(await db().watchState.count({ where: { accountId: account.id, changedAt: timeOf(3) } })).toBe(1);
    // Rows of no key, and no rows at all, change nothing.
    expect(await db().$transaction((tx) => updateRows(tx, 'WatchState', 'id', ['watched'], [[states.at(-1)!.id + 1_000_000, true]]))).toBe(0);
    expect(await db().$transaction((tx) => updateRows(tx, 'WatchState', 'id', ['watched'], []))).toBe(0);
  });
});

describe('insertRowsReturning with skipConflicts', () => {
  it('writes the new rows and skips those a unique index already holds, returning only what it wrote', async () => {
    const { account, show, states } = await statesOf(3);
    const more = await makeShow({ episodes: [{ number: 1, airDate: null }, { number: 2, airDate: null }] });
    const at = new Date('2025-01-02T03:04:05.678Z');
    const rows = [...show.episodes, ...more.episodes].map((episode) => [episode.id, true, at]);
    const written = await db().$transaction((tx) =>
      insertRowsReturning<{ id: number; episodeId: number }>(tx, 'WatchState', ['episodeId', 'watched', 'changedAt'], rows, ['id', 'episodeId'], { shared: { accountId: account.id, kind: 'episode' }, skipConflicts: true }),
    );
    expect(written.map((row) => row.episodeId).sort((a, b) => a - b)).toEqual(more.episodes.map((episode) => episode.id));
    const stored = await db().watchState.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
    expect(stored.length).toBe(5);
    // The three that were there are untouched.
    expect(stored.slice(0, 3)).toEqual(states);
    expect(stored.slice(3).map((state) => [state.watched, state.changedAt.toISOString()])).toEqual([[true, at.toISOString()], [true, at.toISOString()]]);
  });
});
