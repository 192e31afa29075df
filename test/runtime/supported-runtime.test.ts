import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, supportedRuntime } from '../../bin/supported-runtime.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the supported runtime', () => {
  it('is what package.json declares: Node 22 from 22.14, and 24 onwards', () => {
    expect(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).engines.node).toBe(supportedRuntime);
    for (const version of ['v22.14.0', 'v22.23.3', 'v24.0.0', 'v24.21.0', 'v26.1.0']) expect(isSupportedNode(version), version).toBe(true);
    for (const version of ['v18.20.8', 'v20.19.0', 'v20.20.0', 'v22.13.1', 'v21.7.3', 'v22.9.0']) {
      expect(isSupportedNode(version), version).toBe(false);
    }
  });

  it('runs this suite', () => {
    expect(isSupportedNode(process.version)).toBe(true);
  });

  // The machine's own Node (CI's is 20) when it is an older one: the command line and the build
  // that `npm install` and `npm start` run refuse it with the reason, before loading the driver
  // (better-sqlite3 13 crashes on load there).
  const system = '/usr/bin/node';
  const old = existsSync(system) ? spawnSync(system, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim() : '';
  it.skipIf(old === '' || isSupportedNode(old))(`refuses an older Node (${old || 'none installed at /usr/bin/node'}) with a message, from the command line and the build`, () => {
    for (const args of [['bin/airdate.js', 'migrate'], ['scripts/build.mjs', `${root}dist/never-written.js`]]) {
      const result = spawnSync(system, args, { cwd: root, encoding: 'utf8', env: { ...process.env, AIRDATE_DATA_DIR: '/nonexistent' } });
      expect(result.status, args[0]).toBe(1);
      expect(result.stderr).toContain(`Node ${old} is not supported; use Node 22 (22.14 or later) or Node 24`);
      expect(existsSync(`${root}dist/never-written.js`)).toBe(false);
    }
  });
});
