import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import type { ImportDocument } from '../../src/imports/sources/import-document.ts';
import { parseTvTimeFiles, tvTimeWantsEntry } from '../../src/imports/sources/parse-tvtime.ts';
import { tvTimeTimestamp } from '../../src/imports/sources/tvtime-timestamps.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { upload as uploadTo } from '../support/upload.ts';
import { bytes, json, zip } from './fixtures.ts';
import { csvFile, currentExport, goTime, headers, naiveTime, olderExport, showName } from './tvtime-fixtures.ts';

const { app } = await useTestApp();
const upload = (files: Record<string, Uint8Array>) => makeAccount().then(async (account) => ({ account, ...(await uploadTo(app, '/api/import/tvtime', account.token, files)) }));

/** The documents of `files` as the route reads them: zip entries by their filter, under `archive/`. */
function parseAsZip(archive: string, files: Record<string, Uint8Array>): ImportDocument[] {
  const read = Object.entries(files).filter(([name]) => tvTimeWantsEntry(path.posix.basename(name)));
  return parseTvTimeFiles(read.map(([name, content]) => ({ name: `${archive}/${name}`, bytes: content })));
}

const byFile = (documents: ImportDocument[], name: string) => documents.find((document) => document.fileName.endsWith(`/${name}`) || document.fileName === name)!;
const historyOf = (document: ImportDocument) => [
  ...document.shows.flatMap((show) => show.episodes.flatMap((episode) => episode.history)),
  ...document.titles.flatMap((title) => title.history),
  ...(document.episodeRefs ?? []).flatMap((ref) => ref.history),
];
/** The number a report entry like `{item: "300 rows", …}` counts, for the reason matching `reason`. */
const counted = (document: ImportDocument, reason: RegExp) => Number(document.skipped.find((skip) => reason.test(skip.reason))?.item.split(' ')[0] ?? 0);
const failure = (work: () => unknown): Error => {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
};

describe('TV Time timestamps', () => {
  it('reads every form the exports use as UTC, applies a stated offset, refuses the rest', () => {
    const iso = (value: string) => tvTimeTimestamp(value)?.toISOString();
    expect(iso('2017-05-02 21:24:51 +0000 UTC')).toBe('2017-05-02T21:24:51.000Z');
    expect(iso('2017-05-02 21:24:51.123456789 +0000 UTC m=+0.000123')).toBe('2017-05-02T21:24:51.123Z');
    expect(iso('2017-05-02 23:24:51 +0200 CEST')).toBe('2017-05-02T21:24:51.000Z');
    expect(iso('2017-05-02 21:24:51')).toBe('2017-05-02T21:24:51.000Z');
    expect(iso('2017-05-02 21:24:51 UTC')).toBe('2017-05-02T21:24:51.000Z');
    expect(iso('2024-05-01T20:11:05Z')).toBe('2024-05-01T20:11:05.000Z');
    expect(iso('2024-05-01T20:11:05.250Z')).toBe('2024-05-01T20:11:05.250Z');
    expect(iso('2024-05-01T22:11:05+02:00')).toBe('2024-05-01T20:11:05.000Z');
    expect(iso('2024-05-01')).toBe('2024-05-01T00:00:00.000Z');
    for (const bad of ['2017-02-30 10:00:00', '2017-05-02 21:24:51 CEST', '2017-05-02 25:00:00', '01/05/2022 8pm', '2017-05-02 21:24:51 +0000 UTC trailing', '', '1.6e+09']) {
      expect(tvTimeTimestamp(bad), bad).toBeUndefined();
    }
  });
});

