import { describe, expect, it } from 'vitest';
import { storeCatalogRecords } from '../../src/catalog/catalog-store.ts';
import { db } from '../../src/db/client.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { seasonedShow, tmdbRoute, type TmdbShow } from '../catalog/support/tmdb-fixture.ts';
import { waitFor } from '../jobs/support/job-store-harness.ts';
import { useTestApp } from '../support/database.ts';
import { call } from '../support/http.ts';
import { parsePrometheusText, sampleSum } from '../support/prometheus-text.ts';
import { connectedAccount, deliver, deliveriesOf, watched } from './support.ts';

/**
 * What media-server deliveries cost the catalog key every account shares (issue 31, item 6), with
 * a fake TMDB started here counting the requests it receives: misses and answers remembered, a
 * stored show never fetched again (only its missing season, in the background), and each
 * connection's budget of catalog requests (5 an hour here) under a burst.
 */
const shows: TmdbShow[] = [];
const tmdbAnswers = tmdbRoute({ shows, movies: [] }, 'tmdb-key');
const tmdb = await startCatalogServer(tmdbAnswers);
const { app } = await useTestApp({
  TMDB_API_KEY: 'tmdb-key',
  AIRDATE_TMDB_URL: tmdb.url,
  AIRDATE_CATALOG_REQUESTS_PER_HOUR: '5',
  AIRDATE_JOB_POLL_MS: '100',
  AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
  AIRDATE_METRICS_TOKEN: 'metrics-token-0123456789abcdef',
});

/** A TMDB show of `seasons` seasons of three episodes; its TheTVDB id is `id` + 1 000 000. */
function tmdbShow(id: number, name: string, seasons: number): TmdbShow {
  const show = seasonedShow({ id, name, seasons, perSeason: 3, tvdbId: id + 1_000_000 });
  shows.push(show);
  return show;
}

/** The show stored as a refresh before its last `missing` seasons aired left it. */
async function storeWithout(show: TmdbShow, missing: number) {
  const seasons = Object.keys(show.seasons).map(Number);
  const kept = seasons.slice(0, seasons.length - missing);
  await storeCatalogRecords([
    {
      kind: 'show',
      ids: { tmdb: show.id, tvdb: show.tvdbId },
      title: show.name,
      poster: null,
      overview: null,
      episodes: kept.flatMap((season) => show.seasons[season]!.map((episode) => ({ season, number: episode.episode_number, title: episode.name, airDate: episode.air_date }))),
    },
  ]);
}

const byShowIds = (show: TmdbShow, season: number, episode: number) => ({ kind: 'episode', show: { title: show.name, ids: { tvdb: show.tvdbId, tmdb: show.id } }, season, episode });

/** The paths TMDB is asked while `work` runs. */
async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = tmdb.requests.length;
  await work();
  return tmdb.requests.slice(before).map((request) => request.path);
}

