import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db } from '../../src/db/client.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { findAccountsToCheck, findNewReleases, recordReleaseNotifications } from '../../src/notifications/releases.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';

initSecretKey(await useTestDatabase());

/** Noon UTC on 15 June 2026: "today" is 2026-06-15 in UTC, 2026-06-16 at UTC+14. */
const now = new Date('2026-06-15T12:00:00.000Z');
const longAgo = new Date('2026-01-01T00:00:00.000Z');

/** An account with a webhook whose follows all date from `followedAt` (long ago unless said). */
async function account(props: { timezone?: string; webhook?: boolean } = {}) {
  const created = await makeAccount({ timezone: props.timezone });
  if (props.webhook !== false) await updateAccount({ name: created.name, webhookUrl: 'https://hooks.example.com/airdate' });
  return created;
}

async function follow(accountId: number, kind: 'show' | 'movie' | 'game', id: number, followedAt = longAgo) {
  await setFollow({ accountId, kind, id, followed: true });
  const column = { show: 'showId', movie: 'movieId', game: 'gameId' }[kind];
  await db().libraryItem.updateMany({ where: { accountId, [column]: id }, data: { followedAt } });
}

describe('findNewReleases', () => {
  it('finds an episode airing today, with the payload decisions.md specifies', async () => {
    const user = await account();
    const show = await makeShow({
      title: 'Severance',
      poster: 'https://img.example/sev.jpg',
      episodes: [{ number: 1, airDate: '2026-06-08' }, { number: 2, title: 'Half Loop', airDate: '2026-06-15' }],
    });
    await follow(user.id, 'show', show.id);
    const releases = await findNewReleases({ accountId: user.id, now });
    expect(releases.map((item) => item.payload)).toEqual([
      {
        type: 'episode',
        title: 'Severance',
        subtitle: 'S01E02 · Half Loop',
        poster: 'https://img.example/sev.jpg',
        item_key: `episode:${show.episodes[1]!.id}`,
        id: show.episodes[1]!.id,
        air_date: '2026-06-15',
        show_id: show.id,
      },
    ]);
  });

  it('gives movies and games their kind and release year as the subtitle, and notifies specials', async () => {
    const user = await account();
    const movie = await makeMovie({ title: 'Dune: Part Three', releaseDate: '2026-06-15' });
    const game = await makeGame({ title: 'Hollow Knight: Silksong', releaseDate: '2026-06-14' });
    const show = await makeShow({ title: 'Doctor Who', episodes: [{ season: 0, number: 3, title: null, airDate: '2026-06-15' }] });
    await follow(user.id, 'movie', movie.id);
    await follow(user.id, 'game', game.id);
    await follow(user.id, 'show', show.id);
    const byKey = new Map((await findNewReleases({ accountId: user.id, now })).map((item) => [item.itemKey, item.payload]));
    expect(byKey.get(`movie:${movie.id}`)).toEqual({
      type: 'movie', title: 'Dune: Part Three', subtitle: 'Movie · 2026', poster: null, item_key: `movie:${movie.id}`, id: movie.id, air_date: '2026-06-15',
    });
    expect(byKey.get(`game:${game.id}`)).toMatchObject({ type: 'game', subtitle: 'Game · 2026', air_date: '2026-06-14' });
    expect(byKey.get(`episode:${show.episodes[0]!.id}`)).toMatchObject({ title: 'Doctor Who', subtitle: 'S00E03' });
    expect(byKey.size).toBe(3);
  });

  it('leaves out watched, archived, unfollowed and future items, and accounts without an active webhook', async () => {
    const user = await account();
    const watched = await makeMovie({ releaseDate: '2026-06-15' });
    const archived = await makeShow({ episodes: [{ number: 1, airDate: '2026-06-15' }] });
    const unfollowed = await makeMovie({ releaseDate: '2026-06-15' });
    const tomorrow = await makeMovie({ releaseDate: '2026-06-16' });
    for (const movie of [watched, unfollowed, tomorrow]) await follow(user.id, 'movie', movie.id);
    await follow(user.id, 'show', archived.id);
    await setWatched({ accountId: user.id, kind: 'movie', id: watched.id, watched: true, source: 'api' });
    await setFollow({ accountId: user.id, kind: 'show', id: archived.id, archived: true });
    await setFollow({ accountId: user.id, kind: 'movie', id: unfollowed.id, followed: false });
    expect(await findNewReleases({ accountId: user.id, now })).toEqual([]);

    const silent = await account({ webhook: false });
    const movie = await makeMovie({ releaseDate: '2026-06-15' });
    await follow(silent.id, 'movie', movie.id);
    expect(await findNewReleases({ accountId: silent.id, now })).toEqual([]);
    await updateAccount({ name: silent.name, webhookUrl: 'https://hooks.example.com/x' });
    expect(await findNewReleases({ accountId: silent.id, now })).toHaveLength(1);
    await db().notificationChannel.updateMany({ where: { accountId: silent.id, kind: 'webhook' }, data: { enabled: false, disabledAt: now } });
    expect(await findNewReleases({ accountId: silent.id, now })).toEqual([]);
  });

  it("decides 'today' in the account's time zone", async () => {
    const kiritimati = await account({ timezone: 'Pacific/Kiritimati' });
    const utc = await account();
    const movie = await makeMovie({ releaseDate: '2026-06-16' });
    await follow(kiritimati.id, 'movie', movie.id);
    await follow(utc.id, 'movie', movie.id);
    expect(await findNewReleases({ accountId: kiritimati.id, now })).toHaveLength(1);
    expect(await findNewReleases({ accountId: utc.id, now })).toEqual([]);
  });

  it('catches up releases of the last three days, not older ones', async () => {
    const user = await account();
    const show = await makeShow({
      episodes: [
        { number: 1, airDate: '2026-06-11' },
        { number: 2, airDate: '2026-06-12' },
        { number: 3, airDate: '2026-06-13' },
      ],
    });
    await follow(user.id, 'show', show.id);
    const found = await findNewReleases({ accountId: user.id, now });
    expect(found.map((item) => item.releaseDate).sort()).toEqual(['2026-06-12', '2026-06-13']);
  });

  it('never notifies an item that had released on an earlier day than it was followed', async () => {
    const user = await account({ timezone: 'America/New_York' });
    const before = await makeMovie({ releaseDate: '2026-06-14' });
    const sameDay = await makeMovie({ releaseDate: '2026-06-15' });
    // 02:00 UTC on the 15th is still the 14th in New York: followed on the release day.
    await follow(user.id, 'movie', before.id, new Date('2026-06-15T02:00:00Z'));
    // 10:00 UTC on the 15th is the 15th in New York.
    await follow(user.id, 'movie', sameDay.id, new Date('2026-06-15T10:00:00Z'));
    const notFollowedInTime = await makeMovie({ releaseDate: '2026-06-14' });
    await follow(user.id, 'movie', notFollowedInTime.id, new Date('2026-06-15T11:00:00Z'));
    const keys = (await findNewReleases({ accountId: user.id, now })).map((item) => item.itemKey).sort();
    expect(keys).toEqual([`movie:${before.id}`, `movie:${sameDay.id}`].sort());
  });
});

