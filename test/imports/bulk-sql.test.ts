import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { Prisma } from '../../src/generated/prisma/client.ts';
import { insertRows, selectIn } from '../../src/db/bulk-sql.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';

initSecretKey(await useTestDatabase());

/** Every column of the rows as the database stores them, as text (timestamps in their stored form). */
async function storedText(table: string, columns: string[], ids: number[]): Promise<string[][]> {
  const selected = columns.map((column) => `CAST("${column}" AS TEXT) AS "${column}"`).join(', ');
  const rows = await db().$queryRawUnsafe<Record<string, unknown>[]>(`SELECT ${selected} FROM "${table}" WHERE "id" IN (${ids.join(', ')}) ORDER BY "id"`);
  return rows.map((row) => columns.map((column) => String(row[column])));
}

describe('insertRows', () => {
  it('stores rows exactly as Prisma writes them (timestamps, booleans, nulls, awkward text)', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ season: 1, number: 1, airDate: null }] });
    const episodeId = show.episodes[0]!.id;
    const at = new Date(Date.UTC(2025, 2, 1, 19, 0, 0, 123));
    const byPrisma = await db().watchEvent.create({ data: { accountId: account.id, kind: 'episode', episodeId, watched: true, at, source: 'import:trakt' } });
    await db().$transaction((tx) => insertRows(tx, 'WatchEvent', ['accountId', 'kind', 'episodeId', 'movieId', 'watched', 'at', 'source'], [[account.id, 'episode', episodeId, null, true, at, 'import:trakt']]));
    const ours = await db().watchEvent.findFirstOrThrow({ where: { accountId: account.id, id: { not: byPrisma.id } } });
    const columns = ['accountId', 'kind', 'episodeId', 'movieId', 'gameId', 'watched', 'at', 'source'];
    const [prismaRow, ourRow] = await storedText('WatchEvent', columns, [byPrisma.id, ours.id]);
    expect(ourRow).toEqual(prismaRow);

    const title = `Quote " back\\slash \u2028 é 🎬 ${unique()}`;
    const now = new Date();
    const created = await db().show.create({ data: { title, tmdbId: unique() } });
    const [tmdbId, loneTmdbId] = [unique(), unique()];
    // A lone surrogate (a JSON "\ud800" escape in an uploaded file) becomes U+FFFD, as a bound
    // string would; Prisma's own writes refuse it outright.
    const lone = `lone \ud800 end ${unique()}`;
    const showColumns = ['tmdbId', 'title', 'poster', 'createdAt', 'updatedAt'];
    await db().$transaction((tx) => insertRows(tx, 'Show', showColumns, [[tmdbId, title, null, now, now], [loneTmdbId, lone, null, now, now]]));
    const inserted = await db().show.findUniqueOrThrow({ where: { tmdbId } });
    expect(inserted.title).toBe(title);
    const [prismaShow, ourShow] = await storedText('Show', ['title', 'poster'], [created.id, inserted.id]);
    expect(ourShow).toEqual(prismaShow);
    expect((await db().show.findUniqueOrThrow({ where: { tmdbId: loneTmdbId } })).title).toBe(lone.replace('\ud800', '\ufffd'));
  });

  it('writes more rows than one statement holds, and selectIn reads more values than one list holds', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ season: 1, number: 1, airDate: null }] });
    const start = Date.UTC(2020, 0, 1);
    const rows = Array.from({ length: 12_345 }, (_, index) => [account.id, 'episode', show.episodes[0]!.id, index % 2 === 0, new Date(start + index * 60_000), 'import:trakt']);
    const written = await db().$transaction((tx) => insertRows(tx, 'WatchEvent', ['accountId', 'kind', 'episodeId', 'watched', 'at', 'source'], rows));
    expect(written).toBe(12_345);
    const ids = (await db().watchEvent.findMany({ where: { accountId: account.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((row) => row.id);
    expect(ids).toHaveLength(12_345);

    const wanted = [...ids.filter((_, index) => index % 3 !== 0), -1, 0];
    const found = await db().$transaction((tx) =>
      selectIn<{ id: number; watched: boolean; at: Date }>(tx, 'WatchEvent', ['id', 'watched', 'at'], 'id', wanted, Prisma.sql`"accountId" = ${account.id}`),
    );
    expect(found.map((row) => row.id).sort((a, b) => a - b)).toEqual(ids.filter((_, index) => index % 3 !== 0));
    const first = found.find((row) => row.id === ids[1])!;
    expect([typeof first.id, first.watched, first.at]).toEqual(['number', false, new Date(start + 60_000)]);
  });

  it('binds shared values once and skips rows the table already has (skipExisting)', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ season: 1, number: 1, airDate: null }, { season: 1, number: 2, airDate: null }] });
    const [first, second] = show.episodes.map((episode) => episode.id);
    const at = (day: number) => new Date(Date.UTC(2025, 0, day, 20, 0, 0, 5));
    const write = (rows: unknown[][]) =>
      db().$transaction((tx) =>
        insertRows(tx, 'WatchEvent', ['episodeId', 'watched', 'at'], rows, {
          shared: { accountId: account.id, kind: 'episode', source: 'import:trakt' },
          skipExisting: ['accountId', 'episodeId', 'watched', 'at'],
        }),
      );
    expect(await write([[first, true, at(1)], [second, true, at(1)]])).toBe(2);
    // Same item, flag and time: skipped. A different flag, time or item: written.
    expect(await write([[first, true, at(1)], [first, false, at(1)], [first, true, at(2)], [second, true, at(1)]])).toBe(2);
    const stored = await db().watchEvent.findMany({ where: { accountId: account.id }, orderBy: [{ at: 'asc' }, { id: 'asc' }] });
    expect(stored.map((row) => [row.episodeId, row.watched, row.at.toISOString(), row.kind, row.source])).toEqual([
      [first, true, at(1).toISOString(), 'episode', 'import:trakt'],
      [second, true, at(1).toISOString(), 'episode', 'import:trakt'],
      [first, false, at(1).toISOString(), 'episode', 'import:trakt'],
      [first, true, at(2).toISOString(), 'episode', 'import:trakt'],
    ]);
    // Another account's identical entry is not a duplicate of this account's.
    const other = await makeAccount();
    expect(await db().$transaction((tx) => insertRows(tx, 'WatchEvent', ['episodeId', 'watched', 'at'], [[first, true, at(1)]], {
      shared: { accountId: other.id, kind: 'episode', source: 'import:trakt' },
      skipExisting: ['accountId', 'episodeId', 'watched', 'at'],
    }))).toBe(1);
  });
});
