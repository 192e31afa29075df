import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { multipart, upload } from '../support/upload.ts';
import { json, traktEpisodePlay, traktMoviePlay, traktShow, zip } from './fixtures.ts';

const { app } = await useTestApp();

/** Everything an import can change for `accountId`, and the catalog rows of the upload's own ids. */
async function state(accountId: number, showTmdb: number[]) {
  const account = await db().account.findUniqueOrThrow({ where: { id: accountId } });
  return {
    feedVersion: account.feedVersion,
    library: await db().libraryItem.count({ where: { accountId } }),
    states: await db().watchState.count({ where: { accountId } }),
    history: await db().watchEvent.count({ where: { accountId } }),
    catalogShows: await db().show.count({ where: { tmdbId: { in: showTmdb } } }),
    catalogVersion: (await db().serverState.findUnique({ where: { id: 1 } }))?.catalogVersion ?? 0,
  };
}

/** A two-file Trakt export: 40 shows × 25 plays, 200 movie plays (one film without ids), a rewatch. */
function traktExport() {
  const shows = Array.from({ length: 40 }, () => unique());
  const plays = shows.flatMap((tmdb, show) =>
    Array.from({ length: 25 }, (_, index) => traktEpisodePlay(show * 100 + index, new Date(Date.UTC(2023, 0, 1 + index, show)).toISOString(), traktShow(`Dry Show ${tmdb}`, tmdb, null), 1, index + 1)),
  );
  const movies = Array.from({ length: 200 }, (_, index) => traktMoviePlay(10_000 + index, new Date(Date.UTC(2022, 0, 1, 0, index)).toISOString(), index === 0 ? 'No ids film' : `Dry Film ${index}`, index === 0 ? null : unique()));
  return { shows, files: { 'trakt.zip': zip({ 'watched-history-1.json': json(plays), 'watched-history-2.json': json(movies) }) } };
}

describe('import dry run', () => {
  it('?dryRun=true answers the report the real import then gives, and writes nothing', async () => {
    const account = await makeAccount();
    const { shows, files } = traktExport();
    const before = await state(account.id, shows);
    const dry = await upload(app, '/api/import/trakt?dryRun=true', account.token, files);
    expect(dry.status).toBe(200);
    expect(dry.json.dryRun).toBe(true);
    expect(dry.json.imported).toEqual({ shows: 40, episodes: 1_000, movies: 199, games: 0, history: 1_199 });
    expect(dry.json.unmatched).toEqual([{ file: 'trakt.zip/watched-history-2.json', kind: 'movie', title: 'No ids film', ids: {} }]);
    expect(await state(account.id, shows)).toEqual(before);

    const real = await upload(app, '/api/import/trakt', account.token, files);
    expect(real.status).toBe(200);
    expect(real.json.dryRun).toBeUndefined();
    const { dryRun: _dry, ...report } = dry.json;
    expect(real.json).toEqual(report);
    expect(await state(account.id, shows)).toMatchObject({ library: 239, history: 1_199, catalogShows: 40 });

    // A dry run of the same files now says nothing would be added.
    const again = await upload(app, '/api/import/trakt?dryRun=true', account.token, files);
    expect(again.json.imported.history).toBe(0);
    expect(await db().watchEvent.count({ where: { accountId: account.id } })).toBe(1_199);
  });

  it('refuses a dryRun that is not true or false, or given twice, before reading the upload', async () => {
    const account = await makeAccount();
    const { shows, files } = traktExport();
    for (const query of ['dryRun=yes', 'dryRun=1', 'dryRun=', 'dryRun=true&dryRun=false']) {
      const answer = await upload(app, `/api/import/trakt?${query}`, account.token, files);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error, query).toMatch(/dryRun/);
    }
    expect(await state(account.id, shows)).toMatchObject({ library: 0, history: 0, catalogShows: 0 });
  });

  it('GraphQL importLibrary(dryRun: true) reports and writes nothing', async () => {
    const account = await makeAccount();
    const { shows, files } = traktExport();
    const query = `mutation Import($files: [File!]!) { importLibrary(source: TRAKT, files: $files, dryRun: true) {
      __typename ... on MutationImportLibrarySuccess { data { ok dryRun imported { shows movies history } } } } }`;
    const form = new FormData();
    form.append('operations', JSON.stringify({ query, variables: { files: [null] } }));
    form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
    form.append('0', new File([files['trakt.zip'] as BlobPart], 'trakt.zip'));
    const { body, contentType } = await multipart(form);
    const response = await app.fetch(new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': contentType }, body: body as BodyInit }));
    const answer = (await response.json()) as any;
    expect(answer.data.importLibrary.data).toEqual({ ok: true, dryRun: true, imported: { shows: 40, movies: 199, history: 1_199 } });
    expect(await state(account.id, shows)).toMatchObject({ library: 0, history: 0, catalogShows: 0 });
  });
});