describe('TV Time older GDPR export (parser)', () => {
  const tvdbBase = 1_000_000;
  const fixture = olderExport(tvdbBase);
  const documents = parseAsZip('older.zip', fixture.files);

  it('never inflates the credential files; reads the rest by header, a table it does not read is reported', () => {
    expect(['access_token.csv', 'auth-prod-login.csv', 'ip_address.csv', 'Access-Token (1).csv'].map(tvTimeWantsEntry)).toEqual([false, false, false, false]);
    expect(documents.map((document) => path.posix.basename(document.fileName)).sort())
      .toEqual(['emotion.csv', 'followed_tv_show.csv', 'rewatched_episode.csv', 'seen_episode.csv', 'tracking-prod-records-v2.csv', 'tracking-prod-records.csv', 'user.csv', 'user_tv_show_data.csv']);
    expect(byFile(documents, 'user.csv').skipped).toEqual([{ item: 'user.csv', reason: 'not a TV Time file this importer reads (it has the columns id, name, email, timezone)' }]);
    // A table naming an episode and a time is not taken for watches.
    expect(byFile(documents, 'emotion.csv')).toMatchObject({ shows: [], titles: [], skipped: [{ item: 'emotion.csv', reason: expect.stringMatching(/^not a TV Time file/) }] });
    expect(byFile(documents, 'emotion.csv').episodeRefs).toBeUndefined();
    // seen_episode.csv renamed is still known by its columns.
    const [renamed] = parseTvTimeFiles([{ name: 'export (3).csv', bytes: fixture.files['tvtime-export/seen_episode.csv']! }]);
    expect(renamed!.episodeRefs).toHaveLength(fixture.counts.seenEpisodes);
  });

  it('imports is_followed=0 shows not followed (titles from followed_tv_show.csv), archived=1 archived', () => {
    const showData = byFile(documents, 'user_tv_show_data.csv');
    expect(showData.shows).toHaveLength(fixture.counts.shows);
    expect(showData.shows.filter((show) => show.followed === false).map((show) => show.ids.tvdb! - tvdbBase)).toEqual(
      Array.from({ length: 200 }, (_, index) => index).filter((index) => index % 10 === 3),
    );
    expect(showData.shows.map((show) => show.title)).toEqual(Array.from({ length: 200 }, (_, index) => showName(index)));
    const followed = byFile(documents, 'followed_tv_show.csv');
    expect(followed.shows.filter((show) => show.archived).length).toBe(fixture.counts.archived);
    expect(followed.shows.some((show) => show.followed === false)).toBe(false);
  });

  it('reads the tracking files with the " +0000 UTC" suffix; the v1 rows repeating v2 watches are counted as merged', () => {
    const v2 = byFile(documents, 'tracking-prod-records-v2.csv');
    expect(v2.shows).toHaveLength(200);
    expect(historyOf(v2)).toHaveLength(fixture.counts.trackingV2);
    const show = v2.shows.find((candidate) => candidate.ids.tvdb === tvdbBase + 4)!;
    expect(show.title).toBe(showName(4));
    expect(show.episodes[0]).toMatchObject({ season: 1, number: 1, ids: { tvdb: 60_000_400 }, history: [{ watched: true, at: fixture.watchAt(4, 0) }] });
    const v1 = byFile(documents, 'tracking-prod-records.csv');
    expect(historyOf(v1)).toHaveLength(20); // the movies' watches; the 300 repeated episode watches merged
    expect(counted(v1, /repeat a watch/)).toBe(300);
    // Two different films called "Heat" stay two, each with its TV Time uuid and year.
    expect(v1.titles.filter((movie) => movie.title === 'Heat').map((movie) => [movie.sourceId, movie.year])).toEqual([[expect.stringMatching(/^0aa11000/), 1995], [expect.stringMatching(/^0aa11001/), 1996]]);
    expect(v1.shows.filter((candidate) => candidate.episodes.length === 0)).toHaveLength(0);
  });

  it('hands on episodes known only by their TheTVDB episode id, never as shows; rewatches become extra entries', () => {
    const seen = byFile(documents, 'seen_episode.csv');
    expect(seen.shows).toEqual([]);
    expect(seen.episodeRefs).toHaveLength(fixture.counts.seenEpisodes);
    expect(seen.episodeRefs![0]).toEqual({ ids: { tvdb: 50_000_000 }, history: [{ watched: true, at: new Date('2017-05-02T21:24:51Z') }] });
    expect(historyOf(seen).length + counted(seen, /repeat a watch/)).toBe(fixture.counts.seen);
    expect(counted(seen, /repeat a watch/)).toBe(50);
    const rewatched = byFile(documents, 'rewatched_episode.csv');
    expect(historyOf(rewatched)).toHaveLength(fixture.counts.rewatches);
    const three = rewatched.episodeRefs!.find((ref) => ref.ids.tvdb === 50_000_002)!; // cpt 3
    expect(three.history.map((entry) => [entry.at.toISOString(), entry.estimated ?? false])).toEqual([
      ['2018-06-08T21:24:51.000Z', false], ['2018-06-08T21:24:52.000Z', true], ['2018-06-15T21:24:51.000Z', false],
    ]);
  });

  it('accounts for every row of every file', () => {
    const rows = (document: ImportDocument) => historyOf(document).length + counted(document, /repeat a watch/) + document.skipped.filter((skip) => skip.item.startsWith('line ')).length;
    expect(rows(byFile(documents, 'tracking-prod-records-v2.csv'))).toBe(fixture.counts.trackingV2);
    // v1: 300 merged + 20 movie watches + 10 follow rows (their shows are in the document).
    expect(rows(byFile(documents, 'tracking-prod-records.csv')) + 10).toBe(fixture.counts.trackingV1);
    expect(rows(byFile(documents, 'seen_episode.csv'))).toBe(fixture.counts.seen);
    expect(byFile(documents, 'rewatched_episode.csv').episodeRefs).toHaveLength(fixture.counts.rewatchedRows);
  });
});

