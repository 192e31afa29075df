/**
 * Property checks over random libraries: the rules are compared with deliberately naive
 * re-statements of decisions.md (sort everything, then look), on hundreds of seeded snapshots.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/time/dates.ts';
import { createRandom } from './factories.ts';
import { airingWeek, computeFeeds, countUnwatchedEpisodes, findUpNext, releasingItems, type ShowScans } from '../../src/feeds/rules.ts';
import type { LibrarySnapshot, SnapshotEpisode, SnapshotShow, SnapshotTitle } from '../../src/feeds/types.ts';
import type { LocalDate } from '../../src/time/dates.ts';


function randomSnapshot(seed: number): { snapshot: LibrarySnapshot; today: LocalDate } {
  const random = createRandom(seed);
  const int = (max: number) => Math.floor(random() * max);
  const chance = (p: number) => random() < p;
  const pick = <T>(values: readonly T[]): T => values[int(values.length)] as T;
  const shuffle = <T>(values: T[]): T[] => {
    for (let i = values.length - 1; i > 0; i -= 1) {
      const j = int(i + 1);
      [values[i], values[j]] = [values[j] as T, values[i] as T];
    }
    return values;
  };
  // Few titles and near dates, so that ties and window edges happen often.
  const today = pick(['2026-03-08', '2026-12-30', '2028-02-26', '2028-02-29', '2026-06-15']);
  const dateNear = () => (chance(0.12) ? null : addDays(today, int(21) - 12));
  const titles = ['Andor', 'andor', 'Bluey', 'Severance', 'Ögon', 'Zebra'];
  let id = 0;
  const shows: SnapshotShow[] = [];
  for (let s = int(9); s > 0; s -= 1) {
    const episodes: SnapshotEpisode[] = [];
    for (let season = chance(0.4) ? 0 : 1; season <= 1 + int(3); season += 1) {
      const offset = chance(0.15) ? 96 : 0; // crosses E99 → E100
      for (let number = 1; number <= int(7); number += 1) {
        const title = chance(0.2) ? null : `E${number}`;
        episodes.push({ id: (id += 1), season, number: number + offset, title, airDate: dateNear(), watched: chance(0.45) });
      }
    }
    const lastWatchedAt = chance(0.5) ? null : new Date(Date.UTC(2026, 0, 1 + int(4), 0, 0, 0));
    shows.push({
      id: (id += 1),
      title: pick(titles),
      poster: chance(0.5) ? null : 'p',
      followed: chance(0.8),
      archived: chance(0.2),
      lastWatchedAt,
      episodes: shuffle(episodes),
    });
  }
  const movies: SnapshotTitle[] = [];
  for (let t = int(6); t > 0; t -= 1) {
    const kind = chance(0.5) ? 'movie' : 'game';
    const releaseDate = dateNear();
    movies.push({ kind, id: (id += 1), title: pick(titles), poster: null, followed: chance(0.8), releaseDate, watched: chance(0.4) });
  }
  return { snapshot: { shows: shuffle(shows), titles: shuffle(movies) }, today };
}

const aired = (episode: SnapshotEpisode, today: LocalDate) => episode.airDate !== null && episode.airDate <= today;
const active = (show: SnapshotShow) => show.followed && !show.archived;

/** Up next the slow way: sort the regular episodes, find the last watched, take the next aired unwatched. */
function naiveUpNext(show: SnapshotShow, today: LocalDate): SnapshotEpisode | undefined {
  const regular = show.episodes.filter((e) => e.season !== 0).sort((a, b) => a.season - b.season || a.number - b.number);
  let lastIndex = -1;
  regular.forEach((episode, index) => {
    if (episode.watched) lastIndex = index;
  });
  return regular.slice(lastIndex + 1).find((e) => !e.watched && aired(e, today));
}

const SEEDS = Array.from({ length: 400 }, (_, index) => index + 1);

