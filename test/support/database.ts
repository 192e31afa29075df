import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';

/**
 * Gives the calling test file its own data folder and migrated SQLite database, opened as the
 * process database (`db()`), removed after the file's tests. Tests then work in fresh accounts
 * (see factories.ts) instead of truncating tables.
 */
export async function useTestDatabase(env: Record<string, string> = {}): Promise<Config> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-test-'));
  const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent', ...env });
  await openDatabase(config, { migrate: true });
  afterAll(async () => {
    await closeDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return config;
}
