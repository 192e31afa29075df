import { describe, expect, it } from 'vitest';
import {
  computeFeeds,
  countUnwatchedEpisodes,
  feedWindow,
  findUpNext,
  hasAired,
  scanShow,
} from '../../src/feeds/rules.ts';
import type { SnapshotEpisode } from '../../src/feeds/types.ts';
import { ep, labels, library, makeShow, makeTitle, seen } from './factories.ts';

const TODAY = '2026-03-10';
const WINDOW = feedWindow(TODAY);

/** The code of the show's up-next episode, or null. */
function upNextOf(episodes: SnapshotEpisode[], today = TODAY): string | null {
  const { upNext } = scanShow(makeShow({ episodes }), feedWindow(today));
  return upNext === null ? null : `S${upNext.season}E${upNext.number}`;
}

describe('hasAired', () => {
  it('is true up to and including today, false for later or unknown dates', () => {
    expect(hasAired('2026-03-09', TODAY)).toBe(true);
    expect(hasAired(TODAY, TODAY)).toBe(true);
    expect(hasAired('2026-03-11', TODAY)).toBe(false);
    expect(hasAired(null, TODAY)).toBe(false);
  });
});

describe('up next of one show', () => {
  it('is the first aired episode when nothing was watched', () => {
    expect(upNextOf([ep('S01E02', '2026-02-08'), ep('S01E01', '2026-02-01'), ep('S01E03', '2026-03-20')])).toBe('S1E1');
  });

  it('is the episode after the last watched one', () => {
    expect(upNextOf([seen('S01E01', '2026-02-01'), seen('S01E02', '2026-02-08'), ep('S01E03', '2026-02-15')])).toBe('S1E3');
  });

  it('crosses a season boundary (S01E10 → S02E01)', () => {
    const episodes = [ep('S02E02', '2026-03-02'), ep('S02E01', '2026-03-01'), seen('S01E10', '2025-05-01'), ep('S01E09', '2025-04-24')];
    expect(upNextOf(episodes)).toBe('S2E1');
  });

  it('orders numbers numerically, not as text (E100 after E99)', () => {
    expect(upNextOf([ep('S01E100', '2026-03-05'), seen('S01E99', '2026-03-04'), ep('S01E10', '2025-12-01', { watched: true })]))
      .toBe('S1E100');
    expect(upNextOf([ep('S01E100', '2026-03-05'), ep('S01E99', '2026-03-04'), ep('S01E9', '2026-03-03')])).toBe('S1E9');
  });

  it('jumps over skipped episodes: watched E3 but not E2 gives E4, and E2 is still unwatched', () => {
    const episodes = [seen('S01E01', '2026-01-01'), ep('S01E02', '2026-01-08'), seen('S01E03', '2026-01-15'), ep('S01E04', '2026-01-22')];
    const progress = scanShow(makeShow({ episodes }), WINDOW);
    expect(progress.upNext?.number).toBe(4);
    expect(progress.unwatchedEpisodes).toBe(2);
  });

  it('has none when only skipped episodes are left, though they still count', () => {
    const episodes = [ep('S01E01', '2026-01-01'), seen('S01E02', '2026-01-08'), ep('S01E03', '2026-04-01')];
    const progress = scanShow(makeShow({ episodes }), WINDOW);
    expect(progress.upNext).toBeNull();
    expect(progress.unwatchedEpisodes).toBe(1);
  });

  it('counts the skipped episodes, and with the first-unwatched rule offers the first of them (issue 33, item 3)', () => {
    const episodes = [ep('S00E01', '2025-12-01'), ep('S01E01', '2026-01-01'), seen('S01E02', '2026-01-08'), ep('S01E03', '2026-01-15'), seen('S02E01', '2026-01-22'), ep('S02E02', '2026-01-29')];
    const byDefault = scanShow(makeShow({ episodes }), WINDOW);
    expect([byDefault.upNext?.season, byDefault.upNext?.number, byDefault.skippedEpisodes, byDefault.firstSkipped?.number]).toEqual([2, 2, 2, 1]);
    const first = scanShow({ ...makeShow({ episodes }), upNextRule: 'first-unwatched' }, WINDOW);
    expect([first.upNext?.season, first.upNext?.number, first.skippedEpisodes, first.unwatchedEpisodes]).toEqual([1, 1, 2, 3]);
    // Caught up past the holes: none by default, the first hole by the other rule.
    const caughtUp = episodes.map((episode) => (episode.number === 2 && episode.season === 2 ? { ...episode, watched: true } : episode));
    expect(scanShow(makeShow({ episodes: caughtUp }), WINDOW).upNext).toBeNull();
    expect(scanShow({ ...makeShow({ episodes: caughtUp }), upNextRule: 'first-unwatched' }, WINDOW).upNext?.number).toBe(1);
    // Without holes both rules agree.
    const inOrder = [seen('S01E01', '2026-01-01'), ep('S01E02', '2026-01-08')];
    expect(scanShow({ ...makeShow({ episodes: inOrder }), upNextRule: 'first-unwatched' }, WINDOW)).toEqual(scanShow(makeShow({ episodes: inOrder }), WINDOW));
  });

  it('has none when everything aired is watched', () => {
    const episodes = [seen('S01E01', '2026-01-01'), seen('S01E02', '2026-01-08'), ep('S01E03', '2026-03-11')];
    expect(scanShow(makeShow({ episodes }), WINDOW)).toEqual({ upNext: null, unwatchedEpisodes: 0, skippedEpisodes: 0, firstSkipped: null });
  });

  it('counts an episode airing today as aired, tomorrow not yet', () => {
    expect(upNextOf([seen('S01E01', '2026-03-03'), ep('S01E02', TODAY)])).toBe('S1E2');
    expect(upNextOf([seen('S01E01', '2026-03-03'), ep('S01E02', '2026-03-11')])).toBeNull();
    expect(upNextOf([seen('S01E01', '2026-03-03'), ep('S01E02', '2026-03-11')], '2026-03-11')).toBe('S1E2');
  });

  it('never offers an episode without a date, and goes past it to the next aired one', () => {
    expect(upNextOf([ep('S01E01', null)])).toBeNull();
    expect(upNextOf([seen('S01E01', '2026-01-01'), ep('S01E02', null), ep('S01E03', '2026-02-01')])).toBe('S1E3');
  });

  it('ignores specials: an aired special is never up next, and a watched one is not progress', () => {
    const onlySpecial = scanShow(makeShow({ episodes: [ep('S00E01', '2026-01-01')] }), WINDOW);
    expect(onlySpecial).toEqual({ upNext: null, unwatchedEpisodes: 0, skippedEpisodes: 0, firstSkipped: null });
    expect(upNextOf([seen('S00E05', '2026-02-01'), ep('S01E01', '2026-01-01'), ep('S01E02', '2026-01-08')])).toBe('S1E1');
    expect(upNextOf([ep('S00E01', '2025-12-24'), seen('S01E01', '2026-01-01'), ep('S01E02', '2026-01-08')])).toBe('S1E2');
  });
});

