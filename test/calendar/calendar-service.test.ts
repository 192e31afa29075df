import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { db, queryCounter } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { calendarUid, loadCalendar, showsPerRead } from '../../src/calendar/calendar-service.ts';
import { setFollow } from '../../src/library/library.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';

const config = await useTestDatabase();
initSecretKey(config);

/** An account following `shows` shows of three episodes around today, a movie and a game. */
async function library(shows: number, timezone = 'UTC') {
  const account = await makeAccount({ timezone });
  const today = localDate(timezone, new Date());
  for (let index = 0; index < shows; index += 1) {
    const show = await makeShow({
      episodes: [
        { number: 1, airDate: addDays(today, -3) },
        { number: 2, airDate: today },
        { number: 3, airDate: addDays(today, 4) },
      ],
    });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
  }
  const movie = await makeMovie({ releaseDate: addDays(today, 10) });
  const game = await makeGame({ releaseDate: addDays(today, -10) });
  await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  await setFollow({ accountId: account.id, kind: 'game', id: game.id, followed: true });
  return { ...account, timezone, today, movie, game };
}

async function countQueries<T>(work: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const before = queryCounter();
  const result = await work();
  return { result, queries: queryCounter() - before };
}

describe('loadCalendar', () => {
  it('loads a library in a few queries: the titles in one, the shows\' episodes in one per showsPerRead shows (no N+1)', async () => {
    const small = await library(1);
    const large = await library(12);
    const one = await countQueries(() => loadCalendar({ account: small }));
    const twelve = await countQueries(() => loadCalendar({ account: large }));
    expect(one.result.events).toHaveLength(3 + 2);
    expect(twelve.result.events).toHaveLength(36 + 2);
    // The followed shows' ids, their episodes, the titles.
    expect(one.queries).toBe(3);
    expect(twelve.queries).toBe(3);
    expect((await countQueries(() => loadCalendar({ account: large, kinds: ['episode'] }))).queries).toBe(2);
    expect((await countQueries(() => loadCalendar({ account: large, kinds: ['movie', 'game'] }))).queries).toBe(1);
  });

  it('reads the episodes of more than showsPerRead shows in several queries, every show\'s included once', async () => {
    const account = await library(showsPerRead + 1);
    const { result, queries } = await countQueries(() => loadCalendar({ account, kinds: ['episode'] }));
    expect(queries).toBe(1 + 2);
    expect(result.events).toHaveLength(3 * (showsPerRead + 1));
    expect(new Set(result.events.map((event) => event.showId)).size).toBe(showsPerRead + 1);
    expect(new Set(result.events.map((event) => event.uid)).size).toBe(result.events.length);
  });

  it('orders by date, then title, season and number, and covers local today − past to + future', async () => {
    const account = await library(2, 'Pacific/Kiritimati');
    const calendar = await loadCalendar({ account, past: 3, future: 4 });
    expect(calendar).toMatchObject({ name: `Airdate — ${account.name}`, from: addDays(account.today, -3), to: addDays(account.today, 4) });
    const dates = calendar.events.map((event) => event.date);
    expect(dates).toEqual([...dates].sort());
    expect(dates).toEqual([addDays(account.today, -3), addDays(account.today, -3), account.today, account.today, addDays(account.today, 4), addDays(account.today, 4)]);
    expect((await loadCalendar({ account, past: 2, future: 3 })).events).toHaveLength(2);
    expect((await loadCalendar({ account, past: 10, future: 10 })).events.map((event) => event.kind)).toEqual(['game', ...Array(6).fill('episode'), 'movie']);
  });

  it('takes DTSTAMP material from the later of the episode and its show', async () => {
    const account = await library(1);
    const [first] = (await loadCalendar({ account, kinds: ['episode'] })).events;
    const episode = await db().episode.findUniqueOrThrow({ where: { id: first!.id }, include: { show: true } });
    expect(first!.updatedAt.getTime()).toBe(Math.max(episode.updatedAt.getTime(), episode.show.updatedAt.getTime()));
    const renamed = await db().show.update({ where: { id: episode.showId }, data: { title: 'Renamed' } });
    const [after] = (await loadCalendar({ account, kinds: ['episode'] })).events;
    expect(after!.updatedAt.getTime()).toBe(renamed.updatedAt.getTime());
    expect(after!.summary).toBe('Renamed S01E01 · Episode 1');
  });

  it('keeps each show\'s events per catalog version: a follow change reads only the show it adds, and the result equals a load from scratch', async () => {
    const account = await library(showsPerRead + 3);
    const withVersion = (catalogVersion: number) => ({ ...account, catalogVersion });
    const first = await countQueries(() => loadCalendar({ account: withVersion(1), kinds: ['episode'] }));
    expect(first.queries).toBe(1 + 2);
    const added = await makeShow({ episodes: [{ number: 1, airDate: account.today }] });
    await setFollow({ accountId: account.id, kind: 'show', id: added.id, followed: true });
    await setFollow({ accountId: account.id, kind: 'show', id: first.result.events[0]!.showId!, archived: true });
    const afterFollow = await countQueries(() => loadCalendar({ account: withVersion(1), kinds: ['episode'] }));
    // The followed shows' ids, then one read for the one show not kept.
    expect(afterFollow.queries).toBe(1 + 1);
    expect(afterFollow.result).toEqual(await loadCalendar({ account, kinds: ['episode'] }));
    expect(afterFollow.result.events.some((event) => event.showId === added.id)).toBe(true);
    expect(afterFollow.result.events.some((event) => event.showId === first.result.events[0]!.showId)).toBe(false);

    // A catalog change comes with a new catalog version: everything is read again and shows it.
    await db().episode.update({ where: { id: added.episodes[0]!.id }, data: { title: 'Renamed episode' } });
    const afterCatalog = await countQueries(() => loadCalendar({ account: withVersion(2), kinds: ['episode'] }));
    expect(afterCatalog.queries).toBe(1 + 2);
    expect(afterCatalog.result.events.find((event) => event.showId === added.id)?.episodeTitle).toBe('Renamed episode');
    // Another window is another key.
    expect((await countQueries(() => loadCalendar({ account: withVersion(2), kinds: ['episode'], past: 5 }))).queries).toBe(1 + 2);
  });

  it('refuses out-of-range windows', async () => {
    const account = await library(0);
    for (const past of [-1, 1.5, 3651]) await expect(loadCalendar({ account, past })).rejects.toThrow(/past must be a whole number of days from 0 to 3650/);
    await expect(loadCalendar({ account, future: 99_999 })).rejects.toThrow(/future/);
  });
});

describe('calendarUid', () => {
  it('is stable, opaque, and differs by item and by account', () => {
    const uid = calendarUid(1, 'episode', 42);
    expect(uid).toMatch(/^[0-9a-f]{32}@airdate$/);
    expect(calendarUid(1, 'episode', 42)).toBe(uid);
    expect(calendarUid(1, 'movie', 42)).not.toBe(uid);
    expect(calendarUid(1, 'episode', 43)).not.toBe(uid);
    expect(calendarUid(2, 'episode', 42)).not.toBe(uid);
  });

  it('stays the same across versions: a given key and item give this UID forever (else every subscriber sees duplicates)', () => {
    initSecretKey({ ...config, secretKey: Buffer.alloc(32, 7) });
    try {
      expect(calendarUid(1, 'episode', 42)).toBe('b8ad8cb63fcb7cc1b32f929747dc452e@airdate');
    } finally {
      initSecretKey(config);
    }
  });
});

