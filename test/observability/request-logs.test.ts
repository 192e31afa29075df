import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { jobNames } from '../../src/jobs.ts';
import { waitFor } from '../jobs/support/job-store-harness.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { captureLog, type LogRecord } from '../support/log-capture.ts';

const config = await useTestDatabase({ AIRDATE_LOG_LEVEL: 'debug', AIRDATE_LOG_FORMAT: 'json', AIRDATE_JOB_POLL_MS: '100', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });
const log = captureLog();
const app = await createApp(config, { logDestination: log.destination });

const accessLines = (reqId: string): LogRecord[] => log.records().filter((record) => record.msg === 'request' && record.reqId === reqId);
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('takes a sane X-Request-Id as it is and returns it, on answers, errors, 304s and web pages alike', async () => {
    const user = await makeAccount();
    const summary = await call(app, 'GET', '/api/machine/summary', { token: user.token, headers: { 'x-request-id': 'proxy-1.a:b_C' } });
    expect(summary.status).toBe(200);
    expect(summary.headers.get('x-request-id')).toBe('proxy-1.a:b_C');
    const etag = summary.headers.get('etag')!;
    const notModified = await call(app, 'GET', '/api/machine/summary', { token: user.token, headers: { 'x-request-id': 'again-304', 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('x-request-id')).toBe('again-304');
    for (const [path, status] of [['/no/such/thing', 404], ['/api/machine/summary', 401], ['/sign-in', 200], ['/healthz', 200]] as const) {
      const answer = await call(app, 'GET', path, { headers: { 'x-request-id': `id-${status}`, accept: path === '/sign-in' ? 'text/html' : 'application/json' } });
      expect(answer.status).toBe(status);
      expect(answer.headers.get('x-request-id')).toBe(`id-${status}`);
    }
    const refused = await call(app, 'DELETE', '/api/machine/summary', { headers: { 'x-request-id': 'id-405' } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('x-request-id')).toBe('id-405');
  });

  it('makes up a new id when there is none, or the one given is not sane', async () => {
    const seen = new Set<string>();
    for (const given of [undefined, '', 'x'.repeat(129), 'has space', 'caf\u00e9', 'semi;colon', '<script>']) {
      const headers: Record<string, string> = given === undefined ? {} : { 'x-request-id': given };
      const answer = await call(app, 'GET', '/healthz', { headers });
      const id = answer.headers.get('x-request-id')!;
      expect(id).toMatch(uuid);
      expect(id).not.toBe(given);
      seen.add(id);
    }
    expect(seen.size).toBe(7);
    // 128 characters is still sane.
    expect((await call(app, 'GET', '/healthz', { headers: { 'x-request-id': 'y'.repeat(128) } })).headers.get('x-request-id')).toBe('y'.repeat(128));
  });
});

describe('the access line', () => {
  it('is one line per request: method, route template, status, time and account; never the query', async () => {
    const user = await makeAccount();
    await call(app, 'GET', '/api/machine/summary?view=all', { queryToken: user.token, headers: { 'x-request-id': 'access-1' } });
    const [line, ...more] = accessLines('access-1');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'info', method: 'GET', route: '/api/machine/summary', status: 200, accountId: user.id });
    expect(line!.ms).toEqual(expect.any(Number));
    expect(typeof line!.time).toBe('string');
    expect(JSON.stringify(line)).not.toContain(user.token);
    expect(JSON.stringify(line)).not.toContain('view=all');

    await call(app, 'GET', `/no/such/${user.token}`, { headers: { 'x-request-id': 'access-2' } });
    expect(accessLines('access-2')).toEqual([expect.objectContaining({ route: 'unmatched', status: 404 })]);
    await call(app, 'GET', '/assets/nothing-here.js', { headers: { 'x-request-id': 'access-3' } });
    expect(accessLines('access-3')).toEqual([expect.objectContaining({ route: '/assets/*', status: 404 })]);
    await call(app, 'POST', '/graphql', { token: user.token, body: { query: 'query Me { viewer { name } }' }, headers: { 'x-request-id': 'access-4' } });
    expect(accessLines('access-4')).toEqual([expect.objectContaining({ route: '/graphql', status: 200, accountId: user.id })]);
    expect(log.text()).not.toContain(user.token);
  });
});

describe('jobs a request causes', () => {
  it('log with the id of the request that queued them', async () => {
    const user = await makeAccount();
    await app.jobs.start();
    try {
      const answer = await call(app, 'POST', '/api/machine/sync', { token: user.token, headers: { 'x-request-id': 'sync-request-7' } });
      expect(answer.status).toBe(200);
      const finished = () => log.records().filter((record) => record.msg === `job ${jobNames.accountSync} finished`);
      await waitFor('the sync job to finish', () => finished().some((record) => record.reqId === 'sync-request-7'), 20_000);
      expect(finished().find((record) => record.reqId === 'sync-request-7')).toMatchObject({ level: 'debug', job: jobNames.accountSync });
    } finally {
      await app.jobs.stop(2_000);
    }
  });
});
