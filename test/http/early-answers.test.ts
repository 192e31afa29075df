import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { regenerateToken } from '../../src/accounts/tokens.ts';
import { createHttpServer, type ServedApp } from '../../src/http/node-server.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { captureLog } from '../support/log-capture.ts';
import { parsePrometheusText, sampleSum } from '../support/prometheus-text.ts';
import { rawRequest, type RawResponse } from '../support/raw-http.ts';

// The feeds' and the calendar's conditional GETs and 401s answered on Node's own request
// (src/early-answers.ts) must be the answers the ordinary way gives: two servers on one app, one
// as `serve` builds it, one without the early answers, asked the same things.

const ratePerMinute = 40;
const metricsToken = 'metrics-token-0123456789abcdef';
const log = captureLog();
const { app } = await useTestApp({ AIRDATE_LOG_LEVEL: 'info', AIRDATE_METRICS_TOKEN: metricsToken, AIRDATE_RATE_LIMIT_PER_MINUTE: String(ratePerMinute) }, { logDestination: log.destination });

/** Requests the served app's `fetch` answered (the ordinary way) on the server with early answers. */
let ordinary = 0;
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});
async function listen(served: ServedApp): Promise<number> {
  const server = createHttpServer(served);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}
const early = await listen({ logger: app.logger, answerEarly: app.answerEarly, fetch: (request, context) => ((ordinary += 1), app.fetch(request, context)) });
const plain = await listen({ logger: app.logger, fetch: app.fetch });

