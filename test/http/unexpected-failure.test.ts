import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { closeDatabase } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { captureLog } from '../support/log-capture.ts';

const config = await useTestDatabase({ AIRDATE_LOG_LEVEL: 'info', AIRDATE_LOG_FORMAT: 'json' });
const log = captureLog();
const app = await createApp(config, { logDestination: log.destination });

describe('an unexpected failure', () => {
  it('answers 500 with a generic JSON error and 503 from /readyz, without crashing', async () => {
    const account = await makeAccount();
    await closeDatabase();
    const summary = await call(app, 'GET', '/api/machine/summary', { queryToken: account.token });
    expect(summary.status).toBe(500);
    expect(summary.json).toEqual({ error: 'internal server error' });
    // The details go to the server's log, with the route template, never the URL and its ?token=.
    const errors = log.records().filter((record) => record.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toBe('GET /api/machine/summary failed');
    expect((errors[0]!.err as { stack: string }).stack).toMatch(/Error/);
    expect(errors[0]!.reqId).toBe(summary.headers.get('x-request-id'));
    expect(log.text()).not.toContain(account.token);
    const ready = await call(app, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(Object.keys(ready.json)).toEqual(['error']);
    expect((await call(app, 'GET', '/healthz')).json).toEqual({ ok: true });
  });
});