describe('TV Time files of every shape (parser)', () => {
  it('reads seen_episode.csv with shuffled and extra columns, BOM, CRLF, a quoted newline in a name, every time form', () => {
    const followed = csvFile(headers.followed, [{ tv_show_id: 81189, active: 1, archived: 0, tv_show_name: 'Breaking\nBad, "the" show' }], { crlf: true });
    const seen = csvFile(headers.seenNamed, [
      { episode_id: 349232, tv_show_name: 'Breaking\nBad, "the" show', episode_season_number: 1, episode_number: 1, created_at: '2017-05-02 21:24:51 +0000 UTC', information: 'x' },
      { episode_id: 349233, tv_show_name: 'Breaking\nBad, "the" show', episode_season_number: 1, episode_number: 2, created_at: '2017-05-03 23:24:51 +0200 CEST' },
      { episode_id: 349234, tv_show_name: 'Breaking\nBad, "the" show', episode_season_number: 1, episode_number: 3, created_at: '2017-05-04T21:24:51Z' },
      { episode_id: 349235, tv_show_name: 'Breaking\nBad, "the" show', episode_season_number: 1, episode_number: 4, created_at: '', updated_at: '2017-05-05 21:24:51' },
      { episode_id: 777, tv_show_name: 'Nobody Follows This', episode_season_number: 2, episode_number: 5, created_at: '2017-05-06 21:24:51 +0000 UTC' },
      { episode_id: '', tv_show_name: 'Nobody Follows This', episode_season_number: 2, episode_number: 6, created_at: '2017-05-06 21:24:51 +0000 UTC' },
    ], { shuffle: 4, extra: ['information'], bom: true, crlf: true });
    const [, watches] = parseTvTimeFiles([{ name: 'a.csv', bytes: followed }, { name: 'b.csv', bytes: seen }]);
    expect(watches!.shows.map((show) => [show.ids, show.title])).toEqual([[{ tvdb: 81189 }, 'Breaking\nBad, "the" show']]);
    expect(watches!.shows[0]!.episodes.map((episode) => [episode.number, episode.ids, episode.history[0]!.at.toISOString()])).toEqual([
      [1, { tvdb: 349232 }, '2017-05-02T21:24:51.000Z'], [2, { tvdb: 349233 }, '2017-05-03T21:24:51.000Z'],
      [3, { tvdb: 349234 }, '2017-05-04T21:24:51.000Z'], [4, { tvdb: 349235 }, '2017-05-05T21:24:51.000Z'],
    ]);
    expect(watches!.episodeRefs).toEqual([{ ids: { tvdb: 777 }, label: 'Nobody Follows This S2E5', history: [{ watched: true, at: new Date('2017-05-06T21:24:51Z') }] }]);
    expect(watches!.skipped).toEqual([{ item: 'line 7: Nobody Follows This S2E6', reason: 'names neither the show with season and episode numbers nor a TheTVDB episode id' }]);
  });

  it('reads ratings, reports where-watched tables, list items of another type and rows without ids, each with its line', () => {
    const rating = csvFile(['user_id', 'tv_show_id', 'rating', 'created_at', 'updated_at', 'tv_show_name'], [{ tv_show_id: 81189, rating: 4, tv_show_name: 'Breaking Bad' }, { tv_show_id: 'abc', rating: 1, tv_show_name: 'Broken' }]);
    const source = csvFile(['user_id', 'episode_id', 'source', 'created_at', 'updated_at', 'tv_show_name', 'episode_season_number', 'episode_number'], [{ episode_id: 1, source: 'app', created_at: '2017-05-02 21:24:51' }]);
    const lists = csvFile(headers.lists, [{ list_id: 1, list_name: 'Mix', item_type: 'person', tvdb_id: 5, name: 'Someone' }, { list_id: 1, list_name: 'Mix', item_type: 'series', name: 'No Ids' }]);
    const series = csvFile(headers.series, [{ title: 'Nothing Known', status: 'continuing' }]);
    const [rated, echo, listed, shows] = parseTvTimeFiles([
      { name: 'tv_show_rate.csv', bytes: rating }, { name: 'seen_episode_source.csv', bytes: source }, { name: 'lists.csv', bytes: lists }, { name: 'tvtime-series-2024-05-01.csv', bytes: series },
    ]);
    expect(rated!.shows.map((show) => [show.ids, show.title, show.followed])).toEqual([[{ tvdb: 81189 }, 'Breaking Bad', undefined]]);
    expect(rated!.skipped).toEqual([{ item: 'line 3: Broken', reason: 'tv_show_id "abc" is no TheTVDB series id' }]);
    expect(echo!.skipped).toEqual([{ item: 'seen_episode_source.csv', reason: '1 row saying where the watches of seen_episode.csv were made (the watches are read from there)' }]);
    expect([echo!.shows, echo!.episodeRefs]).toEqual([[], undefined]);
    expect(listed!.skipped).toEqual([
      { item: 'line 2: Someone of list "Mix"', reason: 'item_type "person" is neither a series nor a movie' },
      { item: 'line 3: No Ids of list "Mix"', reason: 'has no TheTVDB id and no TV Time uuid' },
    ]);
    expect(shows!.skipped).toEqual([{ item: 'line 2: Nothing Known', reason: 'has no TheTVDB id, IMDb id or TV Time uuid' }]);
  });

  it('reads files re-saved as UTF-16 (with its BOM) or Windows-1252', () => {
    const text = new TextDecoder().decode(csvFile(headers.followed, [{ tv_show_id: 81189, active: 0, tv_show_name: 'Átta – ドラマ' }], { crlf: true }));
    const utf16 = new Uint8Array([0xff, 0xfe, ...new Uint8Array(Buffer.from(text, 'utf16le'))]);
    const latin = new Uint8Array(Buffer.from(text.replace('Átta – ドラマ', 'Pokémon'), 'latin1'));
    const [wide, western] = parseTvTimeFiles([{ name: 'followed_tv_show.csv', bytes: utf16 }, { name: 'followed-again.csv', bytes: latin }]);
    expect(wide!.shows.map((show) => [show.title, show.followed])).toEqual([['Átta – ドラマ', false]]);
    expect(western!.shows.map((show) => show.title)).toEqual(['Pokémon']);
  });

  it('reads the GDPR lists file\'s Go map dump: series by TheTVDB id (Go\'s float form too), movies named through the v1 tracking file', () => {
    const tracking = csvFile(headers.trackingV1, [{ uuid: 'u-heat', type: 'towatch', movie_name: 'Heat', release_date: '1995-12-15', entity_type: 'movie', created_at: '2020-01-01 00:00:00' }]);
    const objects = '[map[created_at:1.6e+09 id:1e+06 type:series] map[created_at:1.6e+09 id:81189 type:series] map[created_at:1.6e+09 type:movie uuid:u-heat] map[type:movie uuid:u-gone] map[id:3 type:person]]';
    const lists = csvFile(['id', 'user_id', 'name', 'objects', 'created_at'], [{ id: 7, user_id: 4242, name: 'Weekend, maybe', objects }], { bom: true });
    const [, listed] = parseTvTimeFiles([{ name: 'tracking-prod-records.csv', bytes: tracking }, { name: 'lists-prod-lists.csv', bytes: lists }]);
    expect(listed!.shows.map((show) => [show.ids, show.title])).toEqual([[{ tvdb: 1_000_000 }, 'TheTVDB series 1000000'], [{ tvdb: 81189 }, 'TheTVDB series 81189']]);
    expect(listed!.titles.map((movie) => [movie.title, movie.year, movie.sourceId])).toEqual([['Heat', 1995, 'u-heat']]);
    expect(listed!.skipped).toEqual([
      { item: 'line 2: movie u-gone of list "Weekend, maybe"', reason: 'a movie known only by its TV Time uuid, which no other file of the upload names' },
      { item: 'line 2: map[id:3 type:person] of list "Weekend, maybe"', reason: 'is neither a series with a TheTVDB id nor a movie with a TV Time uuid' },
    ]);
  });

  it('names the file and line of a time it cannot read, and of a bad season number', () => {
    const seen = csvFile(headers.seenOld, [{ episode_id: 1, created_at: goTime(new Date()) }, { episode_id: 2, created_at: '2017-05-02 21:24:51 CEST' }]);
    expect(failure(() => parseTvTimeFiles([{ name: 'x.zip/seen_episode.csv', bytes: seen }])).message)
      .toBe('x.zip/seen_episode.csv: line 3: created_at "2017-05-02 21:24:51 CEST" is not a date and time');
    const named = csvFile(headers.seenNamed, [{ episode_id: 1, tv_show_name: 'A', episode_season_number: 'one', episode_number: 1, created_at: naiveTime(new Date()) }]);
    expect(failure(() => parseTvTimeFiles([{ name: 'seen.csv', bytes: named }])).message).toBe('seen.csv: line 2: the season number "one" is not a whole number');
  });

  it('refuses another service\'s file, an unknown CSV, a binary file, and an upload without a TV Time file, naming each', () => {
    const refuse = (name: string, content: Uint8Array) => failure(() => parseTvTimeFiles([{ name, bytes: content }])).message;
    expect(refuse('watched-history-1.json', json([{ id: 1, watched_at: '2025-01-01T00:00:00.000Z', action: 'watch', type: 'movie', movie: { ids: { trakt: 1 } } }])))
      .toMatch(/^watched-history-1\.json: is a Trakt JSON file, not a TV Time CSV file; expected TV Time export files: tracking-prod-records/);
    expect(refuse('SimklBackup.json', json({ shows: [], movies: [] }))).toMatch(/^SimklBackup\.json: is a JSON object with "shows", "movies" or "anime", not a TV Time CSV file/);
    expect(refuse('watched.csv', bytes('\uFEFFDate,Name,Year,Letterboxd URI\r\n2024-01-01,Heat,1995,https://boxd.it/2b0k\r\n')))
      .toMatch(/^watched\.csv: is a Letterboxd CSV \(columns date, name, year, letterboxd uri\), not a TV Time file; expected/);
    expect(refuse('export.csv', bytes('id,name,shelves,platforms\n1,Portal,{},{}\n'))).toMatch(/^export\.csv: is a Grouvee collection CSV/);
    expect(refuse('notes.csv', bytes('a,b\n1,2\n'))).toMatch(/^notes\.csv: is not a TV Time file this importer reads: it has the columns a, b; expected TV Time export files/);
    expect(refuse('seen_episode.csv', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 0xff, 0xfe]))).toMatch(/^seen_episode\.csv: is not a text file/);
    // Inside a zip, an unknown table is left out, but a zip of nothing TV Time reads is refused whole.
    expect(failure(() => parseTvTimeFiles([{ name: 'other.zip/notes.csv', bytes: bytes('a,b\n1,2\n') }, { name: 'other.zip/x.json', bytes: json({ a: 1 }) }])).message)
      .toMatch(/^other\.zip: holds no TV Time file: found notes\.csv \(a, b\), x\.json \(JSON\); expected TV Time export files/);
    expect(failure(() => parseTvTimeFiles([])).message).toMatch(/^upload: holds no CSV file; expected/);
  });
});

