import { afterEach } from 'vitest';
import type { Config } from '../../src/config.ts';
import { startServer, type ServerProcess } from './processes.ts';

/**
 * Starts real `serve` processes on the calling test file's database (its data folder and
 * DATABASE_URL; logs at warn, no rate limit, plus `env`), and stops each one a test leaves running
 * after that test. Returns `serve(extra)`, which starts one with `extra` on top.
 */
export function serverProcesses(config: Pick<Config, 'dataDir' | 'database'>, env: Record<string, string> = {}) {
  const running: ServerProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => (server.child.exitCode === null ? server.stop() : null)));
  });
  const base = { AIRDATE_DATA_DIR: config.dataDir, DATABASE_URL: config.database.url, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_RATE_LIMIT_PER_MINUTE: '0', ...env };
  return async (extra: Record<string, string> = {}): Promise<ServerProcess> => {
    const server = await startServer({ ...base, ...extra });
    running.push(server);
    return server;
  };
}