describe('catalog requests of media-server deliveries', () => {
  it('remembers a miss: an episode id TMDB does not know costs one request, and none the second time', async () => {
    const account = await connectedAccount(app, 'generic');
    const delivery = { kind: 'episode', show: { title: 'Nobody Knows' }, ids: { tvdb: 91_000_001 }, season: 1, episode: 1 };
    expect(await requestsOf(async () => expect((await deliver(app, account.path, { json: delivery })).json.result).toBe('unmatched'))).toEqual(['/find/91000001']);
    // Another account's delivery of the same id: what TMDB answered is shared, so nothing is sent.
    const other = await connectedAccount(app, 'generic');
    for (const path of [account.path, other.path]) {
      expect(await requestsOf(async () => expect((await deliver(app, path, { json: delivery })).json.result).toBe('unmatched'))).toEqual([]);
    }
    expect((await deliveriesOf(account.id)).every((row) => row.pending !== null)).toBe(true);
    // Kept in a bounded cache, shown on /metrics beside the others (docs/operations.md "Caches").
    const samples = parsePrometheusText((await call(app, 'GET', '/metrics', { token: 'metrics-token-0123456789abcdef' })).text);
    expect(sampleSum(samples, 'airdate_cache_size', { cache: 'catalog-lookups', unit: 'entries' })).toBeGreaterThanOrEqual(1);
    expect(sampleSum(samples, 'airdate_cache_max', { cache: 'catalog-lookups', unit: 'entries' })).toBe(20_000);
  });

  it('the same unmatched delivery twice costs nothing the second time: the show it fetched whole has no such season', async () => {
    const show = tmdbShow(8101, 'Numbered Their Own Way', 3);
    const account = await connectedAccount(app, 'generic');
    // The store lacks the show: /find by its TheTVDB id, the show, its three seasons.
    const first = await requestsOf(async () => expect((await deliver(app, account.path, { json: byShowIds(show, 7, 1) })).json.result).toBe('unmatched'));
    expect(first).toEqual(['/find/1008101', '/tv/8101', '/tv/8101/season/1', '/tv/8101/season/2', '/tv/8101/season/3']);
    let answer: Record<string, string> = {};
    expect(await requestsOf(async () => (answer = (await deliver(app, account.path, { json: byShowIds(show, 7, 1) })).json))).toEqual([]);
    expect(answer).toMatchObject({ result: 'unmatched' });
    expect(answer.reason).toContain('; unmatched for now: the catalog was asked lately for season 7 of "Numbered Their Own Way" and has no such episode yet;');
  });

  it('a stored show’s missing season costs one request, in the background, and the retry records the watch', async () => {
    const show = tmdbShow(8201, 'Stored Without Its Last Season', 3);
    await storeWithout(show, 1);
    const account = await connectedAccount(app, 'generic');
    // TMDB answers the season only once both deliveries were answered (the fetch is not waited for).
    let answerSeason = () => {};
    const seasonHeld = new Promise<void>((resolve) => (answerSeason = resolve));
    tmdb.setRoute(async (request) => (request.path === '/tv/8201/season/3' && (await seasonHeld), tmdbAnswers(request)));
    const asked = await requestsOf(async () => {
      const answers = [await deliver(app, account.path, { json: byShowIds(show, 3, 2) }), await deliver(app, account.path, { json: byShowIds(show, 3, 2) })];
      for (const { json } of answers) {
        expect(json).toMatchObject({ result: 'unmatched' });
        expect(json.reason).toContain('; unmatched for now: season 3 of "Stored Without Its Last Season" is not stored yet: the catalog is asked for it in the background, and the delivery is kept and retried on the next sync or catalog refresh');
      }
      answerSeason();
      await waitFor('season 3 to be stored', async () => (await db().episode.count({ where: { show: { tmdbId: 8201 }, season: 3 } })) === 3);
    });
    tmdb.setRoute(tmdbAnswers);
    // Never the show again, nor its other seasons: the one season, once for both deliveries.
    expect(asked).toEqual(['/tv/8201/season/3']);

    await app.jobs.start();
    const retried = await requestsOf(async () => {
      expect((await call(app, 'POST', '/api/machine/sync', { token: account.token })).json).toEqual({ ok: true });
      await waitFor('the sync to retry the deliveries', async () => (await deliveriesOf(account.id)).every((row) => row.pending === null));
    });
    expect(retried).toEqual([]);
    const rows = await deliveriesOf(account.id);
    expect(rows.map((row) => row.detail).sort()).toEqual([
      'on retry: Stored Without Its Last Season S03E02: watched already, or within the duplicate window',
      'on retry: recorded Stored Without Its Last Season S03E02 (by show ids)',
    ]);
    const episode = await db().episode.findFirstOrThrow({ where: { show: { tmdbId: 8201 }, season: 3, number: 2 } });
    expect(await watched(account.id)).toEqual([`episode:${episode.id}`]);
  });

  it('holds each connection to its budget under a burst of deliveries, keeps them for the retry, and leaves other connections theirs', async () => {
    const account = await connectedAccount(app, 'generic');
    const burst = Array.from({ length: 30 }, (_, index) => ({ kind: 'episode', show: { title: `Burst ${index}` }, ids: { tvdb: 93_000_000 + index }, season: 1, episode: 1 }));
    let answers: { json: { result: string; reason: string } }[] = [];
    const asked = await requestsOf(async () => (answers = await Promise.all(burst.map((json) => deliver(app, account.path, { json })))));
    // Five an hour: five /find, the other 25 deliveries not asked of TMDB at all.
    expect(asked).toHaveLength(5);
    expect(asked.every((path) => path.startsWith('/find/93'))).toBe(true);
    const forNow = answers.filter(({ json }) => json.reason.includes("unmatched for now: this connection's catalog requests (5 an hour, shared by its deliveries) are spent"));
    expect(answers.every(({ json }) => json.result === 'unmatched')).toBe(true);
    expect(forNow).toHaveLength(25);
    const rows = await deliveriesOf(account.id);
    expect(rows).toHaveLength(30);
    expect(rows.every((row) => row.pending !== null)).toBe(true);

    // Another account's connection has its own budget.
    const other = await connectedAccount(app, 'generic');
    const otherAsked = await requestsOf(() => deliver(app, other.path, { json: { ...burst[0]!, ids: { tvdb: 93_999_999 } } }));
    expect(otherAsked).toEqual(['/find/93999999']);
  });
});
