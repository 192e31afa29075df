import { describe, expect, it } from 'vitest';
import { ImportFileError } from '../../src/imports/sources/import-document.ts';
import { parseGrouveeFile } from '../../src/imports/sources/parse-grouvee.ts';
import { parseSimklFile } from '../../src/imports/sources/parse-simkl.ts';
import { parseTraktFile } from '../../src/imports/sources/parse-trakt.ts';
import { parseTvTimeFiles } from '../../src/imports/sources/parse-tvtime.ts';
import { bytes, grouveeHeader, grouveeRow, json, traktEpisodePlay, traktMoviePlay, traktShow, tvTimeTrackingV2, tvTimeWatch } from './fixtures.ts';

const breakingBad = traktShow('Breaking Bad', 1396, 81189);
const failure = (run: () => unknown): ImportFileError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ImportFileError) return error;
    throw error;
  }
  throw new Error('expected an ImportFileError');
};

describe('Trakt', () => {
  it('reads plays newest-first into per-episode history oldest-first, rewatches kept, identical plays merged', () => {
    const file = [
      traktEpisodePlay(3, '2025-03-02T21:14:00.000Z', breakingBad, 1, 1),
      traktEpisodePlay(2, '2025-03-01T21:14:00.000Z', breakingBad, 1, 1),
      traktEpisodePlay(1, '2025-03-01T21:14:00.000Z', breakingBad, 1, 1),
      traktEpisodePlay(0, '2025-02-01T20:00:00.000Z', breakingBad, 0, 1),
      traktMoviePlay(9, '2025-03-01T19:00:00.000Z', 'Fixture Film', 700001),
    ];
    const document = parseTraktFile(json(file), 'watched-history-2.json');
    expect(document.shows).toHaveLength(1);
    expect(document.shows[0]!.ids).toEqual({ tmdb: 1396, tvdb: 81189 });
    const [special, pilot] = [...document.shows[0]!.episodes].sort((a, b) => a.season - b.season);
    expect(special).toMatchObject({ season: 0, number: 1 });
    expect(pilot!.history.map((entry) => entry.at.toISOString())).toEqual(['2025-03-01T21:14:00.000Z', '2025-03-02T21:14:00.000Z']);
    expect(document.titles).toEqual([expect.objectContaining({ kind: 'movie', ids: { tmdb: 700001 }, title: 'Fixture Film' })]);
  });

  it('merges a show listed under two titles by a shared id, and keeps an id-less show by title', () => {
    const renamed = traktShow('Breaking Bad (US)', null, 81189);
    const noIds = traktShow('Obscure Show', null, null);
    const document = parseTraktFile(json([
      traktEpisodePlay(1, '2025-01-01T00:00:00.000Z', breakingBad, 1, 1),
      traktEpisodePlay(2, '2025-01-02T00:00:00.000Z', renamed, 1, 2),
      traktEpisodePlay(3, '2025-01-03T00:00:00.000Z', noIds, 1, 1),
    ]), 'watched-history.json');
    expect(document.shows.map((show) => [show.title, show.ids, show.episodes.length])).toEqual([
      ['Breaking Bad', { tmdb: 1396, tvdb: 81189 }, 2],
      ['Obscure Show', {}, 1],
    ]);
  });

  it('reads the /sync/watched/shows aggregate, ratings and watchlist entries', () => {
    const watched = parseTraktFile(json([{
      plays: 3, last_watched_at: '2024-09-10T13:52:56.000Z', last_updated_at: '2024-09-10T13:52:56.000Z', reset_at: null,
      show: { title: 'Breaking Bad', year: 2008, ids: { trakt: 1388, slug: 'breaking-bad', tvdb: 81189, imdb: 'tt0903747', tmdb: 1396, tvrage: null } },
      seasons: [{ number: 1, episodes: [{ number: 1, plays: 2, last_watched_at: '2024-09-10T13:52:56.000Z' }, { number: 2, plays: 1, last_watched_at: '2024-09-09T10:00:00.000Z' }] }],
    }]), 'watched-shows.json');
    expect(watched.shows[0]!.episodes.map((episode) => episode.history.length)).toEqual([1, 1]);

    const ratings = parseTraktFile(json([{ rated_at: '2024-09-11T08:38:24.000Z', rating: 8, type: 'show', show: breakingBad }]), 'ratings-shows.json');
    expect(ratings.shows).toHaveLength(1);
    expect(ratings.skipped).toEqual([expect.objectContaining({ item: 'ratings' })]);

    const watchlist = parseTraktFile(json([
      { type: 'movie', rank: 1, id: 1085770001, listed_at: '2024-09-11T07:45:03.000Z', notes: null, movie: { ids: { tmdb: 700002 }, year: 1998, title: 'Other Film' } },
      { type: 'person', rank: 2, id: 5, listed_at: '2024-09-11T07:45:03.000Z', person: { name: 'Someone' } },
    ]), 'lists-watchlist-2025.json');
    expect(watchlist.titles.map((title) => title.title)).toEqual(['Other Film']);
    expect(watchlist.titles[0]!.history).toEqual([]);
    expect(watchlist.skipped).toEqual([expect.objectContaining({ reason: 'person entries are not imported' })]);
  });

  it('skips the export files that hold nothing to import, unread', () => {
    expect(parseTraktFile(bytes('not even json'), 'trakt/user-profile.json').skipped).toHaveLength(1);
    expect(parseTraktFile(bytes('{'), 'comments-shows-3.json').skipped).toHaveLength(1);
  });

  it('names the file and the first problem', () => {
    expect(failure(() => parseTraktFile(bytes('{"a":'), 'watched-history-1.json')).message).toMatch(/^watched-history-1\.json: is not valid JSON/);
    expect(failure(() => parseTraktFile(json({ a: 1 }), 'x.json')).message).toBe('x.json: is a JSON object of something else, not a Trakt export file (a JSON array of history, watched, rating or list entries)');
    const bad = [traktEpisodePlay(1, '2025-01-01T00:00:00.000Z', breakingBad, 1, 1), { ...traktEpisodePlay(2, 'yesterday', breakingBad, 1, 2) }];
    expect(failure(() => parseTraktFile(json(bad), 'h.json')).message).toBe('h.json: entry 2: watched_at is not an ISO 8601 timestamp');
  });
});

