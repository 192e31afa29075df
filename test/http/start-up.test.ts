import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import { useTestDatabase } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call } from '../support/http.ts';

/**
 * What a start does after the server listens (src/app.ts `started`): the offline catalog read,
 * checked and stored, the job store connected. Requests are served meanwhile; /readyz says
 * "starting" until it is done; an invalid catalog file makes it fail, naming the file, with
 * nothing stored.
 */
const config = await useTestDatabase();
initSecretKey(config);

/** A catalog file of `shows` shows with ten episodes each, one of them with `broken` as its air date. */
function catalogFile(name: string, shows: number, broken?: string): string {
  const file = path.join(config.dataDir, name);
  writeFileSync(
    file,
    JSON.stringify({
      shows: Array.from({ length: shows }, (_, index) => ({
        ids: { tmdb: 8_800_000 + index },
        title: `${name} show ${index}`,
        episodes: Array.from({ length: 10 }, (_, number) => ({ season: 1, number: number + 1, air_date: broken && index === shows - 1 && number === 9 ? broken : '2026-01-01' })),
      })),
    }),
  );
  return file;
}

describe('the start after listening', () => {
  it('serves requests while it stores the catalog, and is ready once it is stored', async () => {
    const account = await makeAccount();
    const file = catalogFile('start.json', 800);
    const app = await createApp(loadConfig({ AIRDATE_DATA_DIR: config.dataDir, DATABASE_URL: config.database.url, AIRDATE_LOG_LEVEL: 'silent', AIRDATE_CATALOG_FILE: file }));
    try {
      expect(await call(app, 'GET', '/readyz')).toMatchObject({ status: 503, json: { error: 'starting' } });
      const summary = await call(app, 'GET', '/api/machine/summary', { token: account.token });
      expect(summary.status).toBe(200);
      // Answered before the catalog was stored: the start was still under way.
      expect(await db().show.count({ where: { title: { startsWith: 'start.json show' } } })).toBeLessThan(800);
      await app.started;
      expect(await db().show.count({ where: { title: { startsWith: 'start.json show' } } })).toBe(800);
      expect(await call(app, 'GET', '/readyz')).toMatchObject({ status: 200, json: { ok: true } });
    } finally {
      await app.jobs.stop(2_000);
    }
  });

  it('fails on an invalid catalog file, naming it and its first problem, before anything is stored', async () => {
    const file = catalogFile('broken.json', 300, 'soon');
    const app = await createApp(loadConfig({ AIRDATE_DATA_DIR: config.dataDir, DATABASE_URL: config.database.url, AIRDATE_LOG_LEVEL: 'silent', AIRDATE_CATALOG_FILE: file }));
    try {
      await expect(app.started).rejects.toThrow(`catalog file ${file}: shows[299].episodes[9].air_date: expected YYYY-MM-DD or null ("soon" is not a calendar date)`);
      expect(await db().show.count({ where: { title: { startsWith: 'broken.json show' } } })).toBe(0);
      expect(await call(app, 'GET', '/readyz')).toMatchObject({ status: 503, json: { error: 'the start failed' } });
    } finally {
      await app.jobs.stop(2_000);
    }
  });
});
