import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { InputError, NotFoundError } from '../../src/errors.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';

/**
 * The watched and follow writes as stored, read back through Prisma (so the driver-level writer's
 * rows must read like Prisma's own): every column of a change, the versions it bumps and those it
 * does not, idempotence, 404s that write nothing, and changes committed together (group commit on
 * SQLite) that keep their own outcomes. Runs on SQLite and PostgreSQL.
 */
initSecretKey(await useTestDatabase());

const versions = (accountId: number) =>
  db().account.findUniqueOrThrow({ where: { id: accountId }, select: { feedVersion: true, calendarVersion: true, updatedAt: true } });
const episodes = (count: number) =>
  makeShow({ episodes: Array.from({ length: count }, (_, index) => ({ number: index + 1, airDate: '2026-01-01' })) }).then((show) => show.episodes.map((episode) => episode.id));

describe('setWatched', () => {
  it('writes the state, the history entry with its source and time, and bumps the feed version only', async () => {
    const account = await makeAccount();
    const [episodeId] = await episodes(1);
    const before = await versions(account.id);
    const at = new Date('2026-03-04T05:06:07.089Z');
    expect(await setWatched({ accountId: account.id, kind: 'episode', id: episodeId!, watched: true, source: 'graphql', at })).toEqual({ changed: true });
    const state = await db().watchState.findFirstOrThrow({ where: { accountId: account.id, episodeId } });
    expect(state).toMatchObject({ kind: 'episode', watched: true, changedAt: at, movieId: null, gameId: null });
    const history = await db().watchEvent.findMany({ where: { accountId: account.id } });
    expect(history).toEqual([expect.objectContaining({ kind: 'episode', episodeId, watched: true, at, source: 'graphql', estimated: false })]);
    const after = await versions(account.id);
    expect(after.feedVersion).toBe(before.feedVersion + 1);
    expect(after.calendarVersion).toBe(before.calendarVersion);
    expect(after.updatedAt.getTime()).toBe(at.getTime());

    // The same value again changes nothing; the other value flips the state and appends history.
    expect(await setWatched({ accountId: account.id, kind: 'episode', id: episodeId!, watched: true })).toEqual({ changed: false });
    expect((await versions(account.id)).feedVersion).toBe(after.feedVersion);
    expect(await setWatched({ accountId: account.id, kind: 'episode', id: episodeId!, watched: false })).toEqual({ changed: true });
    const sources = (await db().watchEvent.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } })).map((row) => [row.watched, row.source]);
    expect(sources).toEqual([[true, 'graphql'], [false, 'api']]);
    expect(await db().watchState.count({ where: { accountId: account.id } })).toBe(1);
    expect((await versions(account.id)).feedVersion).toBe(after.feedVersion + 1);
  });

  it('unwatching what was never watched, and a missing item, write nothing', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    const before = await versions(account.id);
    expect(await setWatched({ accountId: account.id, kind: 'movie', id: movie.id, watched: false })).toEqual({ changed: false });
    await expect(setWatched({ accountId: account.id, kind: 'game', id: movie.id + 1_000_000, watched: true })).rejects.toThrow(NotFoundError);
    await expect(setWatched({ accountId: account.id, kind: 'movie', id: 0, watched: true })).rejects.toThrow(InputError);
    expect(await db().watchState.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
    expect(await versions(account.id)).toEqual(before);
  });

  it('changes sent together keep their own outcomes: each item changes once, the version counts the changes', async () => {
    const account = await makeAccount();
    const ids = await episodes(60);
    const before = await versions(account.id);
    // Every episode three times at once, and one missing item among them.
    const writes = ids.flatMap((id) => [0, 1, 2].map(() => setWatched({ accountId: account.id, kind: 'episode', id, watched: true })));
    const missing = setWatched({ accountId: account.id, kind: 'episode', id: ids[0]! + 1_000_000, watched: true }).then(
      () => 'written',
      (error: unknown) => (error instanceof NotFoundError ? 'not found' : error),
    );
    const results = await Promise.all(writes);
    expect(await missing).toBe('not found');
    expect(results.filter((result) => result.changed)).toHaveLength(ids.length);
    for (let index = 0; index < ids.length; index += 1) expect(results.slice(index * 3, index * 3 + 3).filter((result) => result.changed)).toHaveLength(1);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(ids.length);
    expect((await versions(account.id)).feedVersion).toBe(before.feedVersion + ids.length);
  });

  it("a change for an account that is gone fails alone: the changes committed with it stay", async () => {
    const [kept, gone] = [await makeAccount(), await makeAccount()];
    const ids = await episodes(3);
    await db().account.delete({ where: { id: gone.id } });
    const results = await Promise.allSettled([
      setWatched({ accountId: kept.id, kind: 'episode', id: ids[0]!, watched: true }),
      setWatched({ accountId: gone.id, kind: 'episode', id: ids[1]!, watched: true }),
      setWatched({ accountId: kept.id, kind: 'episode', id: ids[2]!, watched: true }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await db().watchEvent.count({ where: { accountId: kept.id } })).toBe(2);
    expect(await db().watchState.count({ where: { accountId: gone.id } })).toBe(0);
  });
});

