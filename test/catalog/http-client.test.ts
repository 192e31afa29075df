import { describe, expect, it } from 'vitest';
import { CatalogHttpError, createCatalogHttp, type CatalogHttpOptions } from '../../src/catalog/http-client.ts';
import { asCatalogCaller } from '../../src/catalog/catalog-caller.ts';
import { CatalogBudgetSpent, createCatalogBudgets } from '../../src/catalog/catalog-budget.ts';
import { parseRetryAfter } from '../../src/http/outbound-errors.ts';
import type { Answer } from './support/catalog-peer.ts';
import { deadUrl, startCatalogServer } from './support/catalog-server.ts';
import { fakeClock, stampingFetch } from './support/fake-clock.ts';

/** Answers each request with the next scripted answer (the last one repeats). */
function script(...answers: Answer[]) {
  let index = 0;
  return () => answers[Math.min(index++, answers.length - 1)]!;
}

const server = await startCatalogServer(() => ({ json: {} }));

function client(overrides: Partial<CatalogHttpOptions> = {}) {
  const clock = fakeClock();
  const http = createCatalogHttp({ provider: 'tmdb', requestsPerSecond: 50, clock, random: () => 0.5, ...overrides });
  return { http, clock };
}

const at = (path: string) => new URL(`${server.url}${path}`);

