import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute } from '../catalog/support/tmdb-fixture.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { upload } from '../support/upload.ts';
import { imdbCsv, type ImdbTitle } from './imdb-fixtures.ts';

/**
 * An account's imports spend at most its budget of catalog requests (AIRDATE_CATALOG_REQUESTS_PER_HOUR,
 * 4 here; issue 31, item 6): past it the rest of an upload's unknown ids are not asked, stay
 * unmatched and are kept for the retry, and another account's import has its own budget.
 */
const tmdb = await startCatalogServer(tmdbRoute({ shows: [], movies: [] }, 'tmdb-key'));
const { app } = await useTestApp({ TMDB_API_KEY: 'tmdb-key', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_CATALOG_REQUESTS_PER_HOUR: '4', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });

/** An IMDb ratings export of `count` films no catalog knows (IMDb ids only: each one a /find). */
const unknownFilms = (first: number, count: number): Uint8Array =>
  imdbCsv(
    'ratings-2024',
    Array.from({ length: count }, (_, index): ImdbTitle => ({ imdb: `tt${first + index}`, title: `Nobody's Film ${first + index}`, year: 1950, kind: 'movie', rating: 7, rated: '2024-01-01' })),
  );

describe('the catalog budget of an account’s imports', () => {
  it('asks the catalogs at most the budget’s requests, keeps the rest unmatched for the retry, and leaves other accounts theirs', async () => {
    const account = await makeAccount();
    const before = tmdb.requests.length;
    const answer = await upload(app, '/api/import/imdb', account.token, { 'ratings.csv': unknownFilms(9_100_000, 12) });
    expect(answer.status).toBe(200);
    expect(answer.json.unmatched).toHaveLength(12);
    // Twelve films, each an IMDb id and then its title and year to ask about: four requests in all.
    expect(tmdb.requests.length - before).toBe(4);
    expect(await db().pendingImport.count({ where: { accountId: account.id } })).toBe(12);

    const other = await makeAccount();
    const otherBefore = tmdb.requests.length;
    expect((await upload(app, '/api/import/imdb', other.token, { 'ratings.csv': unknownFilms(9_200_000, 1) })).status).toBe(200);
    expect(tmdb.requests.slice(otherBefore).map((request) => request.path)).toEqual(['/find/tt9200000', '/search/movie']);
  });
});
