import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabaseEnv } from '../support/database.ts';
import { startServer, type ServerProcess } from '../support/processes.ts';
import { rawRequest } from '../support/raw-http.ts';

// The shapes of request that made `serve` answer 500 with a plain-text stack, or Node's bare
// answers, sent as exact bytes to a real serve process: main.ts must listen with the server
// test/http/edge.test.ts drives in-process.

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-edge-'));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a serve process at the edge', () => {
  it('answers odd request targets, broken Host headers and unparseable requests with JSON 4xx, logs them at info, and keeps serving', { timeout: 60_000 }, async () => {
    server = await startServer({ AIRDATE_DATA_DIR: dataDir, ...(await freshDatabaseEnv()) });
    const port = Number(new URL(server.baseUrl).port);
    const host = `Host: localhost:${port}\r\n`;
    const cases: [string, number, RegExp][] = [
      [`OPTIONS * HTTP/1.1\r\n${host}\r\n`, 400, /request target \* names no resource/],
      [`GET http://other.lan/api/machine/summary HTTP/1.1\r\n${host}\r\n`, 401, /missing API token/],
      // A host this server does not answer to (DNS rebinding), in an absolute-form target or the Host header.
      [`GET http://attacker.example/healthz HTTP/1.1\r\n${host}\r\n`, 400, /does not answer to the host "attacker\.example"/],
      ['GET /graphql HTTP/1.1\r\nHost: attacker.example:4000\r\n\r\n', 400, /does not answer to the host "attacker\.example"/],
      [`GET /api/machine/summary HTTP/1.1\r\nHost: [::1\r\n\r\n`, 400, /Host header is not a valid/],
      [`GET /healthz HTTP/1.1\r\nHost: localhost:99999\r\n\r\n`, 400, /Host header is not a valid/],
      [`GET /healthz HTTP/1.1\r\n${host}X-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, /over 16384 bytes/],
      ['GET /healthz HTT\r\n\r\n', 400, /malformed HTTP request/],
    ];
    for (const [bytes, status, message] of cases) {
      const [response] = await rawRequest(port, bytes);
      expect(response?.status, `${bytes.slice(0, 80)} → ${response?.raw}`).toBe(status);
      expect(response!.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response!.body)).toEqual({ error: expect.stringMatching(message) });
    }
    const [health] = await rawRequest(port, `GET http://localhost/healthz HTTP/1.1\r\n${host}\r\n`);
    expect(health?.status).toBe(200);
    expect(server.output()).toMatch(/"level":"info".*"msg":"refused OPTIONS \*: /);
    expect(server.output()).toMatch(/"level":"info".*"msg":"refused a request Node's HTTP parser could not take \(HPE_HEADER_OVERFLOW\)/);
    expect(server.output()).not.toMatch(/"level":"error"|TypeError|Invalid URL/);
  });
});