describe('up next across shows', () => {
  const watchedAt = (iso: string) => new Date(iso);
  const show = (title: string, lastWatchedAt: Date | null, airDate: string) =>
    makeShow({ title, lastWatchedAt, episodes: [seen('S01E01', '2025-01-01'), ep('S01E02', airDate)] });

  it('puts the most recently watched shows first, then never-watched ones by air date, then title', () => {
    const snapshot = library([
      show('Never B', null, '2026-03-01'),
      show('Old', watchedAt('2026-02-01T10:00:00Z'), '2026-01-01'),
      show('Never A', null, '2026-03-05'),
      show('Recent', watchedAt('2026-03-09T21:00:00Z'), '2026-03-08'),
      show('Never C', null, '2026-03-01'),
      show('apple', null, '2026-03-01'),
    ]);
    expect(findUpNext(snapshot, TODAY).map((item) => item.show)).toEqual(['Recent', 'Old', 'apple', 'Never B', 'Never C', 'Never A']);
  });

  it('breaks a full tie (same title, same date) by show id, whatever the input order', () => {
    const first = show('Twin', null, '2026-03-01');
    const second = show('Twin', null, '2026-03-01');
    const forward = findUpNext(library([first, second]), TODAY).map((item) => item.showId);
    const backward = findUpNext(library([second, first]), TODAY).map((item) => item.showId);
    expect(forward).toEqual([first.id, second.id]);
    expect(backward).toEqual(forward);
  });

  it('gives one item per show and makes next the first of them', () => {
    const busy = makeShow({ title: 'Busy', episodes: [ep('S01E01', '2026-01-01'), ep('S01E02', '2026-01-08'), ep('S01E03', '2026-01-15')] });
    const feeds = computeFeeds(library([busy]), TODAY);
    expect(labels(feeds.upNext)).toEqual(['Busy S01E01']);
    expect(feeds.next).toEqual(feeds.upNext[0]);
    expect(feeds.counts.upNext).toBe(1);
    expect(feeds.counts.unwatchedEpisodes).toBe(3);
  });

  it('has next null and zero counts when nothing is left to watch', () => {
    const done = makeShow({ episodes: [seen('S01E01', '2026-01-01')] });
    const feeds = computeFeeds(library([done]), TODAY);
    expect(feeds.next).toBeNull();
    expect(feeds.counts).toEqual({ upNext: 0, airingToday: 0, airingWeek: 0, unwatchedEpisodes: 0 });
  });
});

