import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { setWatched } from '../../src/library/library.ts';
import { markItems, undoMarks } from '../../src/library/marks.ts';
import { offsetSpans, zoneOffsetSeconds } from '../../src/statistics/statistics-service.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { graphql } from '../support/http.ts';

// The statistics query on a real database (both kinds): local months, weekdays and years at the
// time zone's edges (daylight saving changes, a +14 zone's New Year, a +5:45 zone), runtimes
// summed where known and counted where not, another account's history left out, an unmarked item
// not counted, an empty history, and bad years refused.
const { app } = await useTestApp();

const statisticsQuery = `query Stats($year: Int) {
  statistics(year: $year) {
    timeZone year
    years { key episodes movies games minutes withoutRuntime }
    total { episodes movies games minutes withoutRuntime }
    review { episodes movies games minutes withoutRuntime }
    months { key episodes movies games minutes withoutRuntime }
    weekdays { key episodes movies games minutes withoutRuntime }
    showCount
    shows { showId title episodes minutes withoutRuntime }
  }
}`;

interface Counts {
  key?: number;
  episodes: number;
  movies: number;
  games: number;
  minutes: number;
  withoutRuntime: number;
}
interface Stats {
  timeZone: string;
  year: number;
  years: Counts[];
  total: Counts;
  review: Counts;
  months: Counts[];
  weekdays: Counts[];
  showCount: number;
  shows: { showId: number; title: string; episodes: number; minutes: number; withoutRuntime: number }[];
}

async function statistics(token: string, year?: number): Promise<Stats> {
  const response = await graphql(app, token, statisticsQuery, year === undefined ? {} : { year });
  expect(response.json?.errors).toBeUndefined();
  return (response.json as { data: { statistics: Stats } }).data.statistics;
}

const counts = (partial: Partial<Counts>): Counts => ({ episodes: 0, movies: 0, games: 0, minutes: 0, withoutRuntime: 0, ...partial });
/** The entry of `key`, without the key. */
const at = (list: Counts[], key: number) => {
  const { key: _key, ...rest } = list.find((entry) => entry.key === key)!;
  return rest;
};

async function episodesWithRuntimes(title: string, runtimes: (number | null)[]) {
  const show = await makeShow({ title, episodes: runtimes.map((_, index) => ({ number: index + 1, airDate: '2024-01-01' })) });
  for (const [index, runtime] of runtimes.entries()) await db().episode.update({ where: { id: show.episodes[index]!.id }, data: { runtime } });
  return show;
}

