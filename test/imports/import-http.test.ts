import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { multipart, upload as uploadTo } from '../support/upload.ts';
import { bytes, deflatedZip, grouveeHeader, grouveeRow, json, traktEpisodePlay, traktMoviePlay, traktShow, tvTimeTrackingV2, tvTimeWatch, zip } from './fixtures.ts';

const { app } = await useTestApp({ AIRDATE_MAX_UPLOAD_MB: '1' });

/** POSTs `files` as multipart/form-data file parts to this file's app. */
const upload = (path: string, token: string, files: Record<string, Uint8Array>, options: { queryToken?: boolean } = {}) => uploadTo(app, path, token, files, options);

const libraryRows = (accountId: number) => db().libraryItem.count({ where: { accountId } });

function traktExport() {
  const tmdb = unique();
  const show = traktShow(`Show ${tmdb}`, tmdb, unique());
  return zip({
    'trakt-export/watched-history-1.json': json([traktEpisodePlay(2, '2025-03-02T21:00:00.000Z', show, 1, 2), traktEpisodePlay(1, '2025-03-01T21:00:00.000Z', show, 1, 1)]),
    'trakt-export/watched-history-2.json': json([traktEpisodePlay(0, '2025-02-01T21:00:00.000Z', show, 0, 1), traktMoviePlay(9, '2025-01-01T19:00:00.000Z', `Film ${tmdb}`, unique())]),
    'trakt-export/user-profile.json': json({ username: 'fixture' }),
    'trakt-export/readme.txt': bytes('hello'),
  });
}