describe('followed and archived', () => {
  const episodes = () => [ep('S01E01', '2026-03-01'), ep('S00E01', TODAY), ep('S01E02', TODAY), ep('S01E03', '2026-03-11')];

  it('leaves archived and unfollowed shows out of every list and count', () => {
    const archived = makeShow({ archived: true, episodes: episodes(), lastWatchedAt: new Date('2026-03-09T00:00:00Z') });
    const unfollowed = makeShow({ followed: false, episodes: episodes() });
    const unfollowedArchived = makeShow({ followed: false, archived: true, episodes: episodes() });
    const feeds = computeFeeds(library([archived, unfollowed, unfollowedArchived]), TODAY);
    expect(feeds).toEqual({
      counts: { upNext: 0, airingToday: 0, airingWeek: 0, unwatchedEpisodes: 0 },
      next: null,
      upNext: [],
      today: [],
      week: [],
      releasing: [],
    });
    expect(countUnwatchedEpisodes(library([archived, unfollowed]), TODAY)).toBe(0);
  });

  it('counts the same show once it is followed and unarchived again', () => {
    const active = makeShow({ title: 'Back', episodes: episodes() });
    const feeds = computeFeeds(library([active]), TODAY);
    expect(feeds.counts).toEqual({ upNext: 1, airingToday: 2, airingWeek: 3, unwatchedEpisodes: 2 });
    expect(feeds.releasing).toHaveLength(3);
  });

  it('leaves unfollowed movies and games out of releasing', () => {
    const titles = [makeTitle('movie', TODAY, { followed: false }), makeTitle('game', '2026-03-11', { followed: false })];
    expect(computeFeeds(library([], titles), TODAY).releasing).toEqual([]);
  });
});

describe('unwatched count', () => {
  it('counts aired, unwatched, non-special episodes of every active show', () => {
    const one = makeShow({ episodes: [ep('S01E01', '2026-01-01'), seen('S01E02', '2026-01-08'), ep('S01E03', '2026-01-15')] });
    const two = makeShow({ episodes: [ep('S00E01', '2026-01-01'), ep('S01E01', TODAY), ep('S01E02', '2026-03-11'), ep('S01E03', null)] });
    expect(countUnwatchedEpisodes(library([one, two]), TODAY)).toBe(3);
    expect(computeFeeds(library([one, two]), TODAY).counts.unwatchedEpisodes).toBe(3);
  });
});