/** The error `promise` rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<CatalogHttpError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(CatalogHttpError);
  return outcome as CatalogHttpError;
}

describe('catalog HTTP client: retries', () => {
  it('waits as long as a 429 Retry-After (seconds) asks, then succeeds', async () => {
    server.setRoute(script({ status: 429, headers: { 'retry-after': '7' } }, { json: { ok: 1 } }));
    const { http, clock } = client();
    expect(await http.json({ url: at('/r429') })).toEqual({ ok: 1 });
    expect(server.seen('/r429')).toHaveLength(2);
    expect(clock.sleeps).toContain(7000);
  });

  it('reads Retry-After as an HTTP date, and caps long waits', async () => {
    const { http, clock } = client({ maxRetryWaitMs: 60_000 });
    const inFiveSeconds = new Date(clock.now() + 5000).toUTCString();
    server.setRoute(script({ status: 429, headers: { 'retry-after': inFiveSeconds } }, { status: 429, headers: { 'retry-after': '3600' } }, { json: [1] }));
    expect(await http.json({ url: at('/rdate') })).toEqual([1]);
    expect(clock.sleeps.filter((ms) => ms >= 1000)).toEqual([5000, 60_000]);
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });

  it('retries a 500 after a jittered exponential backoff, then succeeds', async () => {
    server.setRoute(script({ status: 500, text: 'boom' }, { status: 502 }, { json: { fine: true } }));
    const { http, clock } = client({ retryBaseMs: 400 });
    expect(await http.json({ url: at('/r500') })).toEqual({ fine: true });
    expect(server.seen('/r500')).toHaveLength(3);
    // random() = 0.5 → factor 0.75: 400·0.75, then 800·0.75.
    expect(clock.sleeps).toEqual([300, 600]);
  });

  it('gives up after the last attempt with a clear error naming provider, method and path', async () => {
    server.setRoute(() => ({ status: 503, text: 'down for maintenance' }));
    const { http } = client({ maxAttempts: 3 });
    const error = await failure(http.json({ url: at('/always-down') }));
    expect(error.message).toBe('tmdb GET /always-down: HTTP 503 down for maintenance (gave up after 3 attempts)');
    expect(error.status).toBe(503);
    expect(server.seen('/always-down')).toHaveLength(3);
  });

  it('does not retry other 4xx answers', async () => {
    server.setRoute(() => ({ status: 404, json: { status_message: 'not found' } }));
    const { http } = client();
    const error = await failure(http.json({ url: at('/missing') }));
    expect(error.status).toBe(404);
    expect(server.seen('/missing')).toHaveLength(1);
  });

  it('times out a request that never answers, and retries it', async () => {
    server.setRoute(() => 'hang');
    const { http } = client({ timeoutMs: 50, maxAttempts: 2 });
    const error = await failure(http.json({ url: at('/slow') }));
    expect(error.message).toBe('tmdb GET /slow: no answer within 50 ms (gave up after 2 attempts)');
    expect(server.seen('/slow')).toHaveLength(2);
  });

  it('reports a refused connection as a network error', async () => {
    const { http } = client({ maxAttempts: 2 });
    const error = await failure(http.json({ url: new URL(`${await deadUrl()}/tv/1`) }));
    expect(error.message).toMatch(/^tmdb GET \/tv\/1: network error: connection refused \(gave up after 2 attempts\)$/);
    expect(error.status).toBeUndefined();
  });

  it('reports a body that is not JSON', async () => {
    server.setRoute(() => ({ text: '<html>gateway</html>' }));
    const { http } = client();
    const error = await failure(http.json({ url: at('/html') }));
    expect(error.message).toMatch(/^tmdb GET \/html: the response is not JSON \(/);
  });

  it('never puts the API key in an error message, even when the server echoes it', async () => {
    const key = 'c0ffee-secret-key-1234';
    server.setRoute((request) => ({ status: 401, json: { status_message: `Invalid API key: ${request.query.get('api_key')}` } }));
    const { http } = client({ secrets: [key] });
    const url = at('/movie/5');
    url.searchParams.set('api_key', key);
    const error = await failure(http.json({ url }));
    expect(error.message).toContain('tmdb GET /movie/5: HTTP 401');
    expect(error.message).toContain('Invalid API key: ***');
    expect(error.message).not.toContain(key);
    expect(error.message).not.toContain('api_key');
  });
});

describe('catalog HTTP client: rate limit', () => {
  it('sends at most N requests in any one-second window, background ones spread evenly over it', async () => {
    server.setRoute(() => ({ json: {} }));
    const clock = fakeClock();
    const http = createCatalogHttp({ provider: 'igdb', requestsPerSecond: 4, clock, fetch: stampingFetch(clock) });
    await Promise.all(Array.from({ length: 12 }, (_, index) => http.json({ url: at(`/limited/${index}`) })));
    const sent = server.seen(/^\/limited\//).map((request) => Number(request.headers['x-sent-at']) - clock.start);
    expect(sent).toHaveLength(12);
    sent.sort((a, b) => a - b);
    for (let index = 0; index + 4 < sent.length; index += 1) expect(sent[index + 4]! - sent[index]!).toBeGreaterThanOrEqual(1000);
    // Per one-second window: four, three times, a quarter of a second apart.
    expect(sent.slice(1).map((time, index) => time - sent[index]!)).toEqual(Array.from({ length: 11 }, () => 250));
    const perWindow = new Map<number, number>();
    for (const time of sent) perWindow.set(Math.floor(time / 1000), (perWindow.get(Math.floor(time / 1000)) ?? 0) + 1);
    expect([...perWindow.entries()]).toEqual([[0, 4], [1, 4], [2, 4]]);
  });

  it('keeps at most maxOpenRequests requests open', async () => {
    const total = 20;
    let open = 0;
    let mostOpen = 0;
    const held: (() => void)[] = [];
    let received = 0;
    // Holds answers until 8 are open (or every request has arrived), then a little longer before
    // answering, so that a client ignoring the cap gets its further requests seen as open too.
    server.setRoute(
      () =>
        new Promise<Answer>((resolve) => {
          open += 1;
          received += 1;
          mostOpen = Math.max(mostOpen, open);
          held.push(() => {
            open -= 1;
            resolve({ json: {} });
          });
          if (open >= 8 || received === total) setTimeout(() => held.splice(0).forEach((release) => release()), 25);
        }),
    );
    const { http } = client({ requestsPerSecond: 1000, maxOpenRequests: 8 });
    await Promise.all(Array.from({ length: total }, (_, index) => http.json({ url: at(`/open/${index}`) })));
    expect(received).toBe(total);
    expect(mostOpen).toBe(8);
  });

  it('sends a person’s request before the background requests queued ahead of it, within the same rate', async () => {
    server.setRoute(() => ({ json: {} }));
    const clock = fakeClock();
    const http = createCatalogHttp({ provider: 'tmdb', requestsPerSecond: 1, clock, fetch: stampingFetch(clock) });
    const background = Array.from({ length: 6 }, (_, index) => http.json({ url: at(`/queued/${index}`) }));
    const search = asCatalogCaller({ priority: 'interactive' }, () => http.json({ url: at('/queued/search') }));
    await Promise.all([...background, search]);
    const sentAt = (path: string) => Number(server.seen(path)[0]!.headers['x-sent-at']) - clock.start;
    // One a second: the first background request had gone; the search takes the next slot, the
    // five other background requests the slots after it (it was asked for after all of them).
    expect(sentAt('/queued/search')).toBe(1000);
    expect(Array.from({ length: 6 }, (_, index) => sentAt(`/queued/${index}`))).toEqual([0, 2000, 3000, 4000, 5000, 6000]);
  });
});

describe('catalog HTTP client: budgets', () => {
  it('charges each request sent (retries included) to its caller’s budget, and sends none past it', async () => {
    server.setRoute(script({ status: 500 }, { json: {} }));
    const clock = fakeClock();
    const budget = createCatalogBudgets(3, () => clock.now()).of('media-server:1', 'media-server connection 1')!;
    const http = createCatalogHttp({ provider: 'tmdb', requestsPerSecond: 50, clock, random: () => 0.5 });
    const before = server.requests.length;
    // A 500 then its retry: two requests of three.
    await asCatalogCaller({ priority: 'background', budget }, () => http.json({ url: at('/budget/1') }));
    await asCatalogCaller({ priority: 'background', budget }, () => http.json({ url: at('/budget/2') }));
    const refused = await asCatalogCaller({ priority: 'background', budget }, () => http.json({ url: at('/budget/3') })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CatalogBudgetSpent);
    expect((refused as Error).message).toBe('the catalog request budget of media-server connection 1 is spent for now');
    expect(server.requests.slice(before).map((request) => request.path)).toEqual(['/budget/1', '/budget/1', '/budget/2']);
    // Another caller, and requests outside any, are not charged to it.
    await http.json({ url: at('/budget/unbudgeted') });
    // An hour refills it whole (3 an hour: one every 20 minutes).
    await clock.sleep(20 * 60_000);
    await asCatalogCaller({ priority: 'background', budget }, () => http.json({ url: at('/budget/4') }));
    expect(server.seen(/^\/budget\//).map((request) => request.path).slice(-2)).toEqual(['/budget/unbudgeted', '/budget/4']);
  });
});