/** One request to `port`, its headers as given (the same Host on both servers). */
async function send(port: number, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const lines = Object.entries({ host: 'localhost:3000', connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  const [response] = await rawRequest(port, `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`);
  return response!;
}

/** The answers of both servers, which must be the same but for their dates; `early`: whether the early answers took it. */
async function both(target: string, headers: Record<string, string>, method = 'GET'): Promise<{ response: RawResponse; early: boolean }> {
  const before = ordinary;
  const fast = await send(early, target, headers, method);
  const taken = ordinary === before;
  const slow = await send(plain, target, headers, method);
  const { date: _fastDate, ...fastHeaders } = fast.headers;
  const { date: _slowDate, ...slowHeaders } = slow.headers;
  expect({ status: fast.status, headers: fastHeaders, body: fast.body }, `${method} ${target}`).toEqual({ status: slow.status, headers: slowHeaders, body: slow.body });
  return { response: fast, early: taken };
}

const paths = ['/api/machine/summary', '/api/machine/releases', '/api/machine/airing', '/api/machine/widget', '/api/calendar.ics'];

async function scrape() {
  const response = await call(app, 'GET', '/metrics', { token: metricsToken });
  return parsePrometheusText(response.text);
}

describe('conditional GETs answered before the fetch objects exist', () => {
  it('answer every feed and the calendar as the ordinary way does: 304 by header or ?token=, GET or HEAD; a 200 when the ETag differs', async () => {
    for (const path of paths) {
      // An account a path, each within its rate limit.
      const account = await makeAccount();
      const auth = { authorization: `Bearer ${account.token}`, 'x-request-id': 'early-same-1' };
      const first = await both(path, auth);
      expect(first.response.status).toBe(200);
      expect(first.early).toBe(false);
      const etag = first.response.headers.etag!;
      const notModified = await both(path, { ...auth, 'if-none-match': etag });
      expect(notModified).toMatchObject({ early: true, response: { status: 304, body: '' } });
      expect(notModified.response.headers).toMatchObject({ etag, 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff', 'x-request-id': 'early-same-1' });
      expect((await both(path, { ...auth, 'if-none-match': `W/${etag}, "other"` })).early).toBe(true);
      expect((await both(path, { ...auth, 'if-none-match': etag }, 'HEAD')).response.status).toBe(304);
      const query = await both(`${path}?token=${account.token}`, { 'if-none-match': etag, 'x-request-id': 'early-same-1' });
      expect(query).toMatchObject({ early: true, response: { status: 304 } });
      // Not the kept ETag: the ordinary way answers the 200 (with the account already found).
      const changed = await both(path, { ...auth, 'if-none-match': '"something-else"' });
      expect(changed).toMatchObject({ early: false, response: { status: 200 } });
    }
  });

  it('answer a refused token with the same 401, and leave no token, a refused host or a malformed parameter to the ordinary way', async () => {
    const account = await makeAccount();
    const unknown = `${account.token.slice(0, -6)}zzzzzz`;
    for (const path of paths) {
      for (const authorization of [`Bearer ${unknown}`, 'Basic abc', `Bearer ${'x'.repeat(600)}`]) {
        const refused = await both(path, { authorization, 'x-request-id': 'early-401', 'if-none-match': '"x"' });
        expect(refused).toMatchObject({ early: true, response: { status: 401 } });
        expect(refused.response.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', vary: 'Accept-Encoding', 'content-type': 'application/json; charset=utf-8' });
      }
      expect(await both(`${path}?token=${unknown}`, { 'x-request-id': 'early-401' })).toMatchObject({ early: true, response: { status: 401 } });
      expect(await both(path, { 'x-request-id': 'early-none' })).toMatchObject({ early: false, response: { status: 401 } });
      const auth = { authorization: `Bearer ${account.token}`, 'x-request-id': 'early-other' };
      expect(await both(path, { ...auth, host: 'evil.example', 'if-none-match': '"x"' })).toMatchObject({ early: false, response: { status: 400 } });
    }
    const auth = { authorization: `Bearer ${account.token}`, 'x-request-id': 'early-400' };
    const calendar = await both('/api/calendar.ics', auth);
    expect(await both('/api/calendar.ics?past=abc', { ...auth, 'if-none-match': calendar.response.headers.etag! })).toMatchObject({ early: false, response: { status: 400 } });
    const summary = await both('/api/machine/summary', auth);
    expect(await both('/api/machine/summary?limit=1&limit=2', { ...auth, 'if-none-match': summary.response.headers.etag! })).toMatchObject({ early: false, response: { status: 400 } });
    // Another account's ETag is no match.
    const other = await makeAccount();
    expect(await both('/api/machine/summary', { authorization: `Bearer ${other.token}`, 'x-request-id': 'early-other', 'if-none-match': summary.response.headers.etag! })).toMatchObject({ early: false, response: { status: 200 } });
  });

  it('are counted against the rate limit, logged with their request id and counted in /metrics', async () => {
    const account = await makeAccount();
    const auth = { authorization: `Bearer ${account.token}` };
    const etag = (await send(early, '/api/machine/summary', auth)).headers.etag!;
    const before = await scrape();
    const statuses: number[] = [];
    for (let sent = 1; sent < ratePerMinute; sent += 1) {
      statuses.push((await send(early, '/api/machine/summary', { ...auth, 'if-none-match': etag, 'x-request-id': `early-limit-${sent}` })).status);
    }
    expect(statuses.every((status) => status === 304)).toBe(true);
    // The limit is used up, early and the ordinary way alike.
    const tooMany = await both('/api/machine/summary', { ...auth, 'if-none-match': etag, 'x-request-id': 'early-429' });
    expect(tooMany).toMatchObject({ early: true, response: { status: 429 } });
    expect(Number(tooMany.response.headers['retry-after'])).toBeGreaterThan(0);
    const after = await scrape();
    const moved = (labels: Record<string, string>) => sampleSum(after, 'airdate_http_requests_total', labels) - sampleSum(before, 'airdate_http_requests_total', labels);
    expect(moved({ route: '/api/machine/summary', status: '304' })).toBe(ratePerMinute - 1);
    expect(moved({ route: '/api/machine/summary', status: '429' })).toBe(2);
    expect(sampleSum(after, 'airdate_rate_limit_refusals_total', { limit: 'requests' }) - sampleSum(before, 'airdate_rate_limit_refusals_total', { limit: 'requests' })).toBe(2);
    const line = log.records().find((record) => record.reqId === 'early-limit-7' && record.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', route: '/api/machine/summary', status: 304, accountId: account.id });
    expect(log.text()).not.toContain(account.token);
  });

  it('refuse a regenerated token at once, and never answer another account from a kept ETag', async () => {
    const account = await makeAccount();
    const auth = { authorization: `Bearer ${account.token}` };
    const etag = (await send(early, '/api/calendar.ics', auth)).headers.etag!;
    expect((await send(early, '/api/calendar.ics', { ...auth, 'if-none-match': etag })).status).toBe(304);
    await regenerateToken({ accountId: account.id });
    expect(await both('/api/calendar.ics', { ...auth, 'if-none-match': etag, 'x-request-id': 'early-old' })).toMatchObject({ early: true, response: { status: 401 } });
  });
});
