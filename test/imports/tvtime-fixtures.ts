import { bytes } from './fixtures.ts';

/**
 * TV Time files built the way real ones look (reference/import-formats.md §3 and §3a): columns by
 * name in any order, extra columns, BOM and CRLF from Windows tools, cells quoted with commas and
 * newlines inside. Values invented.
 */

export type Row = Record<string, string | number>;

export interface CsvShape {
  /** Column order: the header as the export writes it, shuffled with this seed, or as given. */
  shuffle?: number;
  /** Columns added after the export's own (copies passed through tools have `information`). */
  extra?: string[];
  bom?: boolean;
  crlf?: boolean;
}

/** A CSV file of `rows` under `header`, every cell quoted when it needs to be. */
export function csvFile(header: string[], rows: Row[], shape: CsvShape = {}): Uint8Array {
  const columns = [...(shape.shuffle === undefined ? header : shuffled(header, shape.shuffle)), ...(shape.extra ?? [])];
  const cell = (value: string | number | undefined) => {
    const text = value === undefined ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const end = shape.crlf ? '\r\n' : '\n';
  const lines = [columns.map(cell).join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))];
  return bytes(`${shape.bom ? '\uFEFF' : ''}${lines.join(end)}${end}`);
}

/** A deterministic shuffle (the same seed gives the same order). */
export function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed || 1;
  for (let index = copy.length - 1; index > 0; index -= 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/** Go's `time.String()` form of an instant, as older TV Time exports write every time. */
export const goTime = (at: Date) => `${at.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
/** The naive form (GDPR database columns; tool-passed copies). */
export const naiveTime = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');
/** The current data export's ISO 8601 form. */
export const isoTime = (at: Date) => at.toISOString().replace('.000Z', 'Z');

export const headers = {
  seenOld: ['tweet_id', 'user_id', 'episode_id', 'created_at', 'updated_at', 'fb_action_id'],
  seenNamed: ['episode_id', 'tv_show_name', 'episode_season_number', 'episode_number', 'created_at', 'updated_at'],
  rewatched: ['user_id', 'episode_id', 'cpt', 'created_at', 'updated_at'],
  showData: ['user_id', 'tv_show_id', 'is_followed', 'is_favorited', 'nb_episodes_seen'],
  followed: ['user_id', 'tv_show_id', 'notification_type', 'notification_offset', 'created_at', 'updated_at', 'active', 'diffusion', 'folder_id', 'archived', 'tv_show_name'],
  trackingV2: ['ep_watch_count', 'updated_at', 'key', 'user_id', 'created_at', 'is_archived', 'is_for_later', 's_id', 'series_name', 'is_followed', 'ep_no', 'ep_id', 'episode_number', 'rewatch_count', 's_no', 'is_unitary', 'episode_id', 'season_number', 'gsi', 'is_special'],
  trackingV1: ['watch_count', 'uuid', 'type', 'series_name', 'type-uuid-n', 'updated_at', 'user_id', 'created_at', 'series_id', 'watches', 'runtime', 'release_date_range_key', 'release_date', 'alpha_range_key', 'movie_name', 'entity_type', 'follow_date_range_key', 'rewatch_count', 'watch_date', 'series_uuid', 'season_number', 'episode_number', 'episode_id', 'watch_date_range_key', 'country'],
  series: ['uuid', 'tvdb_id', 'imdb_id', 'title', 'status', 'created_at'],
  seriesEpisodes: ['series_tvdb_id', 'series_imdb_id', 'series_uuid', 'title', 'season', 'episode', 'tvdb_id', 'is_watched', 'watched_at', 'rewatch_count', 'special'],
  movies: ['uuid', 'tvdb_id', 'imdb_id', 'title', 'year', 'created_at', 'watched_at', 'is_watched', 'rewatch_count'],
  lists: ['list_id', 'list_name', 'item_type', 'tvdb_id', 'uuid', 'name', 'custom_order'],
};

/** Show titles that exercise the CSV reader: commas, quotes, a newline, non-Latin scripts. */
export function showName(index: number): string {
  const odd = ['Law & Order, Special Victims Unit', 'The "Office"', 'Line one\nline two', 'Átta – ドラマ', 'Doctor Who (2005)'];
  return index % 20 < odd.length ? `${odd[index % 20]} #${index}` : `Show ${index}`;
}