describe('recordReleaseNotifications', () => {
  it('records each release once, ever, even when checks race', async () => {
    const user = await account();
    const movie = await makeMovie({ releaseDate: '2026-06-15' });
    const game = await makeGame({ releaseDate: '2026-06-15' });
    await follow(user.id, 'movie', movie.id);
    await follow(user.id, 'game', game.id);
    const racing = await Promise.all([1, 2, 3].map(() => recordReleaseNotifications({ accountId: user.id, now })));
    expect(racing.flat()).toHaveLength(2);
    expect(await recordReleaseNotifications({ accountId: user.id, now })).toEqual([]);
    const rows = await db().notification.findMany({ where: { accountId: user.id }, orderBy: { itemKey: 'asc' } });
    expect(rows.map((row) => [row.itemKey, row.status, row.attempts])).toEqual(
      [[`game:${game.id}`, 'pending', 0], [`movie:${movie.id}`, 'pending', 0]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(new Set(rows.map((row) => row.webhookId)).size).toBe(2);
    for (const row of rows) expect(row.webhookId).toMatch(/^msg_[A-Za-z0-9]{27}$/);

    // Unwatching and refollowing later does not bring a notified item back.
    await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: false });
    await follow(user.id, 'movie', movie.id);
    expect(await recordReleaseNotifications({ accountId: user.id, now })).toEqual([]);
  });
});

