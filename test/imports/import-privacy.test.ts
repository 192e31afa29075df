import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { upload } from '../support/upload.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute, type TmdbShow } from '../catalog/support/tmdb-fixture.ts';
import { bytes } from './fixtures.ts';

/**
 * Issue 31, item 7: one account's import file must not write catalog rows other accounts see. The
 * attacker imports an Airdate export naming a show by a TMDB id (one TMDB does not know, or one it
 * does) with their own title, overview and poster; the victim searches, opens, follows and reads
 * their feeds over a real TMDB stand-in.
 */

const catalog = { shows: [] as TmdbShow[], movies: [] };
const tmdb = await startCatalogServer(tmdbRoute(catalog, 'k'));
const { app } = await useTestApp({ TMDB_API_KEY: 'k', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_TMDB_IMAGE_URL: 'https://image.tmdb.org/t/p/w500' });

const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const scam = 'Call +1 555 0100 now';

/** The attacker's Airdate export: one show under `tmdbId` with their text, poster and an episode. */
function attackerFile(tmdbId: number, title = `Support Line ${tmdbId}`) {
  const show = {
    ids: { tmdb: tmdbId },
    title,
    poster: 'https://attacker.example/track.png',
    overview: scam,
    followed: true,
    archived: false,
    episodes: [
      { season: 1, number: 1, title: scam, airDate: '2025-01-01', watched: true, history: [{ watched: true, at: '2025-01-02T20:00:00.000Z' }] },
      { season: 9, number: 9, title: scam, airDate: tomorrow, watched: false, history: [] },
    ],
  };
  const document = { format: 'airdate-export', version: 1, exportedAt: '2025-06-01T00:00:00.000Z', account: { name: 'x', timezone: 'UTC', webhookUrl: null }, shows: [show], movies: [], games: [] };
  return bytes(JSON.stringify(document));
}

async function importAttack(token: string, tmdbId: number, title?: string) {
  const response = await upload(app, '/api/import/airdate', token, { 'airdate-export.json': attackerFile(tmdbId, title) });
  expect(response.status).toBe(200);
  const row = await db().show.findUniqueOrThrow({ where: { tmdbId }, include: { episodes: true } });
  return row;
}

const searchQuery = 'query ($q: String!) { searchCatalog(query: $q) { __typename ... on Show { databaseId title overview poster } } }';
const showQuery = 'query ($id: Int!) { show(id: $id) { title overview poster episodes { title airDate } } }';
const lookupQuery = 'query ($id: Int!) { catalogLookup(source: TMDB, kind: SHOW, externalId: $id) { ... on Show { databaseId title overview poster episodes { code title } } } }';

