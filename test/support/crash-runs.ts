import { expect } from 'vitest';
import type { CrashStep } from '../../src/jobs/crash-points.ts';
import type { Config } from '../../src/config.ts';
import { runServerUntilExit } from './processes.ts';
import { serverProcesses } from './server-processes.ts';

/**
 * The crash tests' two moves (test/e2e/crash-steps.test.ts, crash-channels.test.ts): run a `serve`
 * process told by AIRDATE_TEST_CRASH_AT to die at a step and wait until it has, and wait for a
 * condition on what the processes left.
 */
export function crashRuns(config: Pick<Config, 'dataDir' | 'database'>) {
  // Deliveries to loopback peers, jobs polled often, and locks that expire within a second, so
  // that each process takes over what the killed one held.
  const env = {
    AIRDATE_DATA_DIR: config.dataDir,
    DATABASE_URL: config.database.url,
    AIRDATE_LOG_LEVEL: 'warn',
    AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    AIRDATE_WEBHOOK_TIMEOUT_MS: '1500',
    AIRDATE_JOB_POLL_MS: '100',
    AIRDATE_JOB_LOCK_MS: '1000',
  };
  return {
    /** A `serve` process that runs on (stopped after each test). */
    serve: serverProcesses(config, env),
    async crashAt(step: CrashStep) {
      const ended = await runServerUntilExit({ ...env, AIRDATE_TEST_CRASH_AT: step }, 60_000);
      expect({ step, signal: ended.signal }, ended.output).toEqual({ step, signal: 'SIGKILL' });
    },
    async waitUntil(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
