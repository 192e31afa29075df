import { describe, expect, it } from 'vitest';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { db } from '../../src/db/client.ts';
import { parseAirdateExport } from '../../src/imports/sources/parse-airdate.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute, type TmdbMovie, type TmdbShow } from '../catalog/support/tmdb-fixture.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, unique } from '../support/factories.ts';

const key = '0123456789abcdef0123456789abcdef';
const tmdbData: { shows: TmdbShow[]; movies: TmdbMovie[] } = { shows: [], movies: [] };
const tmdb = await startCatalogServer(tmdbRoute(tmdbData, key));
const { app } = await useTestApp({ TMDB_API_KEY: key, AIRDATE_TMDB_URL: tmdb.url });

async function download(token: string): Promise<Uint8Array> {
  const response = await app.fetch(new Request('http://airdate.test/api/export', { headers: { authorization: `Bearer ${token}` } }));
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

async function upload(token: string, bytes: Uint8Array, name = 'airdate-export.json') {
  const form = new FormData();
  form.append('file', new File([bytes as BlobPart], name));
  const response = await app.fetch(new Request('http://airdate.test/api/import/airdate', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
  return { status: response.status, json: (await response.json()) as any };
}

const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 12, minute));

describe('the Airdate export carries the ids export files key items by', () => {
  it('writes imdb, tvdb (movies), giantbomb and episode ids, and reads them back', async () => {
    const account = await makeAccount();
    const [showTmdb, movieTmdb, igdb, episodeTvdb] = [unique(), unique(), unique(), unique()];
    const ids = { showImdb: `tt${unique()}`, movieImdb: `tt${unique()}`, movieTvdb: unique(), giantbomb: unique(), episodeImdb: `tt${unique()}` };
    const stored = await storeCatalogRecords([
      { kind: 'show', ids: { tmdb: showTmdb, imdb: ids.showImdb }, title: 'Id Show', poster: null, overview: null, episodes: [
        { season: 1, number: 1, title: 'One', airDate: '2020-01-01', ids: { tvdb: episodeTvdb, imdb: ids.episodeImdb } },
        { season: 1, number: 2, title: 'Two', airDate: '2020-01-08' },
      ] },
      { kind: 'movie', ids: { tmdb: movieTmdb, tvdb: ids.movieTvdb, imdb: ids.movieImdb }, title: 'Id Film', poster: null, overview: null, releaseDate: '2001-01-01' },
      { kind: 'game', ids: { igdb, giantbomb: ids.giantbomb }, title: 'Id Game', poster: null, overview: null, releaseDate: null },
    ]);
    const [showId, movieId, gameId] = stored.items.map((item) => item.databaseId) as [number, number, number];
    await setFollow({ accountId: account.id, kind: 'show', id: showId, followed: true });
    await setFollow({ accountId: account.id, kind: 'movie', id: movieId, followed: true });
    await setFollow({ accountId: account.id, kind: 'game', id: gameId, followed: true });
    const episode = await db().episode.findFirstOrThrow({ where: { showId, number: 1 } });
    await setWatched({ accountId: account.id, kind: 'episode', id: episode.id, watched: true, at: at(1), source: 'graphql' });

    const bytes = await download(account.token);
    const file = JSON.parse(Buffer.from(bytes).toString('utf8'));
    expect(file.shows[0].ids).toEqual({ tmdb: showTmdb, imdb: ids.showImdb });
    expect(file.shows[0].episodes.map((entry: { ids?: unknown }) => entry.ids)).toEqual([{ tvdb: episodeTvdb, imdb: ids.episodeImdb }, undefined]);
    expect(Object.keys(file.shows[0].episodes[1])).not.toContain('ids');
    expect(file.movies[0].ids).toEqual({ tmdb: movieTmdb, tvdb: ids.movieTvdb, imdb: ids.movieImdb });
    expect(file.games[0].ids).toEqual({ igdb, giantbomb: ids.giantbomb });

    const document = parseAirdateExport(bytes, 'airdate-export.json');
    expect(document.shows[0]!.ids).toEqual({ tmdb: showTmdb, imdb: ids.showImdb });
    expect(document.shows[0]!.episodes[0]!.ids).toEqual({ tvdb: episodeTvdb, imdb: ids.episodeImdb });
    expect(document.titles.map((title) => title.ids)).toEqual([{ tmdb: movieTmdb, tvdb: ids.movieTvdb, imdb: ids.movieImdb }, { igdb, giantbomb: ids.giantbomb }]);

    // Into another account: the same items, and its export is the same document.
    const target = await makeAccount();
    expect((await upload(target.token, bytes)).json).toMatchObject({ ok: true, imported: { shows: 1, movies: 1, games: 1, history: 1 }, unmatched: [] });
    const again = JSON.parse(Buffer.from(await download(target.token)).toString('utf8'));
    expect({ ...again, exportedAt: 0, account: 0 }).toEqual({ ...file, exportedAt: 0, account: 0 });
  });

  it('imports items an export knows by imdb only, through the catalog (TMDB /find) before the transaction', async () => {
    const target = await makeAccount();
    const movie: TmdbMovie = { id: unique(), title: 'Found Film', release_date: '1999-03-31', poster_path: null, overview: '', imdb_id: `tt${unique()}` };
    const show: TmdbShow = { id: unique(), name: 'Found Show', poster_path: null, overview: '', imdbId: `tt${unique()}`, seasons: { 1: [{ episode_number: 1, name: 'One', air_date: '2020-01-01' }] } };
    tmdbData.movies.push(movie);
    tmdbData.shows.push(show);
    const file = {
      format: 'airdate-export',
      version: 1,
      shows: [{ ids: { imdb: show.imdbId }, title: 'Found Show', poster: null, overview: null, followed: true, archived: false, episodes: [
        { season: 1, number: 1, title: 'One', airDate: null, watched: true, history: [{ watched: true, at: at(2).toISOString() }] },
      ] }],
      movies: [
        { ids: { imdb: movie.imdb_id }, title: 'Found Film', poster: null, overview: null, releaseDate: null, followed: true, watched: true, history: [{ watched: true, at: at(3).toISOString() }] },
        { ids: { imdb: `tt${unique()}` }, title: 'Nobody knows it', poster: null, overview: null, releaseDate: null, followed: true, watched: false, history: [] },
      ],
      games: [],
    };
    const answer = await upload(target.token, new TextEncoder().encode(JSON.stringify(file)));
    expect(answer).toMatchObject({ status: 200, json: { ok: true, imported: { shows: 1, episodes: 1, movies: 1, history: 2 } } });
    expect(answer.json.unmatched).toEqual([expect.objectContaining({ file: 'airdate-export.json', kind: 'movie', title: 'Nobody knows it' })]);
    expect(await db().movie.findUniqueOrThrow({ where: { imdbId: movie.imdb_id! } })).toMatchObject({ tmdbId: movie.id, title: 'Found Film' });
    expect(tmdb.seen(`/find/${movie.imdb_id}`)[0]!.query.get('external_source')).toBe('imdb_id');
  });

  it('refuses a malformed imdb id in an export, naming where', async () => {
    const target = await makeAccount();
    const file = { format: 'airdate-export', version: 1, movies: [{ ids: { tmdb: 5, imdb: 'nm123' }, title: 'M', poster: null, overview: null, releaseDate: null }] };
    const answer = await upload(target.token, new TextEncoder().encode(JSON.stringify(file)));
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('movies[0].ids.imdb: expected an IMDb id');
  });
});