describe('rows created from import files (issue 31, item 7)', () => {
  it("an Airdate file's show under a TMDB id no catalog knows is its importer's alone: another account's search, show page, lookup, writes and feeds never show it", async () => {
    const attacker = await makeAccount();
    const victim = await makeAccount();
    const unusedId = unique();
    const row = await importAttack(attacker.token, unusedId);
    expect(row.ownerAccountId).toBe(attacker.id);

    // The importer sees what their file said.
    const own = await graphql(app, attacker.token, searchQuery, { q: `Support Line ${unusedId}` });
    expect(own.json.data.searchCatalog).toEqual([expect.objectContaining({ databaseId: row.id, overview: scam })]);
    expect((await graphql(app, attacker.token, showQuery, { id: row.id })).json.data.show.title).toBe(`Support Line ${unusedId}`);

    // Another account: not in its search, no show page, no lookup (TMDB does not know the id).
    const found = await graphql(app, victim.token, searchQuery, { q: `Support Line ${unusedId}` });
    expect(found.json.errors).toBeUndefined();
    expect(found.json.data.searchCatalog).toEqual([]);
    expect((await graphql(app, victim.token, showQuery, { id: row.id })).json.data.show).toBeNull();
    expect((await graphql(app, victim.token, lookupQuery, { id: unusedId })).json.data.catalogLookup).toBeNull();

    // Nor can it follow it or mark its episodes by database id: 404, nothing written.
    const episode = row.episodes.find((candidate) => candidate.season === 1)!;
    expect((await call(app, 'POST', '/api/machine/follow', { token: victim.token, body: { kind: 'show', id: row.id, followed: true } })).status).toBe(404);
    expect((await call(app, 'POST', '/api/machine/watched', { token: victim.token, body: { kind: 'episode', id: episode.id, watched: true } })).status).toBe(404);
    const marks = await graphql(app, victim.token, 'mutation ($ids: [Int!]!) { markWatched(input: { kind: EPISODE, ids: $ids, watched: true }) { __typename } }', { ids: [episode.id] });
    expect(marks.json.data.markWatched.__typename).toBe('NotFoundError');
    const bulk = await graphql(app, victim.token, 'mutation ($id: Int!) { markEpisodes(input: { showId: $id, watched: true }) { __typename } }', { id: row.id });
    expect(bulk.json.data.markEpisodes.__typename).toBe('NotFoundError');
    expect(await db().libraryItem.count({ where: { accountId: victim.id } })).toBe(0);
    expect(await db().watchState.count({ where: { accountId: victim.id } })).toBe(0);

    // Its REST feeds and calendar say nothing of it.
    for (const path of ['/api/machine/summary', '/api/calendar.ics']) {
      const feed = await call(app, 'GET', path, { token: victim.token });
      expect(feed.status).toBe(200);
      expect(feed.text).not.toContain('555');
      expect(feed.text).not.toContain('attacker.example');
    }
    // The importer's own feed does list it (the file's episode airs tomorrow).
    expect((await call(app, 'GET', '/api/calendar.ics', { token: attacker.token })).text).toContain(`Support Line ${unusedId}`);
  });

  it("another account's import of the same id is unmatched (kept as pending), never attached to the importer's row", async () => {
    const attacker = await makeAccount();
    const victim = await makeAccount();
    const unusedId = unique();
    const row = await importAttack(attacker.token, unusedId);
    const response = await upload(app, '/api/import/airdate', victim.token, { 'mine.json': attackerFile(unusedId, 'My Own Title') });
    expect(response.status).toBe(200);
    expect(response.json.unmatched).toEqual([expect.objectContaining({ kind: 'show', title: 'My Own Title', ids: { tmdb: unusedId } })]);
    expect(JSON.stringify(response.json)).not.toContain('Support Line');
    expect(await db().libraryItem.count({ where: { accountId: victim.id } })).toBe(0);
    expect(await db().pendingImport.count({ where: { accountId: victim.id } })).toBe(1);
    // The row is still the attacker's, with the attacker's text untouched by the victim's file.
    expect(await db().show.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ ownerAccountId: attacker.id, title: `Support Line ${unusedId}` });
  });

  it("another account following the id gets the catalog's data, and from then on the row is shared with the catalog's text, the file's episode text gone", async () => {
    const attacker = await makeAccount();
    const victim = await makeAccount();
    const realId = unique();
    const row = await importAttack(attacker.token, realId);
    expect(row.ownerAccountId).toBe(attacker.id);
    // TMDB knows the id (the attacker named a real show): the victim's lookup gets TMDB's data.
    catalog.shows.push({ id: realId, name: `Real Show ${realId}`, poster_path: '/real.jpg', overview: 'From TMDB.', seasons: { 1: [{ episode_number: 1, name: 'Pilot', air_date: '2025-01-01' }] } });
    const looked = await graphql(app, victim.token, lookupQuery, { id: realId });
    expect(looked.json.errors).toBeUndefined();
    expect(looked.json.data.catalogLookup).toEqual({
      databaseId: row.id,
      title: `Real Show ${realId}`,
      overview: 'From TMDB.',
      poster: 'https://image.tmdb.org/t/p/w500/real.jpg',
      episodes: [
        { code: 'S01E01', title: 'Pilot' },
        { code: 'S09E09', title: null },
      ],
    });
    expect(await db().show.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ ownerAccountId: null });
    // Shared now: the victim follows it and reads it in its feed; the attacker sees the catalog's text too.
    expect((await call(app, 'POST', '/api/machine/follow', { token: victim.token, body: { kind: 'show', id: row.id, followed: true } })).status).toBe(200);
    const summary = await call(app, 'GET', '/api/machine/summary', { token: victim.token });
    expect(summary.text).toContain(`Real Show ${realId}`);
    expect(summary.text).not.toContain('555');
    const calendar = await call(app, 'GET', '/api/calendar.ics', { token: victim.token });
    expect(calendar.text).not.toContain('555');
    expect((await graphql(app, attacker.token, showQuery, { id: row.id })).json.data.show).toMatchObject({ title: `Real Show ${realId}`, overview: 'From TMDB.' });
    // The attacker's history of the episode is kept.
    expect(await db().watchState.count({ where: { accountId: attacker.id, watched: true, episode: { showId: row.id } } })).toBe(1);
  });

  it("a poster on another host than the catalogs' image hosts is dropped at import and counted in the report's notes; a TMDB poster is kept", async () => {
    const account = await makeAccount();
    const [foreign, fromTmdb] = [unique(), unique()];
    const document = JSON.parse(new TextDecoder().decode(attackerFile(foreign)));
    document.movies = [{ ids: { tmdb: fromTmdb }, title: `Film ${fromTmdb}`, poster: 'https://image.tmdb.org/t/p/w500/film.jpg', overview: null, releaseDate: '2020-01-01', followed: true, watched: false, history: [] }];
    const response = await upload(app, '/api/import/airdate', account.token, { 'airdate-export.json': bytes(JSON.stringify(document)) });
    expect(response.status).toBe(200);
    expect(response.json.notes).toEqual([
      { file: 'airdate-export.json', note: "1 poster not on a catalog's image host (image.tmdb.org, artworks.thetvdb.com, images.igdb.com) dropped" },
    ]);
    expect((await db().show.findUniqueOrThrow({ where: { tmdbId: foreign } })).poster).toBeNull();
    expect((await db().movie.findUniqueOrThrow({ where: { tmdbId: fromTmdb } })).poster).toBe('https://image.tmdb.org/t/p/w500/film.jpg');
    expect(JSON.stringify(response.json)).not.toContain('attacker.example');
  });

  it('a search whose catalog answer has the id confirms the row: it becomes shared with the catalog\'s text', async () => {
    const attacker = await makeAccount();
    const victim = await makeAccount();
    const laterId = unique();
    const row = await importAttack(attacker.token, laterId, `Quiet Harbor ${laterId}`);
    expect((await graphql(app, victim.token, searchQuery, { q: `Quiet Harbor ${laterId}` })).json.data.searchCatalog).toEqual([]);
    // TMDB gets the id later, under the same name.
    catalog.shows.push({ id: laterId, name: `Quiet Harbor ${laterId}`, poster_path: null, overview: 'A fishing town.', seasons: {} });
    const found = await graphql(app, victim.token, searchQuery, { q: `Quiet Harbor ${laterId}` });
    expect(found.json.data.searchCatalog).toEqual([{ __typename: 'Show', databaseId: row.id, title: `Quiet Harbor ${laterId}`, overview: 'A fishing town.', poster: null }]);
    expect(await db().show.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ ownerAccountId: null });
  });
});
