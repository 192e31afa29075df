import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { closeDatabase } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';

const config = await useTestDatabase({ AIRDATE_LOG_LEVEL: 'silent' });
const app = await createApp(config);

describe('an unexpected failure', () => {
  it('answers 500 with a generic JSON error and 503 from /readyz, without crashing', async () => {
    const account = await makeAccount();
    await closeDatabase();
    const summary = await call(app, 'GET', '/api/machine/summary', { token: account.token });
    expect(summary.status).toBe(500);
    expect(summary.json).toEqual({ error: 'internal server error' });
    const ready = await call(app, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(Object.keys(ready.json)).toEqual(['error']);
    expect((await call(app, 'GET', '/healthz')).json).toEqual({ ok: true });
  });
});
