import { describe, expect, it } from 'vitest';
import { localDate } from '../../src/time/dates.ts';
import { airingWeek, computeFeeds, releasingItems } from '../../src/feeds/rules.ts';
import { ep, labels, library, makeShow, makeTitle, releaseLabels, seen } from './factories.ts';

const TODAY = '2026-03-10';

describe('today and week', () => {
  it('lists every episode airing today, watched or not, specials included', () => {
    const show = makeShow({ title: 'Daily', episodes: [seen('S01E05', TODAY), ep('S00E02', TODAY), ep('S01E04', '2026-03-09')] });
    const feeds = computeFeeds(library([show]), TODAY);
    expect(labels(feeds.today)).toEqual(['Daily S00E02', 'Daily S01E05']);
    expect(feeds.counts.airingToday).toBe(2);
  });

  it('keeps the week to today through today + 6: yesterday and today + 7 are out', () => {
    const show = makeShow({
      title: 'Edges',
      episodes: [
        ep('S01E01', '2026-03-09'),
        ep('S01E02', TODAY),
        ep('S01E03', '2026-03-16'),
        ep('S01E04', '2026-03-17'),
        ep('S01E05', null),
      ],
    });
    const feeds = computeFeeds(library([show]), TODAY);
    expect(labels(feeds.week)).toEqual(['Edges S01E02', 'Edges S01E03']);
    expect(feeds.counts.airingWeek).toBe(2);
    expect(airingWeek(library([show]), TODAY)).toEqual(feeds.week);
  });

  it('counts seven calendar days across the leap day', () => {
    const show = makeShow({
      title: 'Leap',
      episodes: [ep('S01E01', '2028-02-29'), ep('S01E02', '2028-03-03'), ep('S01E03', '2028-03-04'), ep('S01E04', '2028-02-25')],
    });
    expect(labels(airingWeek(library([show]), '2028-02-26'))).toEqual(['Leap S01E01', 'Leap S01E02']);
  });

  it('orders by air date, then show title, then season and number (E100 after E99)', () => {
    const zulu = makeShow({ title: 'Zulu', episodes: [ep('S01E01', TODAY)] });
    const alpha = makeShow({
      title: 'alpha',
      episodes: [ep('S01E100', '2026-03-11'), ep('S02E01', TODAY), ep('S01E99', '2026-03-11'), ep('S01E09', '2026-03-11')],
    });
    const feeds = computeFeeds(library([zulu, alpha]), TODAY);
    expect(labels(feeds.week)).toEqual(['alpha S02E01', 'Zulu S01E01', 'alpha S01E09', 'alpha S01E99', 'alpha S01E100']);
    expect(labels(feeds.today)).toEqual(['alpha S02E01', 'Zulu S01E01']);
  });
});

describe('releasing', () => {
  it('takes unwatched episodes, movies and games of today and tomorrow only', () => {
    const show = makeShow({
      title: 'Show',
      episodes: [
        ep('S01E01', '2026-03-09'),
        ep('S01E02', TODAY),
        ep('S01E03', '2026-03-11'),
        ep('S01E04', '2026-03-12'),
        ep('S01E05', null),
      ],
    });
    const titles = [
      makeTitle('movie', '2026-03-09', { title: 'Yesterday' }),
      makeTitle('movie', TODAY, { title: 'Premiere' }),
      makeTitle('game', '2026-03-11', { title: 'Launch' }),
      makeTitle('game', '2026-03-12', { title: 'Later' }),
      makeTitle('movie', null, { title: 'Undated' }),
    ];
    expect(releaseLabels(releasingItems(library([show], titles), TODAY))).toEqual([
      'movie:Premiere',
      'episode:Show S01E02',
      'game:Launch',
      'episode:Show S01E03',
    ]);
  });

  it('drops what is already watched, but keeps specials', () => {
    const show = makeShow({ title: 'Show', episodes: [seen('S01E02', TODAY), ep('S00E01', '2026-03-11')] });
    const titles = [makeTitle('movie', TODAY, { watched: true }), makeTitle('game', '2026-03-11', { watched: true })];
    const feeds = computeFeeds(library([show], titles), TODAY);
    expect(releaseLabels(feeds.releasing)).toEqual(['episode:Show S00E01']);
    expect(labels(feeds.today)).toEqual(['Show S01E02']);
  });

  it('orders same-day items by title, then kind (episode, game, movie), then number', () => {
    const show = makeShow({ title: 'Dune', episodes: [ep('S01E02', TODAY), ep('S01E01', TODAY)] });
    const titles = [
      makeTitle('movie', TODAY, { title: 'Dune' }),
      makeTitle('game', TODAY, { title: 'Dune' }),
      makeTitle('movie', TODAY, { title: 'Arrival' }),
    ];
    expect(releaseLabels(computeFeeds(library([show], titles), TODAY).releasing)).toEqual([
      'movie:Arrival',
      'episode:Dune S01E01',
      'episode:Dune S01E02',
      'game:Dune',
      'movie:Dune',
    ]);
  });
});

