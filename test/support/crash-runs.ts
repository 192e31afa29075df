import { expect } from 'vitest';
import type { CrashStep } from '../../src/jobs/crash-points.ts';
import { runServerUntilExit } from './processes.ts';

/**
 * The crash tests' two moves (test/e2e/crash-steps.test.ts, crash-channels.test.ts): run a `serve`
 * process told by AIRDATE_TEST_CRASH_AT to die at a step and wait until it has, and wait for a
 * condition on what the processes left.
 */
export function crashRuns(env: Record<string, string>) {
  return {
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
