import { describe, expect, it, onTestFinished } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db, queryCounter } from '../../src/db/client.ts';
import { localDate } from '../../src/time/dates.ts';
import { loadSnapshot } from '../../src/feeds/load-snapshot.ts';
import { computeFeeds } from '../../src/feeds/rules.ts';
import { defaultSnapshotEpisodeCapacity, keptSnapshots, setSnapshotEpisodeCapacity, snapshotOf } from '../../src/feeds/snapshot-cache.ts';
import { getFeeds } from '../../src/feeds/feeds-service.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { createRandom } from './factories.ts';

/**
 * The kept library snapshot (src/feeds/snapshot-cache.ts): after each watched toggle the feeds
 * come from the snapshot with the toggle applied, without reading the library, and they equal
 * the feeds of a snapshot loaded fresh from the database — through random toggles, toggles
 * committed together, unwatches that move a show's last activity back, and writes the snapshot
 * cannot follow (another writer's, a follow change). Runs on SQLite and PostgreSQL.
 */
initSecretKey(await useTestDatabase());

const today = localDate('UTC', new Date());
const day = (offset: number) => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

async function feedAccount(accountId: number) {
  const account = await db().account.findUniqueOrThrow({ where: { id: accountId } });
  const state = await db().serverState.findUnique({ where: { id: 1 } });
  return { id: account.id, timezone: account.timezone, feedVersion: account.feedVersion, catalogVersion: state?.catalogVersion ?? 0 };
}

/** The feeds through the caches, and the queries that took. */
async function cachedFeeds(accountId: number) {
  const account = await feedAccount(accountId);
  const before = queryCounter();
  const feeds = await getFeeds(account);
  return { feeds, queries: queryCounter() - before };
}

/** The queries reading the account's snapshot took (none when it was kept), past the feeds' own cache. */
async function snapshotQueries(accountId: number) {
  const account = await feedAccount(accountId);
  const before = queryCounter();
  await snapshotOf(account);
  return queryCounter() - before;
}

/** The feeds of a snapshot read from the database now. */
async function freshFeeds(accountId: number) {
  const account = await feedAccount(accountId);
  const { snapshot } = await loadSnapshot(account.id, account.catalogVersion);
  return { ...computeFeeds(snapshot, today), date: today };
}


/** Four followed shows (aired, upcoming, specials, unknown dates), one archived, one not followed, followed and unfollowed movies. */
async function library() {
  const account = await makeAccount();
  const spec = (count: number, first: number) =>
    Array.from({ length: count }, (_, index) => ({ season: index % 7 === 6 ? 0 : 1 + Math.floor(index / 7), number: index + 1, airDate: index === count - 1 ? null : day(first + index) }));
  const shows = await Promise.all([spec(12, -10), spec(9, -3), spec(15, -20), spec(6, -1), spec(8, -8), spec(5, -4)].map((episodes) => makeShow({ episodes })));
  for (const [index, show] of shows.entries()) {
    if (index === 5) continue;
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true, archived: index === 4 });
  }
  const movies = await Promise.all([day(0), day(1), day(-5)].map((releaseDate) => makeMovie({ releaseDate })));
  for (const movie of movies.slice(0, 2)) await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  return { account, episodes: shows.flatMap((show) => show.episodes.map((episode) => episode.id)), movies: movies.map((movie) => movie.id) };
}