/** A v4-like uuid from a number. */
export const uuidOf = (index: number) => `0aa1${String(index).padStart(4, '0')}-0000-4000-8000-${String(index).padStart(12, '0')}`;

const day = 86_400_000;
const start = Date.UTC(2017, 4, 2, 21, 24, 51);

/**
 * An older account's GDPR export (2017–2020): 200 shows, ~8 000 watches, every time in Go's
 * ` +0000 UTC` form. Shows `i % 10 === 3` were stopped (`is_followed=0`), `i % 25 === 0` archived.
 * `tvdbBase + i` is show i's TheTVDB id.
 */
export function olderExport(tvdbBase: number) {
  const shows = Array.from({ length: 200 }, (_, index) => index);
  const watchAt = (show: number, episode: number) => new Date(start + show * day + episode * 3_600_000);
  const showData = csvFile(headers.showData, shows.map((index) => ({
    user_id: 4242, tv_show_id: tvdbBase + index, is_followed: index % 10 === 3 ? 0 : 1, is_favorited: index % 7 === 0 ? 1 : 0, nb_episodes_seen: 10, information: 'copied',
  })), { shuffle: 7, extra: ['information'], bom: true, crlf: true });
  const followed = csvFile(headers.followed, shows.map((index) => ({
    user_id: 4242, tv_show_id: tvdbBase + index, notification_type: 2, notification_offset: 1440, created_at: goTime(watchAt(index, 0)),
    updated_at: goTime(watchAt(index, 0)), active: 1, diffusion: 'original', folder_id: '', archived: index % 25 === 0 ? 1 : 0, tv_show_name: showName(index),
  })), { shuffle: 3, bom: true, crlf: true });
  // Ten episodes of every show in the v2 tracking file (2 000 watches).
  const trackingV2Rows = shows.flatMap((index) => Array.from({ length: 10 }, (_, episode) => {
    const at = goTime(watchAt(index, episode));
    return {
      updated_at: at, key: `watch-episode-${index}-${episode}`, user_id: 4242, created_at: at, s_id: tvdbBase + index, series_name: showName(index),
      ep_no: episode + 1, ep_id: 60_000_000 + index * 100 + episode, episode_number: episode + 1, rewatch_count: 0, s_no: 1, is_unitary: 'false',
      episode_id: 60_000_000 + index * 100 + episode, season_number: 1,
    };
  }));
  // The v1 file repeats 300 of them (same show, episode and time), and has 20 movies and 10 follows.
  const trackingV1Rows: Row[] = [
    ...trackingV2Rows.slice(0, 300).map((row, index) => ({
      uuid: uuidOf(index), type: 'watch', series_name: row.series_name, created_at: row.created_at, series_id: row.s_id, watch_date: row.created_at,
      entity_type: 'series', season_number: 1, episode_number: row.episode_number, episode_id: row.episode_id, country: 'us',
    })),
    ...Array.from({ length: 20 }, (_, index) => ({
      uuid: uuidOf(1000 + index), type: 'watch', movie_name: index < 2 ? 'Heat' : `Film ${index}`, release_date: `${1995 + index}-12-15`, entity_type: 'movie',
      created_at: goTime(new Date(start + index * day)), watch_date: goTime(new Date(start + index * day)),
    })),
    ...Array.from({ length: 10 }, (_, index) => ({ uuid: uuidOf(2000 + index), type: 'follow', series_name: showName(index), series_id: tvdbBase + index, entity_type: 'series', created_at: goTime(watchAt(index, 0)) })),
  ];
  // seen_episode.csv names only TheTVDB episode ids: 5 650 episodes, 50 rows written twice.
  const seenRows = Array.from({ length: 5_650 }, (_, index) => {
    const at = goTime(new Date(start + index * 600_000));
    return { tweet_id: '', user_id: 4242, episode_id: 50_000_000 + index, created_at: at, updated_at: at, fb_action_id: '' };
  });
  const seen = [...seenRows, ...seenRows.slice(100, 150)];
  const rewatched = Array.from({ length: 100 }, (_, index) => ({
    user_id: 4242, episode_id: 50_000_000 + index, cpt: (index % 3) + 1,
    created_at: goTime(new Date(start + 400 * day + index * day)), updated_at: goTime(new Date(start + 400 * day + index * day + 7 * day)),
  }));
  const files: Record<string, Uint8Array> = {
    'tvtime-export/user_tv_show_data.csv': showData,
    'tvtime-export/followed_tv_show.csv': followed,
    'tvtime-export/tracking-prod-records-v2.csv': csvFile(headers.trackingV2, trackingV2Rows, { shuffle: 11, bom: true, crlf: true }),
    'tvtime-export/tracking-prod-records.csv': csvFile(headers.trackingV1, trackingV1Rows, { shuffle: 5 }),
    'tvtime-export/seen_episode.csv': csvFile(headers.seenOld, seen, { crlf: true }),
    'tvtime-export/rewatched_episode.csv': csvFile(headers.rewatched, rewatched, { shuffle: 2, extra: ['information'] }),
    'tvtime-export/emotion.csv': csvFile(['user_id', 'episode_id', 'emotion_id', 'created_at'], [{ user_id: 4242, episode_id: 50_000_001, emotion_id: 3, created_at: goTime(new Date(start)) }]),
    'tvtime-export/user.csv': csvFile(['id', 'name', 'email', 'timezone'], [{ id: 4242, name: 'fixture', email: 'someone@example.com', timezone: 'Europe/Paris' }]),
    'tvtime-export/access_token.csv': bytes('token,created_at\nsecret-token,2017-05-02 21:24:51 +0000 UTC\n'),
    'tvtime-export/auth-prod-login.csv': bytes('login,password\nsomeone,hash\n'),
    'tvtime-export/ip_address.csv': bytes('ip\n192.0.2.1\n'),
  };
  return {
    files,
    counts: {
      shows: shows.length,
      stopped: shows.filter((index) => index % 10 === 3).length,
      archived: shows.filter((index) => index % 25 === 0).length,
      trackingV2: trackingV2Rows.length,
      trackingV1: trackingV1Rows.length,
      seen: seen.length,
      seenEpisodes: seenRows.length,
      rewatches: rewatched.reduce((sum, row) => sum + row.cpt, 0),
      rewatchedRows: rewatched.length,
    },
    watchAt,
  };
}

