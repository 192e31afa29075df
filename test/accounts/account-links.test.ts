import { expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

/** Account.calendarUrl / summaryUrl: copyable machine URLs on the server's public origin that really answer. */
const { app, config } = await useTestApp();
const links = '{ viewer { calendarUrl summaryUrl apiToken } }';

it('are absolute URLs on the request origin carrying the token, and each one answers 200 with the right body', async () => {
  const user = await makeAccount();
  const { viewer } = (await graphql(app, user.token, links)).json.data;
  expect(viewer.calendarUrl).toBe(`http://airdate.test/api/calendar.ics?token=${user.token}`);
  expect(viewer.summaryUrl).toBe(`http://airdate.test/api/machine/summary?token=${user.token}`);
  expect(viewer.apiToken).toBe(user.token);
  const calendar = await app.fetch(new Request(viewer.calendarUrl));
  expect(calendar.status).toBe(200);
  expect(await calendar.text()).toMatch(/^BEGIN:VCALENDAR\r\n/);
  const summary = await call(app, 'GET', viewer.summaryUrl);
  expect(summary.status).toBe(200);
  expect(summary.json).toHaveProperty('upNext');
});

it('follow the token when it is regenerated', async () => {
  const user = await makeAccount();
  const fresh = (await graphql(app, user.token, 'mutation { regenerateToken }')).json.data.regenerateToken;
  const { viewer } = (await graphql(app, fresh, links)).json.data;
  expect(viewer.summaryUrl).toBe(`http://airdate.test/api/machine/summary?token=${fresh}`);
  expect((await call(app, 'GET', `/api/machine/summary?token=${user.token}`)).status).toBe(401);
});

// Last in the file: an app's close() closes the process's one database connection (the next
// createApp opens it again), so no test may use `app` after this one.
it('use AIRDATE_PUBLIC_URL when set, and a trusted proxy\'s forwarded scheme and host otherwise, never a host the server does not answer to', async () => {
  const env = { DATABASE_URL: config.database.url, AIRDATE_DATA_DIR: config.dataDir, AIRDATE_LOG_LEVEL: 'silent' };
  const user = await makeAccount();
  const behindProxy = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'tv.example.org' };
  for (const [settings, headers, origin] of [
    [{ AIRDATE_PUBLIC_URL: 'https://airdate.example.com/' }, behindProxy, 'https://airdate.example.com'],
    [{ AIRDATE_TRUST_PROXY: 'true', AIRDATE_ALLOWED_HOSTS: 'tv.example.org' }, behindProxy, 'https://tv.example.org'],
    [{}, behindProxy, 'http://airdate.test'], // an untrusted X-Forwarded-Host changes nothing
    // A forwarded host nobody allowed (a proxy passing on whatever Host it got): no link at all.
    [{ AIRDATE_TRUST_PROXY: 'true' }, behindProxy, undefined],
    [{ AIRDATE_PUBLIC_URL: 'https://airdate.example.com/', AIRDATE_TRUST_PROXY: 'true' }, { 'x-forwarded-host': 'evil.example' }, undefined],
  ] as const) {
    const other = await createApp(loadConfig({ ...env, ...settings }));
    try {
      const { status, json } = await call(other, 'POST', '/graphql', { token: user.token, body: { query: links }, headers });
      if (origin === undefined) {
        expect([status, json]).toEqual([400, { error: expect.stringMatching(/^this server does not answer to the host "(tv|evil)\.example(\.org)?"/) }]);
        continue;
      }
      expect(json.data.viewer.calendarUrl).toBe(`${origin}/api/calendar.ics?token=${user.token}`);
    } finally {
      await other.close();
    }
  }
});
