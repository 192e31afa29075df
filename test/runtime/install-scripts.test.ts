import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

// swagger-ui-dist depends on @scarf/scarf, whose install script reports installs to a third party.
// package.json's overrides put an empty local package in its place (vendor/scarf-off): nothing of it
// can run at install, whatever npm's settings.
it("installs no @scarf/scarf of the registry: the one swagger-ui-dist gets is the empty local package, with no script", () => {
  const lock = read('package-lock.json');
  const scarfEntries = Object.entries(lock.packages as Record<string, { resolved?: string; link?: boolean; hasInstallScript?: boolean }>).filter(([key]) => key.endsWith('@scarf/scarf'));
  expect(scarfEntries).toEqual([['node_modules/@scarf/scarf', { resolved: 'vendor/scarf-off', link: true }]]);
  const installed = createRequire(path.join(root, 'node_modules/swagger-ui-dist/package.json')).resolve('@scarf/scarf/package.json');
  expect(realpathSync(installed)).toBe(path.join(root, 'vendor/scarf-off/package.json'));
  const stand = read('vendor/scarf-off/package.json');
  expect(stand.name).toBe('@scarf/scarf');
  expect(stand).not.toHaveProperty('scripts');
  expect(stand).not.toHaveProperty('main');
});
