import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { parseTvTimeFiles } from '../../src/imports/sources/parse-tvtime.ts';
import { readTvTimeTimestamp } from '../../src/imports/sources/tvtime-timestamps.ts';
import { wallClockToInstant } from '../../src/imports/sources/zoned-time.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { multipart, upload } from '../support/upload.ts';
import { zip } from './fixtures.ts';
import { csvFile, headers, unixTime, unixTimesExport } from './tvtime-fixtures.ts';

/**
 * Issue 26, items 1 and 2: a TV Time GDPR export of 2024 whose tracking-prod-records.csv writes
 * some times as Unix seconds beside plain date-times that are the account holder's local time
 * (UTC−3). The whole upload used to be refused; now Unix times are read as the instants they are,
 * plain times in the zone chosen at import (by default the account's), and the report says which.
 */
const { app } = await useTestApp();

const zone = 'America/Sao_Paulo';

/** A fresh number for each fixture of this file: TheTVDB ids `base * 100 + i` stay within 32 bits. */
let fixtures = 0;
const freshBase = () => (fixtures += 1) * 1_000 + 7_000;

/** The catalog's films of the fixture (TV Time's v1 rows know a film by title and year only). */
async function storeFilms(movies: { title: string; year: number }[]) {
  await db().movie.createMany({ data: movies.map((movie) => ({ tmdbId: unique(), title: movie.title, releaseDate: `${movie.year}-06-01` })) });
}

/** Every history entry of the account, by time. */
const historyOf = async (accountId: number) => (await db().watchEvent.findMany({ where: { accountId }, orderBy: { at: 'asc' }, select: { at: true, episodeId: true, movieId: true } }));

describe('TV Time times (parser)', () => {
  it('reads Unix seconds (and milliseconds) as instants, plain times as wall-clock times of the zone, across summer-time changes', () => {
    const read = (value: string, timeZone?: string) => {
      const found = readTvTimeTimestamp(value, timeZone);
      return found && [found.at.toISOString(), found.form];
    };
    expect(read('1634752795')).toEqual(['2021-10-20T17:59:55.000Z', 'unix']);
    expect(read('1634752795', zone)).toEqual(['2021-10-20T17:59:55.000Z', 'unix']);
    expect(read('1634752795.25')).toEqual(['2021-10-20T17:59:55.250Z', 'unix']);
    expect(read('1634752795123')).toEqual(['2021-10-20T17:59:55.123Z', 'unix']);
    expect(read('2021-10-20 14:59:55', zone)).toEqual(['2021-10-20T17:59:55.000Z', 'plain']);
    expect(read('2021-10-20 14:59:55')).toEqual(['2021-10-20T14:59:55.000Z', 'plain']);
    expect(read('2021-10-20 14:59:55 +0000 UTC', zone)).toEqual(['2021-10-20T14:59:55.000Z', 'stated']);
    expect(read('2021-10-20T14:59:55Z', zone)).toEqual(['2021-10-20T14:59:55.000Z', 'stated']);
    for (const bad of ['12345678', '16347527951', '1.6e+09', '-1634752795', '1634752795 UTC']) expect(readTvTimeTimestamp(bad), bad).toBeUndefined();
    const berlin = (wall: number) => new Date(wallClockToInstant(wall, 'Europe/Berlin')).toISOString();
    // 02:30 does not exist on the day the clocks go forward: read with the winter offset, an hour on.
    expect(berlin(Date.UTC(2021, 2, 28, 2, 30))).toBe('2021-03-28T01:30:00.000Z');
    // 02:30 happens twice the day they go back: the first one.
    expect(berlin(Date.UTC(2021, 9, 31, 2, 30))).toBe('2021-10-31T00:30:00.000Z');
    expect(berlin(Date.UTC(2021, 6, 1, 12))).toBe('2021-07-01T10:00:00.000Z');
    expect(new Date(wallClockToInstant(Date.UTC(2021, 0, 1, 12), 'Asia/Kathmandu')).toISOString()).toBe('2021-01-01T06:15:00.000Z');
    // Lord Howe goes back half an hour at 02:00: 01:45 happens twice (the first, at +11:00), 02:15 once (+10:30).
    expect(new Date(wallClockToInstant(Date.UTC(2021, 3, 4, 1, 45), 'Australia/Lord_Howe')).toISOString()).toBe('2021-04-03T14:45:00.000Z');
    expect(new Date(wallClockToInstant(Date.UTC(2021, 3, 4, 2, 15), 'Australia/Lord_Howe')).toISOString()).toBe('2021-04-03T15:45:00.000Z');
  });

  it('accounts for every row of the v1 file; with the right zone its plain times and the v2 file\'s repeat the Unix ones exactly', () => {
    const fixture = unixTimesExport(1_000, 1);
    const files = Object.entries(fixture.files).map(([name, bytes]) => ({ name: `export.zip/${name}`, bytes }));
    const [v1, v2] = parseTvTimeFiles(files, { timeZone: zone, timeZoneChosen: true });
    const entries = (document: typeof v1) => document!.shows.reduce((sum, show) => sum + show.episodes.reduce((inner, episode) => inner + episode.history.length, 0), 0) + document!.titles.reduce((sum, movie) => sum + movie.history.length, 0);
    const repeats = (document: typeof v1) => Number(document!.skipped.find((skip) => /^repeat a watch/.test(skip.reason))?.item.split(' ')[0] ?? 0);
    // v1: one entry per watch row (1 100 episodes, 228 films) and the 66 follow rows' shows; v2 repeats 800 of them.
    expect(entries(v1)).toBe(fixture.counts.episodes + fixture.counts.movies);
    expect(v1!.shows).toHaveLength(fixture.counts.shows);
    expect(entries(v1) + fixture.counts.shows).toBe(fixture.counts.v1Rows);
    expect([entries(v2), repeats(v2)]).toEqual([0, fixture.counts.v2Rows]);
    expect(v1!.notes).toEqual([
      `${fixture.counts.episodes + fixture.counts.movies - fixture.unixRows} times without a time zone read as local times in ${zone} (the time zone chosen for this import)`,
      `${fixture.unixRows} Unix times (seconds since 1970, UTC) read as the instants they are`,
    ]);
    // Read as UTC, the plain times are three hours off: the v2 file's watches no longer repeat v1's.
    const [, asUtc] = parseTvTimeFiles(files, { timeZone: 'UTC', timeZoneChosen: true });
    expect(repeats(asUtc)).toBeLessThan(fixture.counts.v2Rows);
  });
});

