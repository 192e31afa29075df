import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What a process writes to stderr with one line logged through createLogger({ format }). */
function loggedBy(format: 'pretty' | 'json'): string {
  const script = `import { createLogger } from './src/log.ts'; createLogger({ level: 'info', format: '${format}' }).info({ accountId: 7 }, 'hello from ${format}');`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr;
}

describe('log formats', () => {
  it('pretty writes a readable line (pino-pretty, loaded only for it); json one JSON object', () => {
    const pretty = loggedBy('pretty');
    expect(pretty).toMatch(/INFO.*hello from pretty.*accountId.*7/);
    expect(pretty).not.toContain('{"level"');
    expect(JSON.parse(loggedBy('json'))).toMatchObject({ level: 'info', accountId: 7, msg: 'hello from json' });
  });
});