describe('POST /api/import/{source}', () => {
  it('imports a Trakt export zip with numbered history files; importing it again adds nothing', async () => {
    const account = await makeAccount();
    const file = traktExport();
    const first = await upload('/api/import/trakt', account.token, { 'trakt-export.zip': file });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, imported: { shows: 1, episodes: 3, movies: 1, games: 0, history: 4 }, unmatched: [] });
    expect(Object.keys(first.json)).toEqual(['ok', 'imported', 'skipped', 'notes', 'unmatched']);
    expect(Object.keys(first.json.imported).sort()).toEqual(['episodes', 'games', 'history', 'movies', 'shows']);
    expect(first.json.skipped).toEqual(expect.arrayContaining([
      expect.objectContaining({ item: 'trakt-export/readme.txt' }),
      expect.objectContaining({ file: 'trakt-export.zip/trakt-export/user-profile.json' }),
    ]));
    const second = await upload('/api/import/trakt', account.token, { 'again.zip': file });
    expect(second.json.imported).toEqual({ shows: 1, episodes: 3, movies: 1, games: 0, history: 0 });
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(4);
  });

  it('400 naming a malformed file, and nothing from any file of the request is written', async () => {
    const account = await makeAccount();
    const response = await upload('/api/import/trakt', account.token, { 'good.zip': traktExport(), 'watched-history-3.json': bytes('[{"watched_at": "2025-01-01T00:00:00Z", "type": "episode"}]') });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: 'watched-history-3.json: entry 1: show is missing' });
    expect(await libraryRows(account.id)).toBe(0);
  });

  it('validates every zip entry before writing: a bad entry after good ones (in a later file) writes nothing', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const show = traktShow(`Show ${tmdb}`, tmdb, unique());
    const good = (id: number) => traktEpisodePlay(id, `2025-03-0${id}T21:00:00.000Z`, show, 1, id);
    const file = zip({
      'trakt-export/watched-history-1.json': json([good(1), good(2)]),
      'trakt-export/watched-history-2.json': json([good(3)]),
      // Entries 1 and 2 are fine; entry 3 is not.
      'trakt-export/watched-history-3.json': json([good(4), good(5), { ...good(6), watched_at: 'yesterday' }]),
    });
    const response = await upload('/api/import/trakt', account.token, { 'trakt-export.zip': file, 'later.json': json([good(7)]) });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: 'trakt-export.zip/trakt-export/watched-history-3.json: entry 3: watched_at is not an ISO 8601 timestamp' });
    expect(await libraryRows(account.id)).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(0);
    expect(await db().show.count({ where: { tmdbId: tmdb } })).toBe(0);
  });

  it('applies every file of a many-file upload once, in order', async () => {
    const account = await makeAccount();
    const tmdb = unique();
    const show = traktShow(`Show ${tmdb}`, tmdb, unique());
    // Five files of the same show: a rewatch of episode 1 in the last file, an unknown entry kind in the first.
    const files: Record<string, Uint8Array> = {};
    for (let part = 1; part <= 5; part += 1) files[`trakt-export/watched-history-${part}.json`] = json([traktEpisodePlay(part, `2025-04-0${part}T21:00:00.000Z`, show, 1, part === 5 ? 1 : part)]);
    files['trakt-export/ratings-episodes.json'] = json([{ rated_at: '2025-04-01T00:00:00.000Z', rating: 8, type: 'season', show }]);
    const response = await upload('/api/import/trakt', account.token, { 'trakt-export.zip': zip(files) });
    expect(response.status).toBe(200);
    expect(response.json.imported).toEqual({ shows: 1, episodes: 4, movies: 0, games: 0, history: 5 });
    expect(response.json.skipped).toEqual([{ file: 'trakt-export.zip/trakt-export/ratings-episodes.json', item: 'ratings', reason: 'ratings are not stored; the rated titles are followed' }]);
    const history = await db().watchEvent.findMany({ where: { accountId: account.id }, orderBy: { at: 'asc' }, select: { at: true, episode: { select: { number: true } } } });
    expect(history.map((event) => [event.at.toISOString().slice(0, 10), event.episode!.number])).toEqual([
      ['2025-04-01', 1], ['2025-04-02', 2], ['2025-04-03', 3], ['2025-04-04', 4], ['2025-04-05', 1],
    ]);
  });

  it('imports a TV Time zip without opening its token files, and a Grouvee CSV', async () => {
    const account = await makeAccount();
    const tvdb = unique();
    const tvtime = zip({
      'tracking-prod-records-v2.csv': tvTimeTrackingV2([tvTimeWatch(tvdb, 'Fixture Show', 1, 1, '2022-05-01 20:11:05')]),
      'access_token.csv': bytes('token\nsecret\n'),
    });
    const result = await upload('/api/import/tvtime', account.token, { 'tvtime.zip': tvtime });
    expect(result.json).toMatchObject({ ok: true, imported: { shows: 1, episodes: 1, history: 1 } });
    expect(result.json.skipped).toEqual([{ file: 'tvtime.zip', item: 'access_token.csv', reason: 'not read: not a file this source imports' }]);
    const games = await upload('/api/import/grouvee', account.token, { 'grouvee.csv': bytes([grouveeHeader, grouveeRow('Portal', unique(), 'Played', '2021-04-03'), grouveeRow('Old', '', 'Backlog')].join('\r\n')) });
    expect(games.json).toMatchObject({ ok: true, imported: { games: 1, history: 1 }, unmatched: [{ file: 'grouvee.csv', kind: 'game', title: 'Old' }] });
  });

  it('413 for a zip with too many entries, a huge highly compressible entry (honest or lying header), or zips nested too deep', async () => {
    const account = await makeAccount();
    const many = Object.fromEntries(Array.from({ length: 10_001 }, (_, index) => [`f${index}.json`, new Uint8Array(0)]));
    const zeros = new Uint8Array(300 * 1024 * 1024);
    const bomb = deflatedZip('watched-history.json', zeros);
    const liar = deflatedZip('watched-history.json', zeros, 1000);
    const nested = zip({ 'a.zip': zip({ 'b.zip': zip({ 'watched-history.json': json([]) }) }) });
    const errors: string[] = [];
    for (const file of [zip(many), bomb, liar, nested]) {
      const response = await upload('/api/import/trakt', account.token, { 'export.zip': file });
      expect(response.status).toBe(413);
      expect(Object.keys(response.json)).toEqual(['error']);
      errors.push(response.json.error);
    }
    expect(errors).toEqual([
      'export.zip: the zip has 10001 entries; at most 10000 are read',
      'export.zip: the zip contents are larger than 256 MiB uncompressed',
      'export.zip/watched-history.json inflates to more than the 1000 bytes its header declares',
      'export.zip/a.zip/b.zip: zips nested more than 2 deep are not read',
    ]);
    expect(await libraryRows(account.id)).toBe(0);
    // Deflating the 300 MiB bomb in the test takes most of it: 41 s at a load average of 40 on 2 cores.
  }, 90_000);

  it('routes the airdate source to its parser: a file that is not an Airdate export is a 400 naming it', async () => {
    const account = await makeAccount();
    const response = await upload('/api/import/airdate', account.token, { 'airdate-export-2026-11-21.json': json({ format: 'something-else' }) });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatch(/^airdate-export-2026-11-21\.json: /);
    expect(await libraryRows(account.id)).toBe(0);
  });

  it('413 over AIRDATE_MAX_UPLOAD_MB, 415 without multipart, 401 for ?token=, 404 for an unknown source', async () => {
    const account = await makeAccount();
    expect((await upload('/api/import/trakt', account.token, { 'big.json': new Uint8Array(1024 * 1024 + 1) })).status).toBe(413);
    const plain = await app.fetch(new Request('http://airdate.test/api/import/trakt', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' }, body: '[]' }));
    expect([plain.status, await plain.json()]).toEqual([415, { error: 'content type must be multipart/form-data with the export files as file parts' }]);
    const query = await upload('/api/import/trakt', account.token, { 'a.json': json([]) }, { queryToken: true });
    expect(query.status).toBe(401);
    expect(query.json.error).toMatch(/Authorization: Bearer/);
    const unknown = await upload('/api/import/backloggd', account.token, { 'a.json': json([]) });
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.json)).toEqual(['error']);
  });
});

