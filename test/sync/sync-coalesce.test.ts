import { expect, it } from 'vitest';
import { jobNames } from '../../src/jobs.ts';
import { setFollow } from '../../src/library/library.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute } from '../catalog/support/tmdb-fixture.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { jobRows, jobRowsFor } from '../support/jobs.ts';

/**
 * A sync asked for while one is running for the same account is not queued again: the running
 * one is held inside its catalog refresh by a TMDB stand-in that does not answer until told to.
 */
const movieId = 700_123;
const answer = tmdbRoute({ shows: [], movies: [{ id: movieId, title: 'Held Film', release_date: '2031-01-01', poster_path: null, overview: '' }] }, 'k');
let release: (() => void) | undefined;
const tmdb = await startCatalogServer(async (request) => {
  if (release === undefined && request.path === `/movie/${movieId}`) await new Promise<void>((resolve) => (release = resolve));
  return answer(request);
});
const { app } = await useTestApp({ TMDB_API_KEY: 'k', AIRDATE_TMDB_URL: tmdb.url, AIRDATE_JOB_POLL_MS: '100' });

const syncRows = (accountId: number) => jobRowsFor(jobNames.accountSync, accountId);

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string) {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('a sync asked for while one runs is coalesced with it; one asked for after it ends runs again', async () => {
  // The jobs start first, so that the catalog refresh every worker runs at start is over (and
  // found nothing followed) before anything is followed: the only refreshes below are syncs'.
  await app.jobs.start();
  await waitUntil(async () => (await jobRows(jobNames.catalogRefresh))[0]?.lastFinishedAt != null, 'the start-up catalog refresh');
  const user = await makeAccount();
  // The first lookup stores the movie (and is held until released, like every first detail request).
  const lookup = graphql(app, user.token, `{ catalogLookup(source: TMDB, kind: MOVIE, externalId: ${movieId}) { ... on Movie { databaseId } } }`);
  await waitUntil(() => release !== undefined, 'the lookup to reach the catalog');
  release!();
  const movie = (await lookup).json.data.catalogLookup as { databaseId: number };
  await setFollow({ accountId: user.id, kind: 'movie', id: movie.databaseId, followed: true });
  release = undefined; // the next detail request (the sync's refresh) is held
  const refreshes = () => tmdb.seen(`/movie/${movieId}`).length;
  const before = refreshes();

  expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).json).toEqual({ ok: true });
  await waitUntil(() => release !== undefined, 'the sync to be inside its catalog refresh');
  expect(refreshes()).toBe(before + 1);
  const [running] = await syncRows(user.id);
  expect(running!.lockedAt).not.toBeNull();

  for (let ask = 0; ask < 3; ask += 1) expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).json).toEqual({ ok: true });
  const rows = await syncRows(user.id);
  expect(rows.map((row) => row.id)).toEqual([running!.id]);
  expect(rows[0]!.lockedAt).not.toBeNull();

  release!();
  await waitUntil(async () => (await syncRows(user.id)).length === 0, 'the sync to finish');
  // Give a wrongly queued second run time to start: the poll interval is 100 ms.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(refreshes()).toBe(before + 1);

  // Once it has finished, a new request runs again.
  expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).json).toEqual({ ok: true });
  await waitUntil(() => refreshes() === before + 2, 'the next sync to refresh the catalog');
  await waitUntil(async () => (await syncRows(user.id)).length === 0, 'the next sync to finish');
});