describe('statistics', () => {
  it("counts by local month, weekday and year in the account's zone, across daylight saving changes", async () => {
    const account = await makeAccount({ timezone: 'America/New_York' });
    const other = await makeAccount({ timezone: 'America/New_York' });
    const harbor = await episodesWithRuntimes('Harbor Nights', [30, 45, null, 50, 50]);
    const quiet = await episodesWithRuntimes('A Quiet Show', [20, 20]);
    const film = await makeMovie({ title: 'Long Film' });
    await db().movie.update({ where: { id: film.id }, data: { runtime: 120 } });
    const unknownFilm = await makeMovie({ title: 'Film Without Runtime' });
    const game = await makeGame({ title: 'Some Game' });
    const watch = (kind: 'episode' | 'movie' | 'game', id: number, at: string, accountId = account.id) => setWatched({ accountId, kind, id, watched: true, at: new Date(at) });
    const [h1, h2, h3, h4, h5] = harbor.episodes;
    // 22:00 on Tuesday 31 December 2024 in New York: 2024, though 2025 in UTC.
    await watch('episode', h1!.id, '2025-01-01T03:00:00.000Z');
    // 01:59:59 EST and 03:30 EDT on Sunday 9 March 2025 (clocks went forward at 07:00 UTC).
    await watch('episode', h2!.id, '2025-03-09T06:59:59.000Z');
    await watch('episode', h3!.id, '2025-03-09T07:30:00.000Z');
    // 23:59 on Sunday 1 June 2025 (EDT), Monday 2 June in UTC.
    await watch('movie', film.id, '2025-06-02T03:59:00.000Z');
    // 01:30 EST on Sunday 2 November 2025, after the clocks went back at 06:00 UTC.
    await watch('episode', h4!.id, '2025-11-02T06:30:00.000Z');
    await watch('movie', unknownFilm.id, '2025-11-03T15:00:00.000Z');
    await watch('game', game.id, '2025-11-04T15:00:00.000Z');
    await watch('episode', quiet.episodes[0]!.id, '2025-03-10T15:00:00.000Z');
    await watch('episode', quiet.episodes[1]!.id, '2025-03-11T15:00:00.000Z');
    // Marked and then unmarked: not watched, not counted.
    await watch('episode', h5!.id, '2025-05-05T15:00:00.000Z');
    await setWatched({ accountId: account.id, kind: 'episode', id: h5!.id, watched: false, at: new Date('2025-05-06T15:00:00.000Z') });
    // Another account's history is its own.
    await watch('episode', h5!.id, '2025-05-05T15:00:00.000Z', other.id);
    await watch('movie', film.id, '2024-02-01T15:00:00.000Z', other.id);

    const stats = await statistics(account.token);
    expect(stats.timeZone).toBe('America/New_York');
    expect(stats.year).toBe(2025);
    expect(stats.years.map((year) => year.key)).toEqual([2025, 2024]);
    expect(at(stats.years, 2024)).toEqual(counts({ episodes: 1, minutes: 30 }));
    expect(stats.total).toEqual(counts({ episodes: 6, movies: 2, games: 1, minutes: 30 + 45 + 50 + 20 + 20 + 120, withoutRuntime: 2 }));
    expect(stats.review).toEqual(counts({ episodes: 5, movies: 2, games: 1, minutes: 45 + 50 + 20 + 20 + 120, withoutRuntime: 2 }));
    expect(stats.months).toHaveLength(12);
    expect(at(stats.months, 3)).toEqual(counts({ episodes: 4, minutes: 45 + 20 + 20, withoutRuntime: 1 }));
    expect(at(stats.months, 6)).toEqual(counts({ movies: 1, minutes: 120 }));
    expect(at(stats.months, 11)).toEqual(counts({ episodes: 1, movies: 1, games: 1, minutes: 50, withoutRuntime: 1 }));
    expect(at(stats.months, 5)).toEqual(counts({}));
    expect(stats.weekdays.map((day) => day.key)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Sunday: the two of 9 March, the film of 1 June, the episode of 2 November.
    expect(at(stats.weekdays, 7)).toEqual(counts({ episodes: 3, movies: 1, minutes: 45 + 120 + 50, withoutRuntime: 1 }));
    expect(at(stats.weekdays, 1)).toEqual(counts({ episodes: 1, movies: 1, minutes: 20, withoutRuntime: 1 }));
    expect(stats.showCount).toBe(2);
    expect(stats.shows).toEqual([
      { showId: harbor.id, title: 'Harbor Nights', episodes: 3, minutes: 95, withoutRuntime: 1 },
      { showId: quiet.id, title: 'A Quiet Show', episodes: 2, minutes: 40, withoutRuntime: 0 },
    ]);

    // Another year, reviewed on request.
    const earlier = await statistics(account.token, 2024);
    expect(earlier.year).toBe(2024);
    expect(earlier.review).toEqual(counts({ episodes: 1, minutes: 30 }));
    expect(at(earlier.months, 12)).toEqual(counts({ episodes: 1, minutes: 30 }));
    expect(at(earlier.weekdays, 2)).toEqual(counts({ episodes: 1, minutes: 30 }));
    expect(earlier.shows).toEqual([{ showId: harbor.id, title: 'Harbor Nights', episodes: 1, minutes: 30, withoutRuntime: 0 }]);

    // The other account sees its own two, in its own years.
    const theirs = await statistics(other.token);
    expect(theirs.total).toEqual(counts({ episodes: 1, movies: 1, minutes: 50 + 120 }));
    expect(theirs.years.map((year) => year.key)).toEqual([2025, 2024]);

    // Changing the zone moves the edges: in UTC the New Year's Eve episode is 2025's.
    await db().account.update({ where: { id: account.id }, data: { timezone: 'UTC' } });
    const utc = await statistics(account.token);
    expect(utc.years.map((year) => year.key)).toEqual([2025]);
    expect(at(utc.weekdays, 1)).toEqual(counts({ episodes: 1, movies: 2, minutes: 20 + 120, withoutRuntime: 1 }));
  });

  it('reads zones far from UTC and off the hour: +14 and +5:45', async () => {
    const show = await episodesWithRuntimes('Far Away', [25, 25]);
    const kiritimati = await makeAccount({ timezone: 'Pacific/Kiritimati' });
    await setWatched({ accountId: kiritimati.id, kind: 'episode', id: show.episodes[0]!.id, watched: true, at: new Date('2025-12-31T10:00:00.000Z') });
    const newYear = await statistics(kiritimati.token);
    expect(newYear.year).toBe(2026);
    expect(at(newYear.months, 1)).toEqual(counts({ episodes: 1, minutes: 25 }));
    expect(at(newYear.weekdays, 4)).toEqual(counts({ episodes: 1, minutes: 25 })); // Thursday 1 January 2026

    const kathmandu = await makeAccount({ timezone: 'Asia/Kathmandu' });
    await setWatched({ accountId: kathmandu.id, kind: 'episode', id: show.episodes[0]!.id, watched: true, at: new Date('2025-06-30T18:15:00.000Z') });
    await setWatched({ accountId: kathmandu.id, kind: 'episode', id: show.episodes[1]!.id, watched: true, at: new Date('2025-06-30T18:14:59.000Z') });
    const july = await statistics(kathmandu.token);
    expect(at(july.months, 7)).toEqual(counts({ episodes: 1, minutes: 25 }));
    expect(at(july.months, 6)).toEqual(counts({ episodes: 1, minutes: 25 }));
  });

  it("counts a mark dated by the air date at that date, leaves a mark of unknown date out, and an undo back at the remaining entry's time", async () => {
    const show = await makeShow({ title: 'Dated Marks', episodes: [{ number: 1, airDate: '2023-03-10' }, { number: 2, airDate: '2023-03-17' }, { number: 3, airDate: '2023-04-07' }] });
    const account = await makeAccount({ timezone: 'UTC' });
    const [first, second, third] = show.episodes.map((episode) => episode.id) as [number, number, number];
    await markItems({ accountId: account.id, kind: 'episode', ids: [first, second], watched: true, date: 'airDate' });
    await markItems({ accountId: account.id, kind: 'episode', ids: [third], watched: true, date: 'unknown' });
    const dated = await statistics(account.token, 2023);
    expect(at(dated.months, 3).episodes).toBe(2);
    expect(at(dated.months, 4).episodes).toBe(0);
    expect(dated.total.episodes).toBe(2);
    expect(dated.years.map((year) => year.key)).toEqual([2023]);

    // Unmarked now and the unmark undone: the episode is watched again, at its air date.
    const unmark = await markItems({ accountId: account.id, kind: 'episode', ids: [first], watched: false });
    expect((await statistics(account.token, 2023)).total.episodes).toBe(1);
    await undoMarks({ accountId: account.id, historyIds: unmark.historyIds });
    const undone = await statistics(account.token, 2023);
    expect(at(undone.months, 3).episodes).toBe(2);
    expect(undone.years.map((year) => year.key)).toEqual([2023]);
  });

  it('answers an empty history with zeros for the local current year', async () => {
    const account = await makeAccount({ timezone: 'Europe/Berlin' });
    const stats = await statistics(account.token);
    const thisYear = Number(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric' }).format(new Date()));
    expect(stats.year).toBe(thisYear);
    expect(stats.years).toEqual([]);
    expect(stats.total).toEqual(counts({}));
    expect(stats.months.every((month) => month.episodes === 0 && month.movies === 0)).toBe(true);
    expect(stats.shows).toEqual([]);
    expect(stats.showCount).toBe(0);
  });

  it('refuses a year out of range and a page too large, and needs an account', async () => {
    const account = await makeAccount();
    for (const year of [1899, 2201]) {
      const response = await graphql(app, account.token, statisticsQuery, { year });
      expect(response.status).toBe(400);
      expect((response.json as { errors: { message: string; extensions: { code: string } }[] }).errors[0]).toMatchObject({
        message: 'year must be a whole number from 1900 to 2200',
        extensions: { code: 'BAD_INPUT' },
      });
    }
    const tooMany = await graphql(app, account.token, '{ statistics { shows(first: 101) { title } } }');
    expect(JSON.stringify(tooMany.json)).toMatch(/first/);
    const anonymous = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ statistics { year } }' }) }));
    expect(anonymous.status).toBe(401);
  });

  it("finds a zone's offset changes to the second", () => {
    const from = Date.parse('2025-01-01T00:00:00Z');
    const to = Date.parse('2026-01-01T00:00:00Z');
    expect(offsetSpans('America/New_York', from, to)).toEqual([
      { offset: -5 * 3600, until: Date.parse('2025-03-09T07:00:00Z') / 1000 },
      { offset: -4 * 3600, until: Date.parse('2025-11-02T06:00:00Z') / 1000 },
      { offset: -5 * 3600, until: to / 1000 },
    ]);
    expect(offsetSpans('Asia/Kathmandu', from, to)).toEqual([{ offset: 5 * 3600 + 45 * 60, until: to / 1000 }]);
    expect(zoneOffsetSeconds('Australia/Lord_Howe', Date.parse('2025-07-01T00:00:00Z'))).toBe(10.5 * 3600);
  });
});