/**
 * A current data export (`tvtime-<kind>-2024-05-01.csv`): 300 shows (every 6th `stopped`, every
 * 7th `watch_later`), 24 episode rows each (watched up to a point, some rewatched), 400 movies
 * (two different films called "Heat"), a list. `tvdbBase + i` is show i's TheTVDB id.
 */
export function currentExport(tvdbBase: number) {
  const statuses = ['continuing', 'up_to_date', 'not_started_yet', 'continuing', 'up_to_date', 'stopped', 'continuing'];
  const shows = Array.from({ length: 300 }, (_, index) => ({
    uuid: uuidOf(index), tvdb_id: tvdbBase + index, imdb_id: `tt${9_000_000 + index}`, title: showName(index),
    status: index % 7 === 6 ? 'watch_later' : statuses[index % 6]!, created_at: isoTime(new Date(Date.UTC(2020, 0, 1) + index * day)),
  }));
  const watchedUpTo = (index: number) => (shows[index]!.status === 'watch_later' || shows[index]!.status === 'not_started_yet' ? 0 : index % 24);
  const episodes = shows.flatMap((show, index) => Array.from({ length: 24 }, (_, slot) => {
    const watched = slot < watchedUpTo(index);
    const special = slot === 23;
    return {
      series_tvdb_id: show.tvdb_id, series_imdb_id: show.imdb_id, series_uuid: show.uuid, title: `Episode, "${slot}"`, season: special ? 0 : 1 + Math.floor(slot / 12),
      episode: special ? 1 : (slot % 12) + 1, tvdb_id: 70_000_000 + index * 100 + slot, is_watched: watched ? 'true' : 'false',
      watched_at: watched ? isoTime(new Date(Date.UTC(2021, 0, 1) + index * day + slot * 3_600_000)) : '', rewatch_count: watched && slot % 5 === 0 ? 2 : 0, special: special ? 'true' : 'false',
    };
  }));
  const movies = Array.from({ length: 400 }, (_, index) => ({
    uuid: uuidOf(5000 + index), tvdb_id: index % 4 === 0 ? '' : tvdbBase + 10_000 + index, imdb_id: `tt${8_000_000 + index}`, title: index < 2 ? 'Heat' : `Film ${index}`,
    year: index === 0 ? 1995 : 1986 + (index % 30), created_at: isoTime(new Date(Date.UTC(2022, 0, 1) + index * day)),
    watched_at: index % 3 === 0 ? '' : isoTime(new Date(Date.UTC(2022, 0, 2) + index * day)), is_watched: index % 3 === 0 ? 'false' : 'true', rewatch_count: index % 10 === 1 ? 1 : 0,
  }));
  const lists = [
    ...shows.slice(0, 30).map((show, index) => ({ list_id: 1, list_name: 'Favourites, all time', item_type: 'series', tvdb_id: show.tvdb_id, uuid: show.uuid, name: show.title, custom_order: index })),
    ...movies.slice(0, 20).map((movie, index) => ({ list_id: 2, list_name: 'Films', item_type: 'movie', tvdb_id: movie.tvdb_id, uuid: movie.uuid, name: movie.title, custom_order: index })),
  ];
  const files: Record<string, Uint8Array> = {
    'tvtime-series-2024-05-01.csv': csvFile(headers.series, shows, { bom: true }),
    'tvtime-series-episodes-2024-05-01.csv': csvFile(headers.seriesEpisodes, episodes, { shuffle: 9, crlf: true }),
    'tvtime-movies-2024-05-01.csv': csvFile(headers.movies, movies, { extra: ['information'] }),
    'tvtime-lists-2024-05-01.csv': csvFile(headers.lists, lists, { bom: true, crlf: true }),
  };
  return { files, shows, episodes, movies, lists };
}

