import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { parseSimklFile } from '../../src/imports/sources/parse-simkl.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow, unique } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { json, traktEpisodePlay, traktShow, tvTimeTrackingV2, tvTimeWatch } from './fixtures.ts';

const { app } = await useTestApp();

const simklShow = (title: string, tmdb: number, extra: Record<string, unknown>) => ({
  added_to_watchlist_at: '2020-01-02T03:04:05Z', user_rating: null, memo: {}, not_aired_episodes_count: 0,
  show: { title, year: 2016, ids: { simkl: tmdb + 1, slug: title.toLowerCase(), tmdb: String(tmdb) } },
  ...extra,
});

describe('Simkl parser', () => {
  it('dates an episode without watched_at by the show\'s last_watched_at, estimated, across 3 000 episodes', () => {
    const seasons = Array.from({ length: 30 }, (_, season) => ({
      number: season + 1,
      episodes: Array.from({ length: 100 }, (_, episode) => (episode % 2 === 0 ? { number: episode + 1 } : { number: episode + 1, watched_at: '2023-05-06T07:08:09Z' })),
    }));
    const document = parseSimklFile(json({ shows: [simklShow('Long Show', 42, { status: 'watching', last_watched_at: '2024-02-01T20:00:00Z', seasons })] }), 'SimklBackup.json');
    const episodes = document.shows[0]!.episodes;
    expect(episodes).toHaveLength(3000);
    const estimated = episodes.filter((episode) => episode.history[0]?.estimated === true);
    expect(estimated).toHaveLength(1500);
    expect(estimated.every((episode) => episode.number % 2 === 1 && episode.history[0]!.at.toISOString() === '2024-02-01T20:00:00.000Z')).toBe(true);
    expect(episodes.filter((episode) => episode.history[0]!.estimated === undefined).every((episode) => episode.history[0]!.at.toISOString() === '2023-05-06T07:08:09.000Z')).toBe(true);
    // Without last_watched_at there is no time to give: marked watched, no history entry.
    const undated = parseSimklFile(json({ shows: [simklShow('S', 43, { status: 'watching', seasons: [{ number: 1, episodes: [{ number: 1 }] }] })] }), 'b.json');
    expect(undated.shows[0]!.episodes[0]).toMatchObject({ watched: true, history: [] });
  });

  it('a completed show without seasons is watched through its last_watched_at; others without seasons are reported', () => {
    const document = parseSimklFile(json({
      shows: [
        simklShow('Done Show', 50, { status: 'completed', last_watched_at: '2022-03-04T05:06:07Z', watched_episodes_count: 24, total_episodes_count: 24 }),
        simklShow('Done Undated', 51, { status: 'completed', watched_episodes_count: 10 }),
        simklShow('Halfway', 52, { status: 'watching', last_watched_at: '2022-03-04T05:06:07Z', watched_episodes_count: 5 }),
      ],
    }), 'SimklBackup.json');
    expect(document.shows.map((show) => [show.title, show.watchedThrough, show.episodes.length])).toEqual([
      ['Done Show', { at: new Date('2022-03-04T05:06:07Z'), estimated: true }, 0],
      ['Done Undated', undefined, 0],
      ['Halfway', undefined, 0],
    ]);
    expect(document.skipped).toEqual([
      { item: 'Done Undated', reason: '10 watched episodes are not listed in the backup, and it has no last_watched_at to date them by; the show is followed without them' },
      { item: 'Halfway', reason: '5 watched episodes are not listed in the backup, and it is not completed (status watching), so which ones is not known; the show is followed without them' },
    ]);
  });

  it('reports a title listed twice as merged into its first entry', () => {
    const document = parseSimklFile(json({
      shows: [simklShow('Twice', 60, { status: 'watching', seasons: [{ number: 1, episodes: [{ number: 1, watched_at: '2024-01-01T00:00:00Z' }] }] })],
      anime: [simklShow('Twice (anime)', 60, { status: 'watching', seasons: [{ number: 1, episodes: [{ number: 2, watched_at: '2024-01-02T00:00:00Z' }] }] })],
      movies: [{ status: 'completed', movie: { title: 'Film', ids: { tmdb: 60 } } }, { status: 'completed', movie: { title: 'Film', ids: {} } }, { status: 'completed', movie: { title: 'film', ids: {} } }],
    }), 'SimklBackup.json');
    expect(document.shows).toHaveLength(1);
    expect(document.shows[0]!.episodes.map((episode) => episode.number)).toEqual([1, 2]);
    expect(document.titles).toHaveLength(2);
    expect(document.skipped).toEqual([
      { item: 'Twice (anime) (anime[0])', reason: 'merged as a duplicate: shows[0] is the same title' },
      { item: 'film (movies[2])', reason: 'merged as a duplicate: movies[1] is the same title' },
    ]);
  });

  it('refuses other services\' files and an empty backup, naming them', () => {
    const message = (content: Uint8Array, name: string) => {
      try {
        parseSimklFile(content, name);
      } catch (error) {
        return (error as Error).message;
      }
      return 'not refused';
    };
    const expected = 'not a Simkl JSON backup (an object with "shows", "movies" or "anime")';
    expect(message(json([traktEpisodePlay(1, '2024-01-01T00:00:00.000Z', traktShow('S', 1, 1), 1, 1)]), 'history.json')).toBe(`history.json: is a Trakt JSON file, ${expected}`);
    expect(message(tvTimeTrackingV2([tvTimeWatch(1, 'Show', 1, 1, '2024-01-01 10:00:00')]), 'tracking.csv')).toBe(`tracking.csv: is a TV Time CSV, ${expected}`);
    expect(message(json({ format: 'airdate-export', version: 1, shows: [], movies: [], games: [] }), 'airdate.json')).toBe(`airdate.json: is an Airdate export, ${expected}`);
    expect(message(json({ shows: [], movies: [], anime: [] }), 'empty.json')).toBe('empty.json: holds no shows, anime or movies: the Simkl backup is empty');
    expect(message(json({ shows: [simklShow('S', 1, { status: 'completed', last_watched_at: '2999-01-01T00:00:00Z' })] }), 'future.json')).toBe('future.json: shows[0]: last_watched_at 2999-01-01T00:00:00.000Z is outside 1900 to a day from now');
  });
});

