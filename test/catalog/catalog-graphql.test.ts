import { describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { graphql } from '../support/http.ts';
import { startCatalogServer } from './support/catalog-server.ts';
import { tmdbRoute } from './support/tmdb-fixture.ts';

const tmdb = await startCatalogServer(
  tmdbRoute(
    {
      shows: [{ id: 990001, name: 'Fixture Show', poster_path: '/fx.jpg', overview: 'From TMDB.', tvdbId: 9900001, seasons: { 0: [{ episode_number: 1, name: 'Special', air_date: '2024-12-20' }], 1: [{ episode_number: 1, name: 'Pilot', air_date: '2024-01-10' }] } }],
      movies: [{ id: 700001, title: 'Fixture Film', release_date: '2019-10-04', poster_path: null, overview: '' }],
    },
    'k',
  ),
);
const { app } = await useTestApp({ TMDB_API_KEY: 'k', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_TMDB_IMAGE_URL: 'https://img.example/w500' });

describe('GraphQL over a TMDB catalog', () => {
  it('searchCatalog answers from TMDB, every result with a database id', async () => {
    const account = await makeAccount();
    const { json } = await graphql(
      app,
      account.token,
      '{ searchCatalog(query: "fixture") { __typename ... on Show { databaseId title tmdbId poster } ... on Movie { databaseId title releaseDate } } }',
    );
    expect(json.errors).toBeUndefined();
    const results = json.data.searchCatalog as { __typename: string; databaseId: number; title: string }[];
    expect(results.map((item) => `${item.__typename}:${item.title}`).sort()).toEqual(['Movie:Fixture Film', 'Show:Fixture Show']);
    expect(results.every((item) => Number.isInteger(item.databaseId))).toBe(true);
    expect(results.find((item) => item.__typename === 'Show')).toMatchObject({ tmdbId: 990001, poster: 'https://img.example/w500/fx.jpg' });
    expect(tmdb.seen('/search/tv')[0]!.query.get('query')).toBe('fixture');
  });

  it('catalogLookup fetches a show with its episodes and tvdb id, then answers from the database', async () => {
    const account = await makeAccount();
    const query = '{ catalogLookup(source: TVDB, kind: SHOW, externalId: 9900001) { ... on Show { title tmdbId tvdbId overview episodes { code airDate } } } }';
    const { json } = await graphql(app, account.token, query);
    expect(json.errors).toBeUndefined();
    expect(json.data.catalogLookup).toEqual({
      title: 'Fixture Show',
      tmdbId: 990001,
      tvdbId: 9900001,
      overview: 'From TMDB.',
      episodes: [
        { code: 'S00E01', airDate: '2024-12-20' },
        { code: 'S01E01', airDate: '2024-01-10' },
      ],
    });
    const asked = tmdb.requests.length;
    expect((await graphql(app, account.token, query)).json.data.catalogLookup.title).toBe('Fixture Show');
    expect(tmdb.requests.length).toBe(asked);
    const missing = await graphql(app, account.token, '{ catalogLookup(source: TMDB, kind: MOVIE, externalId: 5) { __typename } }');
    expect(missing.json.data.catalogLookup).toBeNull();
  });

  it("runs an operation's searches one after another, a failed one included, so one operation never takes every connection", async () => {
    const account = await makeAccount();
    const answer = tmdbRoute({ shows: [{ id: 990002, name: 'Queue Show', poster_path: null, overview: '', seasons: {} }], movies: [] }, 'k');
    let inFlight = 0;
    let most = 0;
    tmdb.setRoute(async (request) => {
      if (!request.path.startsWith('/search/')) return answer(request);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 40));
      inFlight -= 1;
      return answer(request);
    });
    const searches = ['queue', 'queue show', '', 'show'].map((text, index) => `s${index}: searchCatalog(query: ${JSON.stringify(text)}, kind: SHOW) { ... on Show { title } }`);
    const { json } = await graphql(app, account.token, `{ ${searches.join(' ')} }`);
    // The empty one fails (and, the field being non-null, takes `data` with it, answered at once);
    // the one after it still runs, in its turn.
    expect(json.errors.map((error: { path: string[] }) => error.path[0])).toEqual(['s2']);
    await vi.waitFor(() => expect(tmdb.seen('/search/tv').map((seen) => seen.query.get('query'))).toEqual(expect.arrayContaining(['queue', 'queue show', 'show'])));
    expect(most).toBe(1);
    // Without a failure, every search answers.
    const { json: answered } = await graphql(app, account.token, `{ ${[searches[0], searches[1]].join(' ')} }`);
    expect(answered.data).toEqual({ s0: [{ title: 'Queue Show' }], s1: [{ title: 'Queue Show' }] });
    expect(most).toBe(1);
  });
});