describe('the kept snapshot', () => {
  it('follows random toggles exactly, without reading the library again', async () => {
    const { account, episodes, movies } = await library();
    await cachedFeeds(account.id); // loads and keeps the snapshot
    const random = createRandom(20261123);
    const base = Date.now();
    for (let step = 0; step < 120; step += 1) {
      const movie = random() < 0.15;
      const id = movie ? movies[Math.floor(random() * movies.length)]! : episodes[Math.floor(random() * episodes.length)]!;
      // Times jump back and forth, so an unwatch must find the show's latest remaining watch.
      const at = new Date(base - Math.floor(random() * 50) * 3_600_000);
      const { changed } = await setWatched({ accountId: account.id, kind: movie ? 'movie' : 'episode', id, watched: random() < 0.6, at });
      const { feeds, queries } = await cachedFeeds(account.id);
      // The feed version and catalog version reads are this test's; the feeds themselves read nothing.
      expect(queries, `step ${step}${changed ? '' : ' (no change)'}`).toBe(0);
      expect(feeds, `step ${step}`).toEqual(await freshFeeds(account.id));
    }
  });

  it('follows toggles committed together, in whatever order they resolve', async () => {
    const { account, episodes } = await library();
    await cachedFeeds(account.id);
    for (let round = 0; round < 6; round += 1) {
      const at = new Date(Date.now() + round * 1_000);
      await Promise.all(episodes.slice(round * 5, round * 5 + 12).map((id, index) => setWatched({ accountId: account.id, kind: 'episode', id, watched: (index + round) % 3 !== 0, at })));
      expect((await cachedFeeds(account.id)).feeds, `round ${round}`).toEqual(await freshFeeds(account.id));
    }
  });

  it('is read again after a write it did not see, and after a follow change', async () => {
    const { account, episodes } = await library();
    await cachedFeeds(account.id);
    // Another writer (an import, another instance): the state changes and the version moves on.
    const episodeId = episodes[3]!;
    await db().$transaction([
      db().watchState.create({ data: { accountId: account.id, kind: 'episode', episodeId, watched: true, changedAt: new Date() } }),
      db().account.update({ where: { id: account.id }, data: { feedVersion: { increment: 1 } } }),
    ]);
    // This process's next toggle sets a version two past the snapshot's: it is dropped, not patched.
    await setWatched({ accountId: account.id, kind: 'episode', id: episodes[0]!, watched: true });
    const afterForeign = await cachedFeeds(account.id);
    expect(afterForeign.queries).toBeGreaterThan(0);
    expect(afterForeign.feeds).toEqual(await freshFeeds(account.id));
    expect(afterForeign.feeds.upNext.some((item) => item.id === episodeId)).toBe(false);

    await setFollow({ accountId: account.id, kind: 'show', id: (await db().episode.findUniqueOrThrow({ where: { id: episodeId } })).showId, followed: false });
    const afterFollow = await cachedFeeds(account.id);
    expect(afterFollow.queries).toBeGreaterThan(0);
    expect(afterFollow.feeds).toEqual(await freshFeeds(account.id));
  });

  it('keeps the snapshot read after a catalog change, and follows toggles on it again', async () => {
    const { account, episodes } = await library();
    await cachedFeeds(account.id);
    expect(await snapshotQueries(account.id)).toBe(0);
    // A catalog refresh (any catalog write): one version for the whole server, no account's feed version.
    await db().serverState.upsert({ where: { id: 1 }, create: { id: 1, catalogVersion: 1 }, update: { catalogVersion: { increment: 1 } } });
    expect(await snapshotQueries(account.id)).toBeGreaterThan(0);
    expect(await snapshotQueries(account.id)).toBe(0);
    for (const [index, id] of episodes.slice(0, 3).entries()) {
      await setWatched({ accountId: account.id, kind: 'episode', id, watched: true });
      const after = await cachedFeeds(account.id);
      expect(after.queries, `toggle ${index}`).toBe(0);
      expect(after.feeds, `toggle ${index}`).toEqual(await freshFeeds(account.id));
    }
  });

  it('a toggle of another account leaves this one kept', async () => {
    const first = await library();
    const second = await library();
    await cachedFeeds(first.account.id);
    await cachedFeeds(second.account.id);
    await setWatched({ accountId: second.account.id, kind: 'episode', id: second.episodes[0]!, watched: true });
    expect((await cachedFeeds(first.account.id)).queries).toBe(0);
    expect((await cachedFeeds(second.account.id)).queries).toBe(0);
    expect((await cachedFeeds(second.account.id)).feeds).toEqual(await freshFeeds(second.account.id));
  });

  it('keeps at most its capacity of episodes, dropping the least recently read account first', async () => {
    onTestFinished(() => setSnapshotEpisodeCapacity(defaultSnapshotEpisodeCapacity));
    const [first, second, third] = [await library(), await library(), await library()];
    setSnapshotEpisodeCapacity(0);
    expect(keptSnapshots()).toEqual({ accounts: 0, episodes: 0 });
    // Past the capacity, the snapshot just read is still kept.
    expect(await snapshotQueries(first.account.id)).toBeGreaterThan(0);
    const perAccount = keptSnapshots().episodes;
    expect(keptSnapshots().accounts).toBe(1);
    expect(perAccount).toBeGreaterThan(40);
    expect(await snapshotQueries(first.account.id)).toBe(0);

    // Room for two of the three (equal) libraries.
    setSnapshotEpisodeCapacity(2 * perAccount);
    expect(await snapshotQueries(second.account.id)).toBeGreaterThan(0);
    expect(await snapshotQueries(first.account.id)).toBe(0); // read: now the most recent
    expect(await snapshotQueries(third.account.id)).toBeGreaterThan(0); // the second goes
    expect(keptSnapshots()).toEqual({ accounts: 2, episodes: 2 * perAccount });
    expect(await snapshotQueries(first.account.id)).toBe(0);
    expect(await snapshotQueries(third.account.id)).toBe(0);
    expect(await snapshotQueries(second.account.id)).toBeGreaterThan(0); // read again; the first goes
    expect(await snapshotQueries(third.account.id)).toBe(0);
    expect(await snapshotQueries(first.account.id)).toBeGreaterThan(0);

    // A lower capacity drops at once; a toggle of a dropped account leaves nothing behind.
    setSnapshotEpisodeCapacity(perAccount);
    expect(keptSnapshots()).toEqual({ accounts: 1, episodes: perAccount });
    await setWatched({ accountId: third.account.id, kind: 'episode', id: third.episodes[0]!, watched: true });
    expect(keptSnapshots().accounts).toBe(1);
    expect((await cachedFeeds(third.account.id)).feeds).toEqual(await freshFeeds(third.account.id));
    expect(await snapshotQueries(third.account.id)).toBe(0);
  });
});