describe('Simkl', () => {
  const backup = {
    shows: [{
      status: 'watching', last_watched_at: '2024-02-01T20:00:00Z', watched_episodes_count: 2, total_episodes_count: 10, memo: {},
      show: { title: 'Fixture Show', year: 2016, ids: { simkl: 9100001, slug: 'fixture-show', imdb: 'tt7100001', tvdb: '9000001', tmdb: '7100001' } },
      seasons: [{ number: 1, episodes: [{ number: 1 }, { number: 2, watched_at: '2024-02-01T20:00:00Z' }] }],
    }, {
      status: 'dropped', watched_episodes_count: 3, show: { title: 'Dropped Show', ids: { simkl: 1, tmdb: 55 } },
    }],
    movies: [{ status: 'completed', user_rating: 9, last_watched_at: '2023-02-01T00:00:00Z', memo: {}, movie: { title: 'Fixture Film', year: 2019, ids: { simkl: 9100002, imdb: 'tt7000001', tmdb: 700001 } } }],
    anime: [{ status: 'plantowatch', anime_type: 'tv', watched_episodes_count: 0, memo: { text: 'Later' }, show: { title: 'Fixture Anime', ids: { simkl: 9100003, mal: 41000, anidb: 17000 } } }],
  };

  it('reads shows (string ids), episodes with and without watched_at, completed movies and id-less anime', () => {
    const document = parseSimklFile(json(backup), 'SimklBackup.json');
    const [show, dropped, anime] = document.shows;
    expect(show!.ids).toEqual({ tmdb: 7100001, tvdb: 9000001 });
    expect(show!.episodes.map((episode) => [episode.number, episode.watched, episode.history.length])).toEqual([[1, undefined, 1], [2, undefined, 1]]);
    // Episode 1 has no watched_at: it takes the show's last_watched_at, marked estimated.
    expect(show!.episodes[0]!.history).toEqual([{ watched: true, at: new Date('2024-02-01T20:00:00Z'), estimated: true }]);
    expect(show!.episodes[1]!.history[0]!.estimated).toBeUndefined();
    expect(dropped!.archived).toBe(true);
    expect(anime!.ids).toEqual({});
    expect(document.titles[0]!.history.map((entry) => entry.at.toISOString())).toEqual(['2023-02-01T00:00:00.000Z']);
    expect(document.skipped).toEqual([expect.objectContaining({ item: 'Dropped Show' })]);
  });

  it('refuses the CSV backup and other JSON with a pointer to what to upload', () => {
    expect(failure(() => parseSimklFile(bytes('\uFEFFSIMKL_ID,Title,Type\r\n1,A,tv\r\n'), 'simkl.csv')).message).toMatch(/CSV backup.*upload the JSON backup/);
    expect(failure(() => parseSimklFile(json([1]), 'a.json')).message).toBe('a.json: is a JSON array of something else, not a Simkl JSON backup (an object with "shows", "movies" or "anime")');
    expect(failure(() => parseSimklFile(json({ shows: [{ show: { title: 'x', ids: {} }, seasons: [{ number: 'one', episodes: [] }] }] }), 'b.json')).message)
      .toBe('b.json: shows[0]: seasons[0].number is not a whole number');
  });
});

