import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { freshDatabaseEnv, testDatabaseKind, useTestDatabase } from '../support/database.ts';
import { parsePrometheusText, sampleSum } from '../support/prometheus-text.ts';
import { rawRequest } from '../support/raw-http.ts';
import { serverProcesses } from '../support/server-processes.ts';

/** AIRDATE_METRICS, AIRDATE_METRICS_TOKEN and AIRDATE_METRICS_PORT on real `serve` processes. */
const config = await useTestDatabase();
initSecretKey(config);
const serve = serverProcesses(config);
const token = 'scrape-token-0123456789abcdef';

describe('metrics settings', () => {
  it('AIRDATE_METRICS_TOKEN: 401 without the bearer token or with a wrong one, 200 with it', async () => {
    const server = await serve({ AIRDATE_METRICS_TOKEN: token });
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${token}x`, `Basic ${token}`, token]) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await response.json()).toEqual({ error: expect.stringContaining('AIRDATE_METRICS_TOKEN') });
    }
    await fetch(`${server.baseUrl}/healthz`);
    const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const samples = parsePrometheusText(await response.text());
    expect(sampleSum(samples, 'airdate_http_requests_total', { route: '/healthz', status: '200' })).toBe(1);
    expect(sampleSum(samples, 'airdate_http_requests_total', { route: '/metrics', status: '401' })).toBe(5);
  });

  it('by default (no token, no port of their own) /metrics is not served on the main port, and nothing is collected', async () => {
    const server = await serve({ AIRDATE_LOG_LEVEL: 'info' });
    for (const headers of [{}, { authorization: `Bearer ${token}` }, { accept: 'text/html' }] as Record<string, string>[]) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/^metrics are served on the main port only with a token: set AIRDATE_METRICS_TOKEN .* or AIRDATE_METRICS_PORT/) });
    }
    expect(server.output()).toContain('metrics are not collected: metrics are served on the main port only with a token');
  });

  it('AIRDATE_METRICS=off: /metrics is a JSON 404, also for a browser', async () => {
    const server = await serve({ AIRDATE_METRICS: 'off' });
    for (const accept of ['*/*', 'text/html']) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers: { accept } });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'no such endpoint: GET /metrics' });
    }
  });

  it('AIRDATE_METRICS_PORT: metrics on a port of their own (token too), and no longer on the main one', async () => {
    const server = await serve({ AIRDATE_METRICS_PORT: '0', AIRDATE_METRICS_TOKEN: token });
    const port = /metrics at http:\/\/localhost:(\d+)\/metrics/.exec(server.output())?.[1];
    expect(port).toBeDefined();
    expect(Number(port)).not.toBe(Number(new URL(server.baseUrl).port));
    const metricsUrl = `http://localhost:${port}`;
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(405);
    const response = await fetch(`${metricsUrl}/metrics?x=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parsePrometheusText(await response.text());
    expect(sampleSum(samples, 'airdate_http_requests_total', { route: '/healthz' })).toBe(1);
    expect(sampleSum(samples, 'airdate_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
  });

  it('a worker (no HTTP listener) serves its metrics on AIRDATE_METRICS_PORT: its job runs', async () => {
    // A database of its own: the 30-minute jobs have not run on it yet.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-test-worker-'));
    const databaseEnv = testDatabaseKind() === 'sqlite' ? { DATABASE_URL: `file:${path.join(dataDir, 'airdate.db')}` } : await freshDatabaseEnv();
    const worker = await serve({ AIRDATE_ROLE: 'worker', AIRDATE_METRICS_PORT: '0', AIRDATE_DATA_DIR: dataDir, ...databaseEnv });
    const port = /metrics at http:\/\/localhost:(\d+)\/metrics/.exec(worker.output())?.[1];
    expect(port).toBeDefined();
    // The 30-minute jobs run once at start.
    let runs = 0;
    for (const deadline = Date.now() + 15_000; runs < 2 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const samples = parsePrometheusText(await (await fetch(`http://localhost:${port}/metrics`)).text());
      runs = sampleSum(samples, 'airdate_job_runs_total', { job_name: 'catalog-refresh', outcome: 'success' }) + sampleSum(samples, 'airdate_job_runs_total', { job_name: 'release-check', outcome: 'success' });
    }
    expect(runs).toBe(2);
    // Open without a token on its own port, but not to a DNS-rebinding page: only to hosts the server answers to.
    const [rebound] = await rawRequest(Number(port), 'GET /metrics HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n');
    expect([rebound!.status, JSON.parse(rebound!.body)]).toEqual([400, { error: expect.stringContaining('does not answer to the host "attacker.example"') }]);
    await worker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