describe('TV Time current data export (parser)', () => {
  const tvdbBase = 2_000_000;
  const fixture = currentExport(tvdbBase);
  const documents = parseTvTimeFiles(Object.entries(fixture.files).map(([name, content]) => ({ name, bytes: content })));

  it('reads series with imdb ids and uuids; stopped shows are not followed', () => {
    const series = byFile(documents, 'tvtime-series-2024-05-01.csv');
    expect(series.shows).toHaveLength(300);
    expect(series.shows[1]).toMatchObject({ ids: { tvdb: tvdbBase + 1, imdb: 'tt9000001' }, sourceId: fixture.shows[1]!.uuid, title: showName(1) });
    expect(series.shows.filter((show) => show.followed === false).map((show) => show.sourceId))
      .toEqual(fixture.shows.filter((show) => show.status === 'stopped').map((show) => show.uuid));
  });

  it('turns watched episode rows into history (rewatches as estimated extra entries) and counts the unwatched ones', () => {
    const episodes = byFile(documents, 'tvtime-series-episodes-2024-05-01.csv');
    const watched = fixture.episodes.filter((row) => row.is_watched === 'true');
    const rewatches = watched.reduce((sum, row) => sum + row.rewatch_count, 0);
    expect(historyOf(episodes)).toHaveLength(watched.length + rewatches);
    expect(historyOf(episodes).filter((entry) => entry.estimated)).toHaveLength(rewatches);
    expect(counted(episodes, /not watched/)).toBe(fixture.episodes.length - watched.length);
    // Every row: a history entry of its own, or counted as not watched.
    expect(historyOf(episodes).length - rewatches + counted(episodes, /not watched/)).toBe(fixture.episodes.length);
    const show = episodes.shows.find((candidate) => candidate.ids.tvdb === tvdbBase + 23)!;
    expect(show.title).toBe(showName(23));
    expect(show.episodes[0]).toMatchObject({ season: 1, number: 1, ids: { tvdb: 70_002_300 }, title: 'Episode, "0"' });
    expect(show.episodes[0]!.history.map((entry) => [entry.at.toISOString(), entry.estimated ?? false]))
      .toEqual([['2021-01-24T00:00:00.000Z', false], ['2021-01-24T00:00:01.000Z', true], ['2021-01-24T00:00:02.000Z', true]]);
    expect(show.episodes.find((episode) => episode.title === 'Episode, "22"')).toMatchObject({ season: 2, number: 11 });
  });

  it('keeps movies apart by id (two films called "Heat"), with imdb, tvdb, year and uuid', () => {
    const movies = byFile(documents, 'tvtime-movies-2024-05-01.csv');
    expect(movies.titles).toHaveLength(400);
    expect(movies.titles.filter((movie) => movie.title === 'Heat').map((movie) => [movie.ids, movie.year])).toEqual([
      [{ imdb: 'tt8000000' }, 1995], [{ tvdb: tvdbBase + 10_001, imdb: 'tt8000001' }, 1987],
    ]);
    const watched = fixture.movies.filter((movie) => movie.is_watched === 'true');
    expect(historyOf(movies)).toHaveLength(watched.length + watched.reduce((sum, movie) => sum + movie.rewatch_count, 0));
    const lists = byFile(documents, 'tvtime-lists-2024-05-01.csv');
    expect([lists.shows.length, lists.titles.length]).toEqual([30, 20]);
  });
});