describe('POST /api/import/simkl', () => {
  it('marks a completed show\'s stored episodes aired by last_watched_at watched at that time, specials and later episodes not', async () => {
    const account = await makeAccount();
    const show = await makeShow({
      episodes: [
        { season: 0, number: 1, airDate: '2019-01-01' },
        { season: 1, number: 1, airDate: '2020-01-01' },
        { season: 1, number: 2, airDate: '2020-01-08' },
        { season: 2, number: 1, airDate: '2022-03-04' },
        { season: 2, number: 2, airDate: '2022-03-05' },
        { season: 2, number: 3, airDate: null },
      ],
    });
    const other = await makeShow({ episodes: [{ season: 1, number: 1, airDate: '2020-01-01' }] });
    const backup = json({
      shows: [
        simklShow('Done Show', show.tmdbId!, { status: 'completed', last_watched_at: '2022-03-04T05:06:07Z', watched_episodes_count: 4 }),
        simklShow('Watching Show', other.tmdbId!, { status: 'watching', last_watched_at: '2021-06-07T08:09:10Z', seasons: [{ number: 1, episodes: [{ number: 1 }] }] }),
      ],
    });
    const response = await upload(app, '/api/import/simkl', account.token, { 'SimklBackup.json': backup });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ imported: { shows: 2, episodes: 4, history: 4 }, skipped: [], unmatched: [] });
    const code = (episode: { season: number; number: number }) => `S${episode.season}E${episode.number}`;
    const states = await db().watchState.findMany({ where: { accountId: account.id, episodeId: { not: null } }, include: { episode: true } });
    expect(states.filter((state) => state.episode!.showId === show.id && state.watched).map((state) => code(state.episode!)).sort()).toEqual(['S1E1', 'S1E2', 'S2E1']);
    const events = await db().watchEvent.findMany({ where: { accountId: account.id }, include: { episode: true } });
    expect(events.map((event) => [event.episode!.showId === show.id ? 'done' : 'watching', code(event.episode!), event.at.toISOString()]).sort()).toEqual([
      ['done', 'S1E1', '2022-03-04T05:06:07.000Z'],
      ['done', 'S1E2', '2022-03-04T05:06:07.000Z'],
      ['done', 'S2E1', '2022-03-04T05:06:07.000Z'],
      ['watching', 'S1E1', '2021-06-07T08:09:10.000Z'],
    ]);
    const again = await upload(app, '/api/import/simkl', account.token, { 'SimklBackup.json': backup });
    expect(again.json.imported.history).toBe(0);
  });

  it('400 for a Trakt file sent to Simkl, and nothing written', async () => {
    const account = await makeAccount();
    const response = await upload(app, '/api/import/simkl', account.token, { 'watched-shows.json': json([{ plays: 2, last_watched_at: '2024-01-01T00:00:00.000Z', show: traktShow('S', unique(), null), seasons: [] }]) });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/^watched-shows\.json: is a Trakt JSON file, not a Simkl JSON backup/);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().show.count({ where: { title: 'S' } })).toBe(0);
  });
});