describe('feed items', () => {
  it('carry the documented fields, in a stable key order', () => {
    const show = makeShow({ id: 7, title: 'The Show', poster: 'https://img.example/7.jpg' });
    show.episodes = [ep('S01E02', TODAY, { id: 42, title: 'Pilot, Part 2' })];
    const movie = makeTitle('movie', TODAY, { id: 9, title: 'Film', poster: null });
    const feeds = computeFeeds(library([show], [movie]), TODAY);
    const episodeItem = {
      kind: 'episode',
      id: 42,
      title: 'The Show',
      show: 'The Show',
      showId: 7,
      episode: 'S01E02',
      season: 1,
      number: 2,
      episodeTitle: 'Pilot, Part 2',
      airDate: TODAY,
      poster: 'https://img.example/7.jpg',
    };
    expect(JSON.stringify(feeds.today[0])).toBe(JSON.stringify(episodeItem));
    expect(JSON.stringify(feeds.upNext[0])).toBe(JSON.stringify(episodeItem));
    expect(JSON.stringify(feeds.releasing.find((item) => item.kind === 'movie'))).toBe(
      JSON.stringify({ kind: 'movie', id: 9, title: 'Film', airDate: TODAY, poster: null }),
    );
  });
});

describe('time zones', () => {
  // One instant, three accounts: Kiritimati (UTC+14) is already on the 16th, Pago Pago (UTC-11) still on the 14th.
  const instant = new Date('2026-06-15T10:30:00Z');
  const show = makeShow({
    title: 'Global',
    episodes: [ep('S01E01', '2026-06-14'), ep('S01E02', '2026-06-15'), ep('S01E03', '2026-06-16'), ep('S01E04', '2026-06-22')],
  });

  it('gives each account its own today, week and releasing lists', () => {
    const feedsIn = (zone: string) => computeFeeds(library([show]), localDate(zone, instant));
    const east = feedsIn('Pacific/Kiritimati');
    const utc = feedsIn('UTC');
    const west = feedsIn('Pacific/Pago_Pago');
    expect(labels(east.today)).toEqual(['Global S01E03']);
    expect(labels(utc.today)).toEqual(['Global S01E02']);
    expect(labels(west.today)).toEqual(['Global S01E01']);
    expect(labels(east.week)).toEqual(['Global S01E03', 'Global S01E04']);
    expect(labels(west.week)).toEqual(['Global S01E01', 'Global S01E02', 'Global S01E03']);
    expect(east.counts.unwatchedEpisodes).toBe(3);
    expect(west.counts.unwatchedEpisodes).toBe(1);
    expect(releaseLabels(west.releasing)).toEqual(['episode:Global S01E01', 'episode:Global S01E02']);
  });

  it('moves an episode into today exactly at local midnight on a DST day', () => {
    const spring = makeShow({ title: 'Spring', episodes: [ep('S01E01', '2026-03-08')] });
    const before = computeFeeds(library([spring]), localDate('America/New_York', new Date('2026-03-08T04:59:59Z')));
    const after = computeFeeds(library([spring]), localDate('America/New_York', new Date('2026-03-08T05:00:00Z')));
    expect(before.today).toEqual([]);
    expect(releaseLabels(before.releasing)).toEqual(['episode:Spring S01E01']); // tomorrow
    expect(before.upNext).toEqual([]);
    expect(labels(after.today)).toEqual(['Spring S01E01']);
    expect(labels(after.upNext)).toEqual(['Spring S01E01']);
  });
});