describe('reading the upload', () => {
  const raw = (token: string, body: BodyInit | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    app.fetch(new Request('http://airdate.test/api/import/trakt', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=xyz', ...headers }, body: body as BodyInit, duplex: 'half' } as RequestInit));
  const part = (content: string) => `--xyz\r\nContent-Disposition: form-data; name="f"; filename="watched-history-1.json"\r\nContent-Type: application/json\r\n\r\n${content}\r\n--xyz--\r\n`;
  /** A body streamed in 64 KiB chunks with no length known up front, as a chunked request is. */
  const streamed = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close();
        controller.enqueue(bytes.subarray(offset, (offset += 65_536)));
      },
    });
  };

  it('streams a body of unknown length into the parser and cuts it off past the limit with 413', async () => {
    const account = await makeAccount();
    const ok = await raw(account.token, streamed(part('[]')));
    expect([ok.status, await ok.json()]).toEqual([200, { ok: true, imported: { shows: 0, episodes: 0, movies: 0, games: 0, history: 0 }, skipped: [], notes: [], unmatched: [] }]);
    const big = await raw(account.token, streamed(part(`[${' '.repeat(1024 * 1024)}]`)));
    expect([big.status, await big.json()]).toEqual([413, { error: 'upload is larger than 1 MB' }]);
  });

  it('413 for a declared length over the limit before reading, 400 for a body that is not multipart', async () => {
    const account = await makeAccount();
    const declared = await raw(account.token, streamed(part('[]')), { 'content-length': String(1024 * 1024 + 1) });
    expect(declared.status).toBe(413);
    const broken = await raw(account.token, 'not a multipart body at all');
    expect([broken.status, await broken.json()]).toEqual([400, { error: 'the multipart/form-data body is malformed' }]);
  });
});

describe('GraphQL importLibrary', () => {
  it('takes files through the GraphQL multipart request (under the upload limit) and answers errors as data', async () => {
    const account = await makeAccount();
    const query = `mutation Import($files: [File!]!) { importLibrary(source: SIMKL, files: $files) {
      __typename ... on MutationImportLibrarySuccess { data { ok imported { shows movies history } unmatched { kind title } } }
      ... on ImportFileError { message file problem } } }`;
    const post = async (name: string, content: Uint8Array) => {
      const form = new FormData();
      form.append('operations', JSON.stringify({ query, variables: { files: [null] } }));
      form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
      form.append('0', new File([content as BlobPart], name));
      const { body, contentType } = await multipart(form);
      return app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': contentType }, body: body as BodyInit }));
    };
    const send = async (name: string, content: Uint8Array) => (await (await post(name, content)).json()) as any;
    const backup = { movies: [{ status: 'completed', last_watched_at: '2023-02-01T00:00:00Z', movie: { title: 'Fixture Film', ids: { simkl: 1, tmdb: String(unique()) } } }], anime: [{ status: 'watching', show: { title: 'Anime', ids: { mal: 4 } } }] };
    const ok = await send('SimklBackup.json', json(backup));
    expect(ok.data.importLibrary).toEqual({ __typename: 'MutationImportLibrarySuccess', data: { ok: true, imported: { shows: 0, movies: 1, history: 1 }, unmatched: [{ kind: 'SHOW', title: 'Anime' }] } });
    expect((await post('big.json', new Uint8Array(1024 * 1024 + 1))).status).toBe(413);
    const bad = await send('broken.json', bytes('{"shows": 3}'));
    expect(bad.data.importLibrary).toEqual({ __typename: 'ImportFileError', message: 'broken.json: "shows" is not a list', file: 'broken.json', problem: '"shows" is not a list' });
  });
});