describe('POST /api/import/tvtime with Unix times and local plain times', () => {
  it('imports all 66 shows, 1 100 episodes and 228 films in the account\'s zone, each watch at its real instant; the dry run says the same; again adds nothing', async () => {
    const base = freshBase();
    const fixture = unixTimesExport(base * 100, base);
    await storeFilms(fixture.movies);
    const account = await makeAccount({ timezone: zone });
    const archive = { 'tvtime-gdpr-2024.zip': zip(fixture.files) };
    const dry = await upload(app, '/api/import/tvtime?dryRun=true', account.token, archive);
    expect(dry.status, JSON.stringify(dry.json).slice(0, 300)).toBe(200);
    const real = await upload(app, '/api/import/tvtime', account.token, archive);
    expect(real.status).toBe(200);
    const { dryRun: _dry, ...report } = dry.json;
    expect(real.json).toEqual(report);
    expect(real.json.imported).toEqual({ shows: 66, episodes: 1_100, movies: 228, games: 0, history: 1_328 });
    expect(real.json.unmatched).toEqual([]);
    expect(real.json.notes).toEqual([
      { file: 'tvtime-gdpr-2024.zip/tvtime-2024/tracking-prod-records.csv', note: expect.stringMatching(new RegExp(`^\\d+ times without a time zone read as local times in ${zone} \\(the account's time zone; another can be chosen at import\\)$`)) },
      { file: 'tvtime-gdpr-2024.zip/tvtime-2024/tracking-prod-records.csv', note: `${fixture.unixRows} Unix times (seconds since 1970, UTC) read as the instants they are` },
      { file: 'tvtime-gdpr-2024.zip/tvtime-2024/tracking-prod-records-v2.csv', note: expect.stringMatching(new RegExp(`^800 times without a time zone read as local times in ${zone}`)) },
    ]);
    expect(real.json.skipped).toContainEqual({ file: 'tvtime-gdpr-2024.zip/tvtime-2024/tracking-prod-records-v2.csv', item: '800 rows', reason: expect.stringMatching(/^repeat a watch/) });
    // Every watch at the instant the file means, whichever way its row wrote it.
    const history = await historyOf(account.id);
    expect(history.map((entry) => entry.at.toISOString()).sort()).toEqual([...fixture.episodes.map((episode) => episode.at), ...fixture.movies.map((movie) => movie.at)].map((at) => at.toISOString()).sort());
    const dunes = await db().movie.findMany({ where: { title: `Dune ${base}` }, select: { id: true, releaseDate: true } });
    expect(history.filter((entry) => dunes.some((dune) => dune.id === entry.movieId))).toHaveLength(2);
    const again = await upload(app, '/api/import/tvtime', account.token, archive);
    expect(again.json.imported.history).toBe(0);
  });

  it('reads plain times in the zone chosen at import (REST ?timeZone= and GraphQL timeZone), and says so', async () => {
    const base = freshBase();
    const fixture = unixTimesExport(base * 100, base);
    await storeFilms(fixture.movies);
    const account = await makeAccount({ timezone: 'UTC' });
    const answer = await upload(app, `/api/import/tvtime?timeZone=${encodeURIComponent('america/sao_paulo')}`, account.token, fixture.files);
    expect(answer.status).toBe(200);
    expect(answer.json.notes[0].note).toMatch(new RegExp(`read as local times in ${zone} \\(the time zone chosen for this import\\)$`));
    expect(answer.json.imported.history).toBe(1_328);
    // As a catalog's answer would, the shows the file created become shared: the next accounts import into them.
    await db().show.updateMany({ where: { ownerAccountId: account.id }, data: { ownerAccountId: null } });

    // The account's zone (UTC) instead: plain times land three hours early, beside the Unix ones.
    const other = await makeAccount({ timezone: 'UTC' });
    const utc = await upload(app, '/api/import/tvtime', other.token, fixture.files);
    expect(utc.json.notes[0].note).toMatch(/read as local times in UTC \(the account's time zone; another can be chosen at import\)$/);
    const first = (await historyOf(other.id)).find((entry) => entry.at.getTime() === fixture.episodes[1]!.at.getTime() - 3 * 3_600_000);
    expect(first).toBeDefined();
    expect(utc.json.imported.history).toBeGreaterThan(1_328);

    const third = await makeAccount({ timezone: 'UTC' });
    const tracking = csvFile(headers.trackingV2, [{ s_id: base * 100, series_name: 'One', episode_number: 1, season_number: 1, created_at: '2021-10-20 14:59:55' }]);
    const { body, contentType } = await multipart(graphqlForm(tracking));
    const response = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${third.token}`, 'content-type': contentType }, body: body as BodyInit }));
    const data = (await response.json()) as any;
    expect(data.data.importLibrary.data.notes).toEqual([{ file: 'tracking-prod-records-v2.csv', note: `1 time without a time zone read as local times in ${zone} (the time zone chosen for this import)` }]);
    expect((await historyOf(third.id)).map((entry) => entry.at.toISOString())).toEqual(['2021-10-20T17:59:55.000Z']);
  });

  it('400 for an unknown zone or one given twice, before the upload is read; GraphQL answers it as data; nothing is written', async () => {
    const account = await makeAccount();
    const fixture = unixTimesExport(freshBase() * 100, freshBase());
    for (const [query, message] of [
      ['timeZone=Mars%2FOlympus', 'unknown time zone "Mars/Olympus": timeZone must be an IANA time zone such as America/Sao_Paulo'],
      ['timeZone=%2B05%3A00', 'unknown time zone "+05:00": timeZone must be an IANA time zone such as America/Sao_Paulo'],
      [`timeZone=${'x'.repeat(5_000)}`, expect.stringMatching(/^unknown time zone "x{63}…": timeZone must be/)],
      ['timeZone=UTC&timeZone=UTC', 'timeZone must be given once'],
    ] as const) {
      const answer = await upload(app, `/api/import/tvtime?${query}`, account.token, fixture.files);
      expect([answer.status, answer.json.error]).toEqual([400, message]);
    }
    const tracking = csvFile(headers.trackingV2, [{ s_id: 77, series_name: 'One', episode_number: 1, season_number: 1, created_at: unixTime(new Date('2021-10-20T17:59:55Z')) }]);
    const { body, contentType } = await multipart(graphqlForm(tracking, 'Atlantis/Lost'));
    const response = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': contentType }, body: body as BodyInit }));
    expect(((await response.json()) as any).data.importLibrary).toEqual({ __typename: 'InputError', message: 'unknown time zone "Atlantis/Lost": timeZone must be an IANA time zone such as America/Sao_Paulo' });
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('writes nothing of the export when one of its files has a time in no form (the whole request, 400 naming file and line)', async () => {
    const account = await makeAccount({ timezone: zone });
    const fixture = unixTimesExport(freshBase() * 100, freshBase());
    const broken = csvFile(headers.seenNamed, [{ episode_id: 1, tv_show_name: 'One', episode_season_number: 1, episode_number: 1, created_at: '20/10/2021 14:59' }]);
    const answer = await upload(app, '/api/import/tvtime', account.token, { 'export.zip': zip({ ...fixture.files, 'tvtime-2024/seen_episode.csv': broken }) });
    expect([answer.status, answer.json.error]).toEqual([400, 'export.zip/tvtime-2024/seen_episode.csv: line 2: created_at "20/10/2021 14:59" is not a date and time']);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
  });
});

/** A GraphQL multipart request importing `file` as TV Time's, with `timeZone` (default America/Sao_Paulo). */
function graphqlForm(file: Uint8Array, timeZone = zone): FormData {
  const form = new FormData();
  const query = 'mutation($f:[File!]!,$z:String){importLibrary(source:TVTIME,files:$f,timeZone:$z){__typename ... on Error{message} ... on MutationImportLibrarySuccess{data{notes{file note}}}}}';
  form.append('operations', JSON.stringify({ query, variables: { f: [null], z: timeZone } }));
  form.append('map', JSON.stringify({ 0: ['variables.f.0'] }));
  form.append('0', new File([file as BlobPart], 'tracking-prod-records-v2.csv'));
  return form;
}
