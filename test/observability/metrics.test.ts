import { describe, expect, it } from 'vitest';
import { jobNames } from '../../src/jobs.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { knownOperationNames } from '../../src/metrics/operation-names.ts';
import { waitFor } from '../jobs/support/job-store-harness.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow } from '../../src/library/library.ts';
import { startCatalogServer } from '../catalog/support/catalog-server.ts';
import { tmdbRoute } from '../catalog/support/tmdb-fixture.ts';
import { json, traktMoviePlay } from '../imports/fixtures.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { parsePrometheusText, sampleSum, type Sample } from '../support/prometheus-text.ts';
import { upload } from '../support/upload.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const tmdb = await startCatalogServer(
  tmdbRoute({ shows: [{ id: 4242, name: 'Metric Show', poster_path: null, overview: '', seasons: { 1: [{ episode_number: 1, name: 'Pilot', air_date: '2026-03-01' }] } }], movies: [] }, 'tmdb-key'),
);
const ratePerMinute = 20;
const metricsToken = 'metrics-token-0123456789abcdef';
const { app } = await useTestApp({
  AIRDATE_METRICS_TOKEN: metricsToken,
  AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
  AIRDATE_JOB_POLL_MS: '100',
  AIRDATE_RATE_LIMIT_PER_MINUTE: String(ratePerMinute),
  TMDB_API_KEY: 'tmdb-key',
  AIRDATE_TMDB_URL: tmdb.url,
});
const today = new Date().toISOString().slice(0, 10);

async function scrape(): Promise<Sample[]> {
  const response = await call(app, 'GET', '/metrics', { token: metricsToken });
  expect(response.status).toBe(200);
  return parsePrometheusText(response.text);
}

/** How much each of `series` moved while `work` ran. */
async function moved(series: Record<string, [string, Record<string, string>?]>, work: () => Promise<void>): Promise<Record<string, number>> {
  const before = await scrape();
  await work();
  const after = await scrape();
  return Object.fromEntries(Object.entries(series).map(([key, [name, labels]]) => [key, sampleSum(after, name, labels) - sampleSum(before, name, labels)]));
}