describe('POST /api/import/tvtime', () => {
  it('imports an older account\'s export: 200 shows, stopped ones not followed with their watches kept, archived ones archived', async () => {
    const tvdbBase = unique() * 100;
    const fixture = olderExport(tvdbBase);
    const { account, status, json: answer } = await upload({ 'tvtime-gdpr.zip': zip(fixture.files) });
    expect(status).toBe(200);
    expect(answer.imported).toMatchObject({ shows: 200, episodes: 2000, history: 2000 });
    expect(answer.skipped).toEqual(expect.arrayContaining([
      { file: 'tvtime-gdpr.zip', item: 'tvtime-export/access_token.csv', reason: 'not read: not a file this source imports' },
      { file: 'tvtime-gdpr.zip', item: 'tvtime-export/auth-prod-login.csv', reason: 'not read: not a file this source imports' },
      { file: 'tvtime-gdpr.zip', item: 'tvtime-export/ip_address.csv', reason: 'not read: not a file this source imports' },
      { file: 'tvtime-gdpr.zip/tvtime-export/tracking-prod-records.csv', item: '300 rows', reason: expect.stringMatching(/^repeat a watch/) },
      { file: 'tvtime-gdpr.zip/tvtime-export/seen_episode.csv', item: '50 rows', reason: expect.stringMatching(/^repeat a watch/) },
    ]));
    const items = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, select: { followed: true, archived: true, show: { select: { tvdbId: true } } } });
    expect(items).toHaveLength(200);
    const stopped = items.filter((item) => !item.followed).map((item) => item.show!.tvdbId! - tvdbBase).sort((a, b) => a - b);
    expect(stopped).toEqual(Array.from({ length: 200 }, (_, index) => index).filter((index) => index % 10 === 3));
    expect(items.filter((item) => item.archived)).toHaveLength(fixture.counts.archived);
    const stoppedWatches = await db().watchEvent.count({ where: { accountId: account.id, episode: { show: { tvdbId: { in: stopped.map((index) => tvdbBase + index) } } } } });
    expect(stoppedWatches).toBe(fixture.counts.stopped * 10);
    expect(await db().show.count({ where: { title: { contains: 'Untitled' } } })).toBe(0);
  });

  it('imports a current data export of thousands of rows; again, it adds nothing', async () => {
    const tvdbBase = unique() * 100;
    const fixture = currentExport(tvdbBase);
    const { account, status, json: answer } = await upload(fixture.files);
    expect(status).toBe(200);
    const watched = fixture.episodes.filter((row) => row.is_watched === 'true');
    const distinctEpisodes = watched.length;
    const entries = watched.length + watched.reduce((sum, row) => sum + row.rewatch_count, 0);
    expect(answer.imported).toMatchObject({ shows: 300, episodes: distinctEpisodes });
    expect(answer.imported.history).toBeGreaterThanOrEqual(entries);
    expect(answer.skipped).toContainEqual({ file: 'tvtime-series-episodes-2024-05-01.csv', item: `${fixture.episodes.length - watched.length} episode rows`, reason: 'not watched (is_watched is false): nothing to import' });
    // Movies: imported by an id a catalog resolves, or listed unmatched, one entry per film.
    const unmatchedMovies = answer.unmatched.filter((entry: { kind: string; file: string }) => entry.kind === 'movie' && entry.file === 'tvtime-movies-2024-05-01.csv');
    expect(answer.imported.movies + unmatchedMovies.length).toBe(400);
    const items = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, select: { followed: true, show: { select: { tvdbId: true } } } });
    expect(items.filter((item) => !item.followed).map((item) => item.show!.tvdbId! - tvdbBase).sort((a, b) => a - b))
      .toEqual(fixture.shows.flatMap((show, index) => (show.status === 'stopped' ? [index] : [])));
    expect(await db().watchEvent.count({ where: { accountId: account.id, episodeId: { not: null } } })).toBe(entries);
    const again = await uploadTo(app, '/api/import/tvtime', account.token, fixture.files);
    expect(again.json.imported.history).toBe(0);
  });

  it('hostile rows: an episode id past 32 bits is skipped with its line, a watch before 1900 or in the future refuses the file', async () => {
    const rows = [
      { episode_id: 99_999_999_999, created_at: '2017-05-02 21:24:51 +0000 UTC' },
      { episode_id: 5, created_at: '2017-05-02 21:24:51 +0000 UTC' },
    ];
    const [document] = parseTvTimeFiles([{ name: 'seen_episode.csv', bytes: csvFile(headers.seenOld, rows) }]);
    expect(document!.skipped).toEqual([{ item: 'line 2: a watch', reason: 'names neither the show with season and episode numbers nor a TheTVDB episode id' }]);
    for (const at of ['1850-01-01 00:00:00 +0000 UTC', '2999-01-01 00:00:00 +0000 UTC']) {
      const tracking = csvFile(headers.trackingV2, [{ s_id: unique(), series_name: 'Fine', episode_number: 1, season_number: 1, created_at: '2020-01-01 00:00:00' }]);
      const { account, status, json: answer } = await upload({ 'tracking-prod-records-v2.csv': tracking, 'seen_episode.csv': csvFile(headers.seenOld, [{ episode_id: 5, created_at: at }]) });
      expect([status, answer.error]).toEqual([400, expect.stringMatching(new RegExp(`^seen_episode\\.csv: episode TheTVDB 5: a watch at ${at.slice(0, 4)}-01-01T00:00:00\\.000Z is outside 1900-01-01`))]);
      expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    }
  });

  it('400 naming another service\'s file or an upload with no TV Time file; nothing is written', async () => {
    const tracking = csvFile(headers.trackingV2, [{ s_id: unique(), series_name: 'Kept Out', episode_number: 1, season_number: 1, created_at: goTime(new Date('2020-01-01T00:00:00Z')) }]);
    const cases: [Record<string, Uint8Array>, RegExp][] = [
      [{ 'tracking-prod-records-v2.csv': tracking, 'watched.csv': bytes('Date,Name,Year,Letterboxd URI\n2024-01-01,Heat,1995,https://boxd.it/2b0k\n') }, /^watched\.csv: is a Letterboxd CSV/],
      [{ 'SimklBackup.json': json({ shows: [], movies: [], anime: [] }) }, /^SimklBackup\.json: is a JSON object with "shows", "movies" or "anime", not a TV Time CSV file/],
      [{ 'grouvee.csv': bytes('id,name,shelves,platforms,giantbomb_id\n1,Portal,{},{},21170\n') }, /^grouvee\.csv: is a Grouvee collection CSV/],
      [{ 'random.csv': bytes('foo,bar\n1,2\n') }, /^random\.csv: is not a TV Time file this importer reads: it has the columns foo, bar/],
      [{ 'trakt.zip': zip({ 'trakt/watched-history-1.json': json([{ watched_at: '2025-01-01T00:00:00.000Z', action: 'watch', type: 'episode' }]), 'trakt/readme.txt': bytes('hi') }) }, /^trakt\.zip\/trakt\/watched-history-1\.json: is a Trakt JSON file/],
      [{ 'photos.zip': zip({ 'a/table.csv': bytes('x,y\n1,2\n'), 'a/readme.txt': bytes('hi') }) }, /^photos\.zip: holds no TV Time file: found table\.csv \(x, y\); expected/],
      [{ 'notes.zip': zip({ 'readme.txt': bytes('hi'), 'access_token.csv': bytes('token\nsecret\n') }) }, /^upload: holds no CSV file; expected TV Time export files/],
    ];
    for (const [files, message] of cases) {
      const { account, status, json: answer } = await upload(files);
      expect([status, answer.error]).toEqual([400, expect.stringMatching(message)]);
      expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    }
  });
});