describe('setFollow', () => {
  it('follows with the time and explicit flag, archives without moving followedAt, bumps both versions on a change only', async () => {
    const account = await makeAccount();
    const show = await makeShow();
    const before = await versions(account.id);
    expect(await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true })).toEqual({ changed: true });
    const followed = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: show.id } });
    expect(followed).toMatchObject({ kind: 'show', followed: true, archived: false, followExplicit: true, archiveExplicit: false });
    expect(followed.followedAt).toBeInstanceOf(Date);
    expect(Math.abs(followed.followedAt!.getTime() - Date.now())).toBeLessThan(60_000);
    const once = await versions(account.id);
    expect([once.feedVersion, once.calendarVersion]).toEqual([before.feedVersion + 1, before.calendarVersion + 1]);

    expect(await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true })).toEqual({ changed: false });
    expect(await versions(account.id)).toEqual(once);

    expect(await setFollow({ accountId: account.id, kind: 'show', id: show.id, archived: true })).toEqual({ changed: true });
    const archived = await db().libraryItem.findFirstOrThrow({ where: { id: followed.id } });
    expect(archived).toMatchObject({ followed: true, archived: true, followExplicit: true, archiveExplicit: true, followedAt: followed.followedAt });
    expect(archived.updatedAt.getTime()).toBeGreaterThanOrEqual(followed.updatedAt.getTime());

    // Unfollowed and followed again: followedAt moves (releases before it are never notified).
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: false });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    const again = await db().libraryItem.findFirstOrThrow({ where: { id: followed.id } });
    expect(again.followedAt!.getTime()).toBeGreaterThan(followed.followedAt!.getTime());
    const last = await versions(account.id);
    expect([last.feedVersion, last.calendarVersion]).toEqual([once.feedVersion + 3, once.calendarVersion + 3]);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('unfollowing what was never followed still records the explicit choice; bad input and missing items write nothing', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    expect(await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: false })).toEqual({ changed: true });
    expect(await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, movieId: movie.id } })).toMatchObject({
      followed: false,
      followExplicit: true,
      followedAt: null,
    });
    const before = await versions(account.id);
    await expect(setFollow({ accountId: account.id, kind: 'movie', id: movie.id, archived: true })).rejects.toThrow(InputError);
    await expect(setFollow({ accountId: account.id, kind: 'show', id: movie.id + 1_000_000, followed: true })).rejects.toThrow(NotFoundError);
    await expect(setFollow({ accountId: account.id, kind: 'show', id: movie.id })).rejects.toThrow(InputError);
    expect(await versions(account.id)).toEqual(before);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(1);
  });
});