describe('GET /metrics', () => {
  it('answers Prometheus text with the default process metrics', async () => {
    const response = await call(app, 'GET', '/metrics', { token: metricsToken });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parsePrometheusText(response.text);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(samples.some((sample) => sample.name === name), name).toBe(true);
    }
    expect((await call(app, 'POST', '/metrics')).status).toBe(405);
  });

  it('counts HTTP requests by method, route template and status, with their durations; unknown paths are one label', async () => {
    const user = await makeAccount();
    const labels = { method: 'GET', route: '/api/machine/summary', status: '200' };
    const delta = await moved(
      {
        summaries: ['airdate_http_requests_total', labels],
        timed: ['airdate_http_request_duration_seconds_count', labels],
        unauthorized: ['airdate_http_requests_total', { route: '/api/machine/summary', status: '401' }],
        notFound: ['airdate_http_requests_total', { route: 'unmatched', status: '404' }],
        strangeMethod: ['airdate_http_requests_total', { method: 'other', route: '/api/machine/summary', status: '405' }],
      },
      async () => {
        for (let index = 0; index < 3; index++) expect((await call(app, 'GET', '/api/machine/summary', { token: user.token })).status).toBe(200);
        expect((await call(app, 'GET', '/api/machine/summary')).status).toBe(401);
        expect((await call(app, 'GET', `/no/such/path-${user.token}`)).status).toBe(404);
        expect((await call(app, 'GET', '/also/missing?x=1')).status).toBe(404);
        expect((await call(app, 'BREW', '/api/machine/summary', { token: user.token })).status).toBe(405);
      },
    );
    expect(delta).toEqual({ summaries: 3, timed: 3, unauthorized: 1, notFound: 2, strangeMethod: 1 });
    const text = (await call(app, 'GET', '/metrics', { token: metricsToken })).text;
    expect(text).not.toContain(user.token);
    expect(text).not.toContain('also/missing');
  });

  it('shows the library snapshots kept for the feeds: one more account, with its episodes, after its first summary', async () => {
    const user = await makeAccount();
    const show = await makeShow({ episodes: [1, 2, 3, 4].map((number) => ({ number, airDate: today })) });
    await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
    const delta = await moved({ accounts: ['airdate_feed_snapshots'], episodes: ['airdate_feed_snapshot_episodes'] }, async () => {
      expect((await call(app, 'GET', '/api/machine/summary', { token: user.token })).status).toBe(200);
    });
    expect(delta).toEqual({ accounts: 1, episodes: 4 });
  });

  it('shows every bounded cache with what it holds and its bound: a first summary, calendar and gzip answer each add theirs', async () => {
    const user = await makeAccount();
    const show = await makeShow({ episodes: Array.from({ length: 40 }, (_, index) => ({ number: index + 1, airDate: today })) });
    await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
    const size = (cache: string, unit = 'entries') => ['airdate_cache_size', { cache, unit }] as [string, Record<string, string>];
    const delta = await moved(
      {
        summaries: size('summary-bodies'),
        feeds: size('feeds'),
        calendars: size('calendar-bodies'),
        tokens: size('token-checks'),
        compressed: size('compressed-bodies', 'bytes'),
      },
      async () => {
        expect((await call(app, 'GET', '/api/machine/summary', { token: user.token })).status).toBe(200);
        expect((await call(app, 'GET', '/api/machine/summary', { token: user.token, headers: { 'accept-encoding': 'gzip' } })).status).toBe(200);
        expect((await call(app, 'GET', `/api/calendar.ics?token=${user.token}`)).status).toBe(200);
      },
    );
    expect(delta).toMatchObject({ summaries: 1, feeds: 1, calendars: 1 });
    // The token check is kept on SQLite only (docs/operations.md "Caches"), and other tests' requests may run meanwhile.
    expect(delta.tokens).toBeGreaterThanOrEqual(0);
    expect(delta.compressed).toBeGreaterThan(0);
    const samples = await scrape();
    const caches = ['token-checks', 'token-last-used', 'session-last-seen', 'summary-bodies', 'releases-bodies', 'airing-bodies', 'widget-bodies', 'feeds', 'calendar-bodies', 'calendar-written-events', 'catalog-episodes', 'catalog-lookups', 'catalog-budgets', 'feed-snapshot-episodes', 'compressed-bodies'];
    for (const cache of caches) {
      const max = samples.find((sample) => sample.name === 'airdate_cache_max' && sample.labels.cache === cache);
      const held = samples.find((sample) => sample.name === 'airdate_cache_size' && sample.labels.cache === cache);
      expect(max?.value, cache).toBeGreaterThan(0);
      expect(held!.value, cache).toBeLessThanOrEqual(max!.value);
    }
  });

  it('counts GraphQL operations by name and outcome', async () => {
    const user = await makeAccount();
    const gql = (query: string, operationName?: string) => call(app, 'POST', '/graphql', { token: user.token, body: { query, operationName } });
    const delta = await moved(
      {
        named: ['airdate_graphql_operations_total', { operation: 'Viewer', outcome: 'ok' }],
        mistaken: ['airdate_graphql_operations_total', { operation: 'DeveloperSettings', outcome: 'error' }],
        anonymous: ['airdate_graphql_operations_total', { operation: '(anonymous)', outcome: 'ok' }],
        internal: ['airdate_graphql_operations_total', { operation: 'MachineSummary' }],
      },
      async () => {
        expect((await gql('query Viewer { viewer { name } }', 'Viewer')).json.data.viewer.name).toBe(user.name);
        expect((await gql('query Viewer { viewer { name } }')).status).toBe(200);
        expect((await gql('query DeveloperSettings { viewer { nope } }', 'DeveloperSettings')).json.errors).toHaveLength(1);
        expect((await gql('{ viewer { timezone } }')).status).toBe(200);
        // The REST facade runs its own operations: counted as HTTP requests, not here.
        expect((await call(app, 'GET', '/api/machine/summary', { token: user.token })).status).toBe(200);
      },
    );
    expect(delta).toEqual({ named: 2, mistaken: 1, anonymous: 1, internal: 0 });
  });

  it('labels only the names the server knows: made-up ones, from an account or from nobody, are (other); odd ones (invalid)', async () => {
    const user = await makeAccount();
    const labels = async () => new Set((await scrape()).filter((sample) => sample.name === 'airdate_graphql_operations_total').map((sample) => sample.labels.operation));
    const before = await labels();
    const delta = await moved(
      {
        other: ['airdate_graphql_operations_total', { operation: '(other)', outcome: 'ok' }],
        invalid: ['airdate_graphql_operations_total', { operation: '(invalid)' }],
        known: ['airdate_graphql_operations_total', { operation: 'AuthInfo', outcome: 'ok' }],
      },
      async () => {
        // An ordinary account (and anybody without one) naming its operations as it likes: none
        // gets a label (12: the account's rate limit here is 20 requests a minute).
        await Promise.all(
          Array.from({ length: 12 }, (_, index) => call(app, 'POST', '/graphql', { token: user.token, body: { query: `query Made${index} { viewer { name } }` } })),
        );
        for (let index = 0; index < 5; index++) {
          expect((await call(app, 'POST', '/graphql', { body: { query: `query Anonymous${index} { authInfo { signedIn } }` } })).status).toBe(200);
        }
        // Names that are no GraphQL name, given as operationName (the document's does not match them: a 400).
        for (const operationName of ['x'.repeat(5_000), 'a b', '{}', '\u0000', `Made${'9'.repeat(100)}`]) {
          await call(app, 'POST', '/graphql', { token: user.token, body: { query: '{ viewer { name } }', operationName } });
        }
        // The web app's own names are labelled, whoever sends them.
        expect((await call(app, 'POST', '/graphql', { body: { query: 'query AuthInfo { authInfo { signedIn } }' } })).status).toBe(200);
        expect((await call(app, 'POST', '/graphql', { token: user.token, body: { query: 'query AuthInfo { authInfo { signedIn } }' } })).status).toBe(200);
      },
    );
    expect(delta).toEqual({ other: 17, invalid: 5, known: 2 });
    expect([...(await labels())].filter((label) => !before.has(label)).sort()).toEqual(['(invalid)', '(other)', 'AuthInfo'].filter((label) => !before.has(label)).sort());
  });

  it('keeps one series per known name and outcome however many names are sent', async () => {
    const metrics = createMetrics();
    for (let index = 0; index < 10_000; index++) metrics.graphqlOperation({ operationName: `Made${index}`, outcome: 'ok' });
    for (const name of knownOperationNames) metrics.graphqlOperation({ operationName: name, outcome: 'ok' });
    const samples = parsePrometheusText(await metrics.registry!.metrics()).filter((sample) => sample.name === 'airdate_graphql_operations_total');
    expect(samples).toHaveLength(knownOperationNames.size + 1);
    expect(samples.find((sample) => sample.labels.operation === '(other)')?.value).toBe(10_000);
  });

  it('counts rate-limit refusals by limit', async () => {
    const user = await makeAccount();
    const delta = await moved(
      { refused: ['airdate_rate_limit_refusals_total', { limit: 'requests' }], tooMany: ['airdate_http_requests_total', { route: '/api/machine/summary', status: '429' }] },
      async () => {
        const statuses = [];
        for (let index = 0; index < ratePerMinute + 5; index++) statuses.push((await call(app, 'GET', '/api/machine/summary', { token: user.token })).status);
        expect(statuses.filter((status) => status === 429)).toHaveLength(5);
      },
    );
    expect(delta).toEqual({ refused: 5, tooMany: 5 });
  });

  it('counts imports by source and outcome, with the items written and the time taken', async () => {
    const user = await makeAccount();
    const movies = [await makeMovie({ title: 'Counted One' }), await makeMovie({ title: 'Counted Two' })];
    const plays = movies.map((movie, index) => traktMoviePlay(index + 1, '2024-05-01T20:00:00.000Z', movie.title, movie.tmdbId));
    let written = 0;
    const delta = await moved(
      {
        imported: ['airdate_imports_total', { source: 'trakt', outcome: 'imported' }],
        dryRun: ['airdate_imports_total', { source: 'trakt', outcome: 'dry_run' }],
        refused: ['airdate_imports_total', { source: 'trakt', outcome: 'refused' }],
        items: ['airdate_import_items_total', { source: 'trakt' }],
        timed: ['airdate_import_duration_seconds_count', { source: 'trakt' }],
      },
      async () => {
        expect((await upload(app, '/api/import/trakt?dryRun=true', user.token, { 'history.json': json(plays) })).status).toBe(200);
        const response = await upload(app, '/api/import/trakt', user.token, { 'history.json': json(plays) });
        expect(response.status).toBe(200);
        written = Object.values(response.json.imported as Record<string, number>).reduce((sum, count) => sum + count, 0);
        expect((await upload(app, '/api/import/trakt', user.token, { 'history.json': json({ not: 'trakt' }) })).status).toBe(400);
      },
    );
    expect(written).toBeGreaterThanOrEqual(4);
    expect(delta).toEqual({ imported: 1, dryRun: 1, refused: 1, items: written, timed: 3 });
  });

  it('counts catalog requests by catalog and outcome, one for each request the catalog received', async () => {
    const user = await makeAccount();
    const received = tmdb.requests.length;
    const delta = await moved(
      {
        all: ['airdate_catalog_requests_total', { catalog: 'tmdb' }],
        ok: ['airdate_catalog_requests_total', { catalog: 'tmdb', outcome: 'ok' }],
        clientError: ['airdate_catalog_requests_total', { catalog: 'tmdb', outcome: 'client_error' }],
        timed: ['airdate_catalog_request_duration_seconds_count', { catalog: 'tmdb' }],
      },
      async () => {
        const search = await call(app, 'POST', '/graphql', { token: user.token, body: { query: '{ searchCatalog(query: "Metric Show", kind: SHOW) { ... on Show { title } } }' } });
        expect(search.json, search.text).toEqual({ data: { searchCatalog: [{ title: 'Metric Show' }] } });
        const missing = await call(app, 'POST', '/graphql', { token: user.token, body: { query: '{ catalogLookup(externalId: 987654321, kind: SHOW, source: TMDB) { ... on Show { title } } }' } });
        expect(missing.status).toBe(200);
      },
    );
    const sent = tmdb.requests.length - received;
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(delta.all).toBe(sent);
    expect(delta.timed).toBe(sent);
    expect(delta.ok).toBeGreaterThanOrEqual(1);
    expect(delta.clientError).toBeGreaterThanOrEqual(1);
  });

  it('counts job runs with their duration and queue lag, and webhook deliveries by outcome and attempt', async () => {
    const receiver = await startWebhookReceiver();
    const user = await makeAccount();
    await updateAccount({ name: user.name, webhookUrl: receiver.url });
    const movie = await makeMovie({ releaseDate: today });
    const show = await makeShow({ episodes: [{ number: 1, airDate: today }] });
    await setFollow({ accountId: user.id, kind: 'movie', id: movie.id, followed: true });
    await setFollow({ accountId: user.id, kind: 'show', id: show.id, followed: true });
    const series = {
      syncs: ['airdate_job_runs_total', { job_name: jobNames.accountSync, outcome: 'success' }],
      syncLag: ['airdate_job_queue_lag_seconds_count', { job_name: jobNames.accountSync }],
      syncLagSeconds: ['airdate_job_queue_lag_seconds_sum', { job_name: jobNames.accountSync }],
      syncTime: ['airdate_job_duration_seconds_count', { job_name: jobNames.accountSync }],
      deliveryRuns: ['airdate_job_runs_total', { job_name: jobNames.delivery, outcome: 'success' }],
      delivered: ['airdate_webhook_deliveries_total', { outcome: 'success', attempt: '1' }],
    } satisfies Record<string, [string, Record<string, string>]>;
    const before = await scrape();
    const delta = async () => {
      const now = await scrape();
      return Object.fromEntries(Object.entries(series).map(([key, [name, labels]]) => [key, sampleSum(now, name, labels) - sampleSum(before, name, labels)]));
    };
    await app.jobs.start();
    try {
      expect((await call(app, 'POST', '/api/machine/sync', { token: user.token })).status).toBe(200);
      // The sync's run is counted when its handler returns, which may be after the deliveries it
      // queued have run: wait for both.
      await waitFor('two deliveries and the sync counted', async () => receiver.received.length === 2 && (await delta()).deliveryRuns === 2 && (await delta()).syncs === 1, 20_000);
      const counted = await delta();
      expect(counted).toEqual({ syncs: 1, syncLag: 1, syncLagSeconds: expect.any(Number), syncTime: 1, deliveryRuns: 2, delivered: 2 });
      // Queued to run now and started by this process at once (jobs saved here need no poll).
      expect(counted.syncLagSeconds).toBeLessThan(5);
    } finally {
      await app.jobs.stop(2_000);
    }
  });
});
