import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Request as AdapterRequest } from '@whatwg-node/fetch';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { db } from '../../src/db/client.ts';
import { createHttpServer } from '../../src/http/node-server.ts';
import { httpLimits, type HttpLimits } from '../../src/limits.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { rawRequest, type RawResponse } from '../support/raw-http.ts';

// The Node server exactly as `serve` builds it (createHttpServer, src/main.ts), driven with exact
// bytes over raw sockets: request shapes fetch() and curl never send.

const { app } = await useTestApp({ AIRDATE_LOG_LEVEL: 'silent', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

async function listen(limits: HttpLimits = httpLimits): Promise<number> {
  const server = createHttpServer(app, limits);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const port = await listen();
const host = `Host: 127.0.0.1:${port}\r\n`;
const account = await makeAccount();
const auth = `Authorization: Bearer ${account.token}\r\n`;
const errors = vi.spyOn(app.logger, 'error');
const infos = vi.spyOn(app.logger, 'info');
beforeEach(() => {
  errors.mockClear();
  infos.mockClear();
});

/** Sends `bytes`, expects exactly one answer and returns it. */
async function exchange(bytes: string, options: { holdMs?: number } = {}): Promise<RawResponse> {
  const responses = await rawRequest(port, bytes, options);
  expect(responses, `no answer to ${JSON.stringify(bytes.slice(0, 120))}`).toHaveLength(1);
  return responses[0]!;
}

/** The answer is a JSON `{"error"}` refusal with `status` whose message matches `message`. */
function expectRefusal(response: RawResponse, status: number, message: RegExp): void {
  expect(response.status, response.raw).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatch(message);
  // Refusals Node answers before the app sees the request carry a request id too.
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

/** The server still answers a plain request, and nothing was logged as an unexpected error. */
async function expectHealthy(): Promise<void> {
  const health = await exchange(`GET /healthz HTTP/1.1\r\n${host}\r\n`);
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toEqual({ ok: true });
  expect(errors).not.toHaveBeenCalled();
}

/** Some line logged at info says the request was refused, with `text` in it. */
function expectLoggedAtInfo(text: RegExp): void {
  // A line is logged as (message) or as (fields, message).
  expect(infos.mock.calls.map((args: unknown[]) => args.filter((arg) => typeof arg === 'string').join(' ')).join('\n')).toMatch(text);
}

describe('request targets and Host headers the app cannot take as they are', () => {
  it('refuses the asterisk-form target with a 400 naming it, for OPTIONS and other methods', async () => {
    expectRefusal(await exchange(`OPTIONS * HTTP/1.1\r\n${host}\r\n`), 400, /request target \* names no resource.*OPTIONS of a path/);
    expectRefusal(await exchange(`GET * HTTP/1.1\r\n${host}\r\n`), 400, /request target \* names no resource/);
    expectLoggedAtInfo(/refused OPTIONS \*: /);
    await expectHealthy();
  });

  it('serves an absolute-form target by its path and query, ignoring the Host header as RFC 9112 says', async () => {
    const summary = await exchange(`GET http://other.lan/api/machine/summary HTTP/1.1\r\n${host}${auth}\r\n`);
    expect(summary.status).toBe(200);
    expect(JSON.parse(summary.body)).toHaveProperty('counts');
    // A broken Host next to an absolute-form target does not matter; ?token= in it works.
    const viaQuery = await exchange(`GET http://other.lan:9/api/machine/summary?token=${account.token} HTTP/1.1\r\nHost: [::1\r\n\r\n`);
    expect(viaQuery.status).toBe(200);
    // No path at all is `/` (the web app), answered as a plain `GET /` is.
    const root = await exchange(`GET http://other.lan HTTP/1.1\r\n${host}\r\n`);
    const plainRoot = await exchange(`GET / HTTP/1.1\r\n${host}\r\n`);
    expect([root.status, root.body]).toEqual([plainRoot.status, plainRoot.body]);
    expectRefusal(await exchange(`GET http://other.lan/nowhere.json HTTP/1.1\r\n${host}\r\n`), 404, /^no such endpoint: GET \/nowhere\.json$/);
    expectRefusal(await exchange(`GET ftp://other.host/healthz HTTP/1.1\r\n${host}\r\n`), 400, /scheme must be http or https, not ftp:/);
    // A target without // is refused by Node's parser already.
    expectRefusal(await exchange(`GET mailto:someone@example.com HTTP/1.1\r\n${host}\r\n`), 400, /malformed HTTP request/);
    await expectHealthy();
  });

  it('refuses a missing, repeated or malformed Host on HTTP/1.1 with a 400, and serves HTTP/1.0 without one', async () => {
    const cases: [string, RegExp][] = [
      ['Host: [::1\r\n', /Host header is not a valid host\[:port\]/],
      ['Host: [::1]x\r\n', /Host header is not a valid/],
      ['Host: [not:an:ip]\r\n', /Host header is not a valid/],
      [`Host: 127.0.0.1:99999\r\n`, /Host header is not a valid/],
      ['Host: a/b\r\n', /Host header is not a valid/],
      ['Host: a b\r\n', /Host header is not a valid/],
      ['Host: user@evil\r\n', /Host header is not a valid/],
      ['Host: %zz\r\n', /Host header is not a valid/],
      ['Host: 1.2.3.999\r\n', /Host header is not a valid/],
      ['Host: caf\u00e9.example\r\n', /Host header is not a valid/],
      ['Host: a\r\nHost: b\r\n', /more than one Host header/],
      ['', /Host header is missing/],
    ];
    for (const [hostLines, message] of cases) {
      const refused = await exchange(`GET /healthz HTTP/1.1\r\n${hostLines}\r\n`);
      expectRefusal(refused, 400, message);
      expect(refused.headers.connection).toBe('close');
    }
    // A body sent along is not read: the connection closes after the answer (rawRequest would
    // wait 3 s for a second answer on an open one).
    const sent = performance.now();
    const withBody = await rawRequest(port, `POST /api/machine/sync HTTP/1.1\r\nHost: [::1\r\nContent-Length: 100000000\r\n\r\n{}`, { expect: 2, holdMs: 3_000 });
    expect(performance.now() - sent).toBeLessThan(1_500);
    expect(withBody).toHaveLength(1);
    expectRefusal(withBody[0]!, 400, /Host header/);
    expectLoggedAtInfo(/refused GET \/healthz: the Host header is not a valid host\[:port\]/);
    for (const fine of ['Host: \r\n', 'Host: [::1]:4000\r\n', 'Host: airdate.lan\r\n', 'Host: localhost:4000\r\n', 'Host: 10.0.0.7\r\n']) {
      expect((await exchange(`GET /healthz HTTP/1.1\r\n${fine}\r\n`)).status, fine).toBe(200);
    }
    // A well-formed host this server does not answer to (allowed-hosts.ts), in the Host header or an absolute-form target.
    for (const request of ['GET /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n', `GET http://example.com/healthz HTTP/1.1\r\n${host}\r\n`]) {
      expectRefusal(await exchange(request), 400, /^this server does not answer to the host "example\.com": set AIRDATE_PUBLIC_URL/);
    }
    expect((await exchange('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
    await expectHealthy();
  });

  it('answers odd encodings and shapes of paths and query strings without a 5xx', async () => {
    const cases: [string, number][] = [
      ['/api/machine/summary%00', 404],
      ['/api/%C0%AF', 404], // overlong UTF-8 for "/"
      ['/api/%ED%A0%80', 404], // a lone surrogate, UTF-8 encoded
      ['/api/%E0%A4%A', 404],
      ['/%2e%2e/%2e%2e/etc/passwd', 404],
      ['/api/../healthz', 200],
      ['//healthz', 404],
      ['//evil.example/healthz', 404],
      ['/api\\machine\\summary', 200], // the URL parser reads \ as / in http URLs
      ['/healthz?x=%ZZ', 200],
      ['/healthz?%E0%A4%A=%FF%FE', 200],
      ['/healthz?x=\u00c3\u00a9', 400], // raw non-ASCII bytes: Node's parser refuses them
      ['/%F0%9F%98%80', 404],
      ['/healthz/', 200],
      ['/healthz;x=1', 404],
    ];
    for (const [path, status] of cases) {
      const response = await exchange(`GET ${path} HTTP/1.1\r\n${host}${auth}\r\n`);
      expect(response.status, `${path}: ${response.raw}`).toBe(status);
      expect(response.headers['content-type'], path).toMatch(/^application\/json/);
      expect(() => JSON.parse(response.body), path).not.toThrow();
    }
    // A bad ?token= is a 401, not a crash.
    expectRefusal(await exchange(`GET /api/machine/summary?token=%ZZ HTTP/1.1\r\n${host}\r\n`), 401, /invalid API token/);
    // A path near the header limit: the 404 quotes a bounded part of it.
    const long = `/${'a'.repeat(httpLimits.requestHeaderBytes - 200)}`;
    const notFound = await exchange(`GET ${long} HTTP/1.1\r\n${host}\r\n`);
    expectRefusal(notFound, 404, /^no such endpoint: GET \/a+…$/);
    expect(notFound.body.length).toBeLessThan(httpLimits.quotedTargetChars + 100);
    await expectHealthy();
  });
});

describe("requests Node's HTTP parser refuses (clientError)", () => {
  it('answers each with its status and a JSON body, closes the connection, and logs it at info', async () => {
    const cases: [string, number, RegExp][] = [
      ['GARBAGE\r\n\r\n', 400, /^malformed HTTP request: Invalid method/],
      ['GET healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, /^malformed HTTP request/],
      ['GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, /^malformed HTTP request/],
      ['GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 400, /^malformed HTTP request/],
      ['POST /api/machine/sync HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /Transfer-Encoding can't be present with Content-Length/],
      ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, /^malformed HTTP request/],
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(httpLimits.requestHeaderBytes)}\r\n\r\n`, 431, /request line and headers are over 16384 bytes/],
      [`GET /${'p'.repeat(httpLimits.requestHeaderBytes)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /over 16384 bytes/],
    ];
    for (const [bytes, status, message] of cases) {
      const response = await exchange(bytes);
      expectRefusal(response, status, message);
      expect(response.headers.connection).toBe('close');
      // The refusal's log line carries the id the answer gave the client.
      const logged = infos.mock.calls.filter((args: unknown[]) => String(args.at(-1)).startsWith("refused a request Node's HTTP parser could not take")).at(-1);
      expect((logged?.[0] as { reqId?: string } | undefined)?.reqId, String(bytes).slice(0, 40)).toBe(response.headers['x-request-id']);
    }
    expectLoggedAtInfo(/refused a request Node's HTTP parser could not take \(HPE_HEADER_OVERFLOW\): 431/);
    await expectHealthy();
  });

  it('answers a malformed request that follows a good one on the same connection after the first answer', async () => {
    const [first, second] = await rawRequest(port, `GET /healthz HTTP/1.1\r\n${host}\r\nGARBAGE\r\n\r\n`, { expect: 2 });
    expect(first!.status).toBe(200);
    expectRefusal(second!, 400, /malformed HTTP request/);
    await expectHealthy();
  });

  it('refuses a body whose chunked framing breaks off with a 400, and writes nothing of it', async () => {
    const show = await makeShow();
    const body = JSON.stringify({ kind: 'show', id: show.id, followed: true });
    const broken = `POST /api/machine/follow HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\nzz\r\n\r\n`;
    expectRefusal(await exchange(broken), 400, /malformed HTTP request: Invalid character in chunk size/);
    // The handler saw its body break off: no follow was stored, and nothing was logged as an error.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
    await expectHealthy();
    // The same body framed properly is taken (the refusal was about the framing).
    const fine = await exchange(`POST /api/machine/follow HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(fine.status).toBe(200);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('answers requests too slow to arrive with 408 (timeouts shortened for the test)', async () => {
    const slowPort = await listen({ ...httpLimits, headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckMs: 50 });
    const [headers] = await rawRequest(slowPort, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n`, { holdMs: 3_000 });
    expectRefusal(headers!, 408, /not received within 0.6 s \(its headers within 0.3 s\)/);
    const [body] = await rawRequest(slowPort, `POST /api/machine/sync HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{`, { holdMs: 3_000 });
    // The app was waiting for the body: the refusal is the answer to that request.
    expectRefusal(body!, 408, /not received within 0.6 s/);
    await expectHealthy();
  });
});

describe('what Node answers on its own otherwise', () => {
  it('gives an Expect other than 100-continue a JSON 417, and CONNECT a JSON 400', async () => {
    expectRefusal(await exchange(`GET /healthz HTTP/1.1\r\n${host}Expect: something-else\r\n\r\n`), 417, /only expectation served is "Expect: 100-continue"/);
    const connect = await exchange(`CONNECT other.host:443 HTTP/1.1\r\nHost: other.host:443\r\n\r\n`);
    expectRefusal(connect, 400, /CONNECT is not served: Airdate is not a proxy/);
    expect(connect.headers.connection).toBe('close');
    // Expect: 100-continue gets the interim answer and then the real one.
    const [interim, final] = await rawRequest(port, `GET /healthz HTTP/1.1\r\n${host}Expect: 100-continue\r\n\r\n`, { expect: 2 });
    expect([interim!.status, final!.status]).toEqual([100, 200]);
    await expectHealthy();
  });
});

describe('app.fetch on its own (tests and other adapters call it directly)', () => {
  it('answers 400 when the request URL cannot be parsed', async () => {
    // The server adapter's Request keeps whatever URL text it is given, as Node's request did.
    for (const url of ['http://localhost:4000*', 'http://[::1/healthz', 'http://localhost:99999/healthz']) {
      const response = await app.fetch(new AdapterRequest(url) as unknown as Request);
      expect(response.status, url).toBe(400);
      expect(await response.json()).toEqual({ error: 'the request URL cannot be read (check the request target and the Host header)' });
    }
    expect(errors).not.toHaveBeenCalled();
  });
});