describe('findAccountsToCheck', () => {
  it('lists accounts with an active webhook and a release near today, only those', async () => {
    const withRelease = await account({ timezone: 'Asia/Tokyo' });
    const withoutWebhook = await account({ webhook: false });
    const nothingSoon = await account();
    const soon = await makeMovie({ releaseDate: '2026-06-15' });
    const later = await makeMovie({ releaseDate: '2026-09-01' });
    await follow(withRelease.id, 'movie', soon.id);
    await follow(withoutWebhook.id, 'movie', soon.id);
    await follow(nothingSoon.id, 'movie', later.id);
    const listed = await findAccountsToCheck(now);
    expect(listed).toContain(withRelease.id);
    expect(listed).not.toContain(withoutWebhook.id);
    expect(listed).not.toContain(nothingSoon.id);
    // Once its release is notified, the account is not queued again.
    expect(await recordReleaseNotifications({ accountId: withRelease.id, now })).toHaveLength(1);
    expect(await findAccountsToCheck(now)).not.toContain(withRelease.id);
  });

  it('leaves out an account whose only release near today is watched (never notified), for each kind', async () => {
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2026-06-15' }] });
    const movie = await makeMovie({ releaseDate: '2026-06-15' });
    const game = await makeGame({ releaseDate: '2026-06-15' });
    const items = [
      { follow: ['show', show.id], watch: ['episode', show.episodes[0]!.id] },
      { follow: ['movie', movie.id], watch: ['movie', movie.id] },
      { follow: ['game', game.id], watch: ['game', game.id] },
    ] as const;
    for (const item of items) {
      const user = await account();
      await follow(user.id, item.follow[0], item.follow[1]);
      expect(await findAccountsToCheck(now)).toContain(user.id);
      await setWatched({ accountId: user.id, kind: item.watch[0], id: item.watch[1], watched: true });
      expect(await findNewReleases({ accountId: user.id, now })).toEqual([]);
      expect(await findAccountsToCheck(now)).not.toContain(user.id);
    }
  });

  it('covers every time zone: a release on UTC-tomorrow at UTC+14, one three local days back at UTC-11', async () => {
    const early = new Date('2026-06-15T05:00:00.000Z'); // 2026-06-15 19:00 in Kiritimati, 2026-06-14 18:00 in Pago Pago
    const kiritimati = await account({ timezone: 'Pacific/Kiritimati' });
    const pagoPago = await account({ timezone: 'Pacific/Pago_Pago' });
    const ahead = await makeMovie({ releaseDate: '2026-06-16' });
    const behind = await makeMovie({ releaseDate: '2026-06-11' });
    await follow(kiritimati.id, 'movie', ahead.id);
    await follow(pagoPago.id, 'movie', behind.id);
    // 19:00 on the 15th in Kiritimati is not yet the 16th; five hours later it is.
    const later = new Date('2026-06-15T10:30:00.000Z');
    expect(await findAccountsToCheck(later)).toContain(kiritimati.id);
    expect(await findNewReleases({ accountId: kiritimati.id, now: later })).toHaveLength(1);
    expect(await findAccountsToCheck(early)).toContain(pagoPago.id);
    expect(await findNewReleases({ accountId: pagoPago.id, now: early })).toHaveLength(1);
  });
});
