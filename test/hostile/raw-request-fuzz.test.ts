import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createHttpServer } from '../../src/http/node-server.ts';
import { useTestApp } from '../support/database.ts';
import { rawRequest } from '../support/raw-http.ts';
import { accountState, fuzzOptions, makeLibraryAccount } from './support.ts';

// Request heads of any shape, as bytes on a socket, to the Node server `serve` runs
// (createHttpServer): methods, request targets (origin, absolute and asterisk forms, odd encodings,
// control bytes, non-ASCII), HTTP versions, Host headers and other header lines. Whatever
// arrives: one answer, never a 5xx, a JSON body on refusals, no error logged, the server alive,
// nothing of the account changed.

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0', AIRDATE_LOG_LEVEL: 'silent' });
const errors = vi.spyOn(app.logger, 'error');
const server: Server = createHttpServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
afterAll(async () => {
  errors.mockRestore();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
const account = await makeLibraryAccount();

// /graphql is left to the GraphQL part of the hostile suite (its client mistakes are its own).
const paths = ['/healthz', '/readyz', '/api/machine/summary', '/api/machine/follow', '/api/calendar.ics', '/api/export', '/api/import/trakt', '/', '/nope'];
const noise = ['', '', '%00', '%ZZ', '%C0%AF', '%ED%A0%80', '%E0%A4%A', '/..', '//', '\\', '?x=%ZZ', `?token=${account.token}`, '?token=', '#frag', ';a=b', '/%2e%2e/'];
/** Any byte but CR and LF (those end the request line), as a latin1 character. */
const lineByte = fc.integer({ min: 0, max: 255 }).filter((byte) => byte !== 10 && byte !== 13).map((byte) => String.fromCharCode(byte));
const junk = (maxLength: number) => fc.array(lineByte, { maxLength }).map((bytes) => bytes.join(''));

const target = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...noise)).map(([path, tail]) => `${path}${tail}`) },
  fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'javascript:'), fc.constantFrom('other.host', '[::1]', '[::1', 'a:99999', 'user:pw@h', ''), fc.constantFrom(...paths)).map((parts) => parts.join('')),
  fc.constantFrom('*', '', '/', 'healthz', '%2F', '/'.repeat(300), `/${'a'.repeat(9_000)}`),
  junk(40).map((bytes) => `/${bytes}`),
);
const hostValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('localhost', `127.0.0.1:${port}`) },
  fc.constantFrom('localhost', `127.0.0.1:${port}`, '[::1]', '[::1', 'a/b', 'x:99999', '', ' ', 'h\u00e9', '%41', '%zz', 'a b', '[fe80::1%25eth0]', 'user@h', 'h:', ':80'),
  junk(20),
);
const headerLine = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(`Authorization: Bearer ${account.token}`, 'Accept: */*', 'User-Agent: fuzz') },
  fc.constantFrom('Expect: 100-continue', 'Expect: nonsense', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip', 'Content-Length: 0', 'Content-Length: -1', 'Content-Length: x', 'Connection: close', 'Connection: Upgrade', 'Upgrade: websocket', 'Content-Type: multipart/form-data', 'Accept: text/html'),
  fc.constantFrom(`Authorization: Bearer ${account.token}`, 'Authorization: Bearer', 'Authorization: Basic x'),
  fc.tuple(junk(12), junk(30)).map(([name, value]) => `${name}: ${value}`),
  junk(30),
);
/** Mostly well-formed, so that requests get past the parser to the app as well. */
const head = fc.record({
  method: fc.oneof({ weight: 4, arbitrary: fc.constant('GET') }, fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'G\u00e9T', 'BREW', '')),
  target,
  version: fc.oneof({ weight: 4, arbitrary: fc.constant(' HTTP/1.1') }, fc.constantFrom(' HTTP/1.0', ' HTTP/2.0', ' HTTP/9.9', ' HTTP/1.1 ', ' http/1.1', '')),
  hosts: fc.oneof({ weight: 4, arbitrary: fc.array(hostValue, { minLength: 1, maxLength: 1 }) }, fc.array(hostValue, { maxLength: 2 })),
  headers: fc.array(headerLine, { maxLength: 3 }),
});

describe('raw request heads of any shape (property)', () => {
  it('each get one answer, never a 5xx, JSON on refusal, and leave the server alive and the data unchanged', async () => {
    const before = await accountState(account.id);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(head, async (input) => {
        const lines = [`${input.method} ${input.target}${input.version}`, ...input.hosts.map((host) => `Host: ${host}`), ...input.headers];
        // Chunked requests get their last chunk, so every request is complete as sent.
        const bytes = `${lines.join('\r\n')}\r\n\r\n${input.headers.includes('Transfer-Encoding: chunked') ? '0\r\n\r\n' : ''}`;
        const responses = await rawRequest(port, bytes, { holdMs: 3_000 });
        const context = `${JSON.stringify(bytes.slice(0, 300))} → ${responses[0]?.raw.slice(0, 300) ?? 'no answer'}`;
        expect(responses.length, context).toBeGreaterThanOrEqual(1);
        const final = responses.find((response) => response.status >= 200)!;
        expect(final, context).toBeDefined();
        statuses.set(final.status, (statuses.get(final.status) ?? 0) + 1);
        expect(final.status, context).toBeLessThan(500);
        expect(errors, context).not.toHaveBeenCalled();
        if (final.status >= 400) {
          expect(final.headers['content-type'], context).toMatch(/^application\/(graphql-response\+)?json/);
          // GraphQL's own refusals are GraphQL responses ({"errors": …}); every other one is {"error"}.
          if (!/graphql/i.test(input.target)) expect(Object.keys(JSON.parse(final.body)), context).toEqual(['error']);
        }
      }),
      fuzzOptions,
    );
    // The fuzz reached the app as well as the edge: answers from routes and refusals of both.
    const answeredByRoutes = [200, 401, 404, 405].reduce((sum, status) => sum + (statuses.get(status) ?? 0), 0);
    expect(answeredByRoutes, JSON.stringify([...statuses])).toBeGreaterThan(fuzzOptions.numRuns / 5);
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(fuzzOptions.numRuns / 20);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThanOrEqual(4);
    expect(await accountState(account.id)).toEqual(before);
    const [health] = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(health!.status).toBe(200);
  }, 300_000);
});