/** Unix seconds of an instant, as one generation of tracking-prod-records.csv writes some cells. */
export const unixTime = (at: Date) => String(Math.floor(at.getTime() / 1000));

/**
 * The issue's 2024 GDPR export, whose plain date-times are the account holder's local time (UTC−3,
 * America/Sao_Paulo, no summer time since 2019) while some cells of the v1 tracking file are Unix
 * seconds: 66 shows, 1 100 watched episodes, 228 watched movies (remakes sharing a title in other
 * years among them). In the v1 file every 4th episode row's `watch_date` and every 25th row's
 * `created_at` (its `watch_date` empty) are Unix times of the same instant its plain cells give in
 * local time; the v2 file repeats the first 800 episode watches in local time. `moviesOf(base)`
 * are the films' titles and years (`Film {base}-i`, `Dune {base}` of 1984 and 2021).
 */
export function unixTimesExport(tvdbBase: number, base: number) {
  const localOffset = -3 * 3_600_000;
  const local = (at: Date) => naiveTime(new Date(at.getTime() + localOffset));
  const showCount = 66;
  const episodes = Array.from({ length: 1_100 }, (_, index) => {
    const show = index % showCount;
    const slot = Math.floor(index / showCount);
    return { show, season: 1 + Math.floor(slot / 10), number: (slot % 10) + 1, at: new Date(Date.UTC(2021, 9, 20, 17, 59, 55) + index * 3_700_000) };
  });
  const movies = moviesOf(base).map((movie, index) => ({ ...movie, uuid: uuidOf(9000 + index), at: new Date(Date.UTC(2022, 0, 3, 23, 30) + index * 86_400_000) }));
  const v1Episodes: Row[] = episodes.map((episode, index) => {
    const unixWatch = index % 4 === 0;
    const unixCreated = !unixWatch && index % 25 === 1;
    return {
      watch_count: 1, uuid: uuidOf(20_000 + index), type: 'watch', series_name: showName(episode.show), created_at: unixCreated ? unixTime(episode.at) : local(episode.at),
      series_id: tvdbBase + episode.show, entity_type: 'series', season_number: episode.season, episode_number: episode.number, episode_id: 80_000_000 + index,
      watch_date: unixWatch ? unixTime(episode.at) : unixCreated ? '' : local(episode.at), series_uuid: uuidOf(30_000 + episode.show), country: 'br',
    };
  });
  const v1Movies: Row[] = movies.map((movie, index) => ({
    uuid: movie.uuid, type: 'watch', movie_name: movie.title, release_date: `${movie.year}-06-01`, entity_type: 'movie', runtime: 6000 + index,
    created_at: local(movie.at), watch_date: index % 3 === 0 ? unixTime(movie.at) : local(movie.at), country: 'br',
  }));
  const follows: Row[] = Array.from({ length: showCount }, (_, show) => ({
    uuid: uuidOf(40_000 + show), type: 'follow', series_name: showName(show), series_id: tvdbBase + show, entity_type: 'series', created_at: local(new Date(Date.UTC(2021, 0, 1) + show * 3_600_000)),
  }));
  const v2Rows = episodes.slice(0, 800).map((episode, index) => ({
    updated_at: local(episode.at), key: `watch-episode-${index}`, user_id: 4242, created_at: local(episode.at), s_id: tvdbBase + episode.show, series_name: showName(episode.show),
    ep_no: episode.number, ep_id: 80_000_000 + index, episode_number: episode.number, rewatch_count: 0, s_no: episode.season, is_unitary: 'false', episode_id: 80_000_000 + index, season_number: episode.season,
  }));
  const files: Record<string, Uint8Array> = {
    'tvtime-2024/tracking-prod-records.csv': csvFile(headers.trackingV1, [...v1Episodes, ...v1Movies, ...follows], { shuffle: 13, bom: true, crlf: true }),
    'tvtime-2024/tracking-prod-records-v2.csv': csvFile(headers.trackingV2, v2Rows, { shuffle: 17, crlf: true }),
    'tvtime-2024/followed_tv_show.csv': csvFile(headers.followed, Array.from({ length: showCount }, (_, show) => ({
      user_id: 4242, tv_show_id: tvdbBase + show, created_at: local(new Date(Date.UTC(2021, 0, 1))), updated_at: local(new Date(Date.UTC(2021, 0, 1))), active: 1, archived: 0, tv_show_name: showName(show),
    })), { bom: true, crlf: true }),
  };
  return {
    files,
    episodes,
    movies,
    counts: { shows: showCount, episodes: episodes.length, movies: movies.length, v1Rows: v1Episodes.length + v1Movies.length + follows.length, v2Rows: v2Rows.length },
    /** Rows whose watch time is a Unix time, and the instant of the first such episode row. */
    unixRows: v1Episodes.filter((row) => /^\d+$/.test(String(row.watch_date)) || /^\d+$/.test(String(row.created_at))).length + v1Movies.filter((row) => /^\d+$/.test(String(row.watch_date))).length,
  };
}

/** The 228 films of unixTimesExport: two share a title ("Dune", 1984 and 2021). */
export function moviesOf(base: number): { title: string; year: number }[] {
  return Array.from({ length: 228 }, (_, index) => (index < 2 ? { title: `Dune ${base}`, year: index === 0 ? 1984 : 2021 } : { title: `Film ${base}-${index}`, year: 1950 + (index % 70) }));
}
