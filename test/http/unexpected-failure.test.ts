import { describe, expect, it, vi } from 'vitest';
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
    const logged = vi.spyOn(app.logger, 'error');
    const summary = await call(app, 'GET', '/api/machine/summary', { queryToken: account.token });
    expect(summary.status).toBe(500);
    expect(summary.json).toEqual({ error: 'internal server error' });
    // The details go to the server's log, with the ?token= value redacted (decisions.md).
    expect(logged).toHaveBeenCalledTimes(1);
    const [message, error] = logged.mock.calls[0]!;
    expect(message).toBe('GET /api/machine/summary?token=REDACTED failed');
    expect(error).toBeInstanceOf(Error);
    expect(`${message} ${String(error)} ${(error as Error).stack}`).not.toContain(account.token);
    const ready = await call(app, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(Object.keys(ready.json)).toEqual(['error']);
    expect((await call(app, 'GET', '/healthz')).json).toEqual({ ok: true });
  });
});