describe('feed invariants on random libraries', () => {
  it.each(SEEDS)('holds for seed %i', (seed) => {
    const { snapshot, today } = randomSnapshot(seed);
    const before = structuredClone(snapshot);
    const feeds = computeFeeds(snapshot, today);
    expect(snapshot).toEqual(before);

    const showsById = new Map(snapshot.shows.map((show) => [show.id, show]));
    const episodeOf = (id: number) => snapshot.shows.flatMap((show) => show.episodes).find((e) => e.id === id);
    const activeShows = snapshot.shows.filter(active);
    const regularEpisodes = activeShows.flatMap((show) => show.episodes.filter((e) => e.season !== 0));

    expect(feeds.counts).toEqual({
      upNext: feeds.upNext.length,
      airingToday: feeds.today.length,
      airingWeek: feeds.week.length,
      unwatchedEpisodes: regularEpisodes.filter((e) => !e.watched && aired(e, today)).length,
    });
    expect(feeds.next).toEqual(feeds.upNext[0] ?? null);

    // Up next: exactly the shows the naive rule finds, one item each, in the documented order.
    const expected = activeShows.flatMap((show) => {
      const episode = naiveUpNext(show, today);
      return episode === undefined ? [] : [episode.id];
    });
    expect(feeds.upNext.map((item) => item.id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(new Set(feeds.upNext.map((item) => item.showId)).size).toBe(feeds.upNext.length);
    for (const item of feeds.upNext) {
      const episode = episodeOf(item.id);
      expect(episode && !episode.watched && episode.season !== 0 && aired(episode, today)).toBe(true);
      expect(active(showsById.get(item.showId) as SnapshotShow)).toBe(true);
    }
    const activity = feeds.upNext.map((item) => showsById.get(item.showId)?.lastWatchedAt?.getTime() ?? -Infinity);
    for (let i = 1; i < activity.length; i += 1) expect(activity[i - 1]).toBeGreaterThanOrEqual(activity[i] as number);

    // Week and today: every dated episode of an active show in the window, today being a subset.
    const weekEnd = addDays(today, 6);
    const inWeek = activeShows
      .flatMap((show) => show.episodes)
      .filter((e) => e.airDate !== null && e.airDate >= today && e.airDate <= weekEnd);
    expect(feeds.week.map((item) => item.id).sort((a, b) => a - b)).toEqual(inWeek.map((e) => e.id).sort((a, b) => a - b));
    expect(feeds.today.every((item) => item.airDate === today && feeds.week.includes(item))).toBe(true);
    expect(feeds.today.length).toBe(inWeek.filter((e) => e.airDate === today).length);
    expect(feeds.week.map((item) => item.airDate)).toEqual(feeds.week.map((item) => item.airDate).sort());

    // Releasing: unwatched, dated today or tomorrow, followed (and active for episodes).
    const tomorrow = addDays(today, 1);
    const releasingTitles = snapshot.titles.filter(
      (t) => t.followed && !t.watched && (t.releaseDate === today || t.releaseDate === tomorrow),
    );
    const releasingEpisodes = inWeek.filter((e) => !e.watched && e.airDate !== null && e.airDate <= tomorrow);
    expect(feeds.releasing).toHaveLength(releasingTitles.length + releasingEpisodes.length);
    for (const item of feeds.releasing) {
      const source = item.kind === 'episode' ? episodeOf(item.id) : snapshot.titles.find((t) => t.id === item.id);
      expect(source?.watched).toBe(false);
      expect([today, tomorrow]).toContain(item.airDate);
    }

    // The narrower entry points agree with the summary.
    expect(findUpNext(snapshot, today)).toEqual(feeds.upNext);
    expect(airingWeek(snapshot, today)).toEqual(feeds.week);
    expect(releasingItems(snapshot, today)).toEqual(feeds.releasing);
    expect(countUnwatchedEpisodes(snapshot, today)).toBe(feeds.counts.unwatchedEpisodes);
  });

  it.each(SEEDS.slice(0, 100))('does not depend on input order (seed %i)', (seed) => {
    const { snapshot, today } = randomSnapshot(seed);
    const reversed: LibrarySnapshot = {
      shows: [...snapshot.shows].reverse().map((show) => ({ ...show, episodes: [...show.episodes].reverse() })),
      titles: [...snapshot.titles].reverse(),
    };
    expect(computeFeeds(reversed, today)).toEqual(computeFeeds(snapshot, today));
  });

  it.each(SEEDS.slice(0, 100))('gives the same feeds with kept show scans, on the same day and the next (seed %i)', (seed) => {
    const { snapshot, today } = randomSnapshot(seed);
    const scans: ShowScans = new WeakMap();
    expect(computeFeeds(snapshot, today, scans)).toEqual(computeFeeds(snapshot, today));
    expect(computeFeeds(snapshot, today, scans)).toEqual(computeFeeds(snapshot, today));
    const tomorrow = addDays(today, 1);
    expect(computeFeeds(snapshot, tomorrow, scans)).toEqual(computeFeeds(snapshot, tomorrow));
  });
});
