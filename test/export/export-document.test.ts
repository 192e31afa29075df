import { describe, expect, it } from 'vitest';
import { setWatched } from '../../src/library/library.ts';
import { collectExport, loadExportHead } from '../../src/export/export-service.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { makeExportLibrary } from './library-fixture.ts';

const { app } = await useTestApp();

describe('export document', () => {
  it('carries every item by its external ids, flags, watched state and history, sorted by ids', async () => {
    const { account, expected } = await makeExportLibrary({ timezone: 'Europe/Berlin' });
    await updateAccount({ name: account.name, webhookUrl: 'https://hooks.example/airdate' });
    const now = new Date('2026-11-21T08:00:00.000Z');
    const document = await collectExport({ accountId: account.id, now });
    expect(document).toEqual({
      format: 'airdate-export',
      version: 1,
      exportedAt: '2026-11-21T08:00:00.000Z',
      account: { name: account.name, timezone: 'Europe/Berlin', webhookUrl: 'https://hooks.example/airdate' },
      ...expected,
    });
    // Key order is part of the layout (docs/export-format.md).
    expect(Object.keys(document)).toEqual(['format', 'version', 'exportedAt', 'account', 'shows', 'movies', 'games']);
    expect(Object.keys(document.shows[0]!)).toEqual(['ids', 'title', 'poster', 'overview', 'followed', 'archived', 'episodes']);
    expect(Object.keys(document.movies[0]!)).toEqual(['ids', 'title', 'poster', 'overview', 'releaseDate', 'followed', 'watched', 'history']);
  });

  it("leaves out other accounts' libraries and answers an empty library with empty lists", async () => {
    const { account } = await makeExportLibrary();
    const other = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2025-01-01' }] });
    await setWatched({ accountId: other.id, kind: 'episode', id: show.episodes[0]!.id, watched: true });
    const empty = await makeAccount();
    const document = await collectExport({ accountId: empty.id });
    expect([document.shows, document.movies, document.games]).toEqual([[], [], []]);
    const full = await collectExport({ accountId: account.id });
    expect(full.shows.map((entry) => entry.title)).toEqual(['Lantern "Keepers"', 'Archived Show', 'Only Watched']);
  });

  it('is the same document on every export apart from exportedAt', async () => {
    const { account } = await makeExportLibrary();
    const first = await collectExport({ accountId: account.id, now: new Date('2026-01-01T00:00:00Z') });
    const second = await collectExport({ accountId: account.id, now: new Date('2026-06-01T00:00:00Z') });
    expect({ ...second, exportedAt: first.exportedAt }).toEqual(first);
  });

  it('names the file after the local date in the account time zone', async () => {
    const east = await makeAccount({ timezone: 'Pacific/Kiritimati' });
    const west = await makeAccount({ timezone: 'Pacific/Pago_Pago' });
    const now = new Date('2026-11-21T12:30:00Z');
    expect((await loadExportHead({ accountId: east.id, now })).fileName).toBe('airdate-export-2026-11-22.json');
    expect((await loadExportHead({ accountId: west.id, now })).fileName).toBe('airdate-export-2026-11-21.json');
    expect((await loadExportHead({ accountId: west.id, now: new Date('2026-11-21T05:00:00Z') })).fileName).toBe('airdate-export-2026-11-20.json');
  });
});

describe('Query.export', () => {
  const selection = `{ export { format version exportedAt fileName account { name timezone webhookUrl }
    shows { ids { tmdb tvdb igdb } title poster overview followed archived
      episodes { season number title airDate watched history { watched at } } }
    movies { ...Title } games { ...Title } } }
    fragment Title on ExportTitle { ids { tmdb tvdb igdb } title poster overview releaseDate followed watched history { watched at } }`;

  /** GraphQL answers absent ids as null; the download leaves them out. */
  const withoutNullIds = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value, (key, item) => (key === 'ids' ? Object.fromEntries(Object.entries(item).filter(([, id]) => id !== null)) : item)));

  it('answers the same document as the download when every field is selected', async () => {
    const { account } = await makeExportLibrary();
    const { status, json } = await graphql(app, account.token, selection);
    expect(status).toBe(200);
    const { fileName, ...fromGraphql } = json.data.export;
    expect(fileName).toMatch(/^airdate-export-\d{4}-\d{2}-\d{2}\.json$/);
    const download = await call(app, 'GET', '/api/export', { token: account.token });
    expect(download.status).toBe(200);
    expect(withoutNullIds({ ...fromGraphql, exportedAt: download.json.exportedAt })).toEqual(download.json);
  });
});