describe('TV Time', () => {
  it('reads naive timestamps as UTC, rewatches as extra entries, BOM and CRLF', () => {
    const tracking = tvTimeTrackingV2([
      tvTimeWatch(81189, 'Breaking Bad', 1, 1, '2022-05-01 20:11:05'),
      tvTimeWatch(81189, 'Breaking Bad', 1, 1, '2023-01-09 21:40:00', 'rewatch-episode-0aa1-02'),
      tvTimeWatch(81189, 'Breaking Bad', 0, 1, '2022-05-02 20:15:44'),
    ]);
    const [document] = parseTvTimeFiles([{ name: 'tracking-prod-records-v2.csv', bytes: tracking }]);
    const show = document!.shows[0]!;
    expect(show.ids).toEqual({ tvdb: 81189 });
    expect(show.episodes.find((episode) => episode.season === 1)!.history.map((entry) => entry.at.toISOString()))
      .toEqual(['2022-05-01T20:11:05.000Z', '2023-01-09T21:40:00.000Z']);
    expect(show.episodes.some((episode) => episode.season === 0)).toBe(true);
  });

  it('finds the series of seen_episode.csv by name through followed_tv_show.csv, and reads follow states', () => {
    const followed = bytes('user_id,tv_show_id,notification_type,notification_offset,created_at,updated_at,active,diffusion,folder_id,archived,tv_show_name\n'
      + '4242,81189,2,1440,2022-04-30 18:00:00,2022-04-30 18:00:00,1,original,,1,Breaking Bad\n'
      + '4242,79168,2,1440,2022-04-30 18:00:00,2022-04-30 18:00:00,0,original,,0,Friends\n');
    const seen = bytes('episode_id,tv_show_name,episode_season_number,episode_number,created_at,updated_at\n'
      + '9000101,Breaking Bad,1,1,2022-05-01 20:11:05,2022-05-01 20:11:05\n9,Unknown Show,1,1,2022-05-01 20:11:05,2022-05-01 20:11:05\n');
    const [follows, watches] = parseTvTimeFiles([{ name: 'followed_tv_show.csv', bytes: followed }, { name: 'my-seen-episodes.csv', bytes: seen }]);
    expect(follows!.shows.map((show) => [show.title, show.followed, show.archived])).toEqual([['Breaking Bad', undefined, true], ['Friends', false, undefined]]);
    expect(watches!.shows.map((show) => [show.title, show.ids])).toEqual([['Breaking Bad', { tvdb: 81189 }]]);
    // A show no file gives an id for: its episode is handed on by its TheTVDB episode id, never made an id-less show.
    expect(watches!.episodeRefs).toEqual([{ ids: { tvdb: 9 }, label: 'Unknown Show S1E1', history: [{ watched: true, at: new Date('2022-05-01T20:11:05Z') }] }]);
  });

  it('names the file and line of a bad timestamp', () => {
    const tracking = tvTimeTrackingV2([tvTimeWatch(81189, 'Breaking Bad', 1, 1, '2022-05-01 20:11:05'), tvTimeWatch(81189, 'Breaking Bad', 1, 2, '01/05/2022 8pm')]);
    expect(failure(() => parseTvTimeFiles([{ name: 'tvtime.zip/tracking-prod-records-v2.csv', bytes: tracking }])).message)
      .toBe('tvtime.zip/tracking-prod-records-v2.csv: line 3: created_at "01/05/2022 8pm" is not a date and time');
  });
});

describe('Grouvee', () => {
  it('reads games by igdb id; played games get history at their finish date; duplicated rows merge', () => {
    const csv = [grouveeHeader, grouveeRow('Portal', 71, 'Played', '2021-04-03'), grouveeRow('Portal', 71, 'Played', '2021-04-03'), grouveeRow('Later Game', 990002, 'Backlog'), grouveeRow('Old Export Game', '', 'Played')].join('\r\n');
    const document = parseGrouveeFile(bytes(`\uFEFF${csv}`), 'grouvee.csv');
    expect(document.titles.map((game) => [game.title, game.ids, game.history.map((entry) => entry.at.toISOString()), game.releaseDate])).toEqual([
      ['Portal', { igdb: 71 }, ['2021-04-03T00:00:00.000Z'], '2007-10-10'],
      ['Later Game', { igdb: 990002 }, [], '2007-10-10'],
      ['Old Export Game', {}, ['2021-05-01T10:00:00.000Z'], '2007-10-10'],
    ]);
  });

  it('400s a CSV that is not a Grouvee export', () => {
    expect(failure(() => parseGrouveeFile(bytes('Title,Platform\nA,PC\n'), 'hltb.csv')).message).toBe('hltb.csv: is a CSV file with the columns "Title,Platform", not a Grouvee collection CSV (columns id, name, shelves, …, giantbomb_id[, igdb_id])');
  });
});
