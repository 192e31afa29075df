import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetBytes, measureFirstLoads } from '../../bench/web-size.ts';
import { buildWebApp } from '../../scripts/build-web.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-web-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the web app build', () => {
  it('keeps web/graphql-env.d.ts in step with schema.graphql (run `npm run typecheck` or `npm run build` to refresh it)', () => {
    const fresh = path.join(scratch, 'graphql-env.d.ts');
    execFileSync(process.execPath, ['scripts/generate-graphql-env.mjs', fresh], { cwd: root });
    expect(readFileSync(path.join(root, 'web/graphql-env.d.ts'), 'utf8')).toBe(readFileSync(fresh, 'utf8'));
  });

  it('builds hashed assets and a shell with no inline script, within the first-load budget', async () => {
    const out = path.join(scratch, 'web');
    await buildWebApp(out);
    const shell = readFileSync(path.join(out, 'index.html'), 'utf8');
    const scripts = [...shell.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [tag, body] of scripts) {
      expect(body!.trim(), 'an inline script would break the CSP').toBe('');
      expect(tag).toMatch(/src="\/assets\/[\w-]+-[\w-]{8}\.js"/);
    }
    const sizes = measureFirstLoads(out);
    // The entry alone and one first load per page (every route of web/src/routes.ts is its own chunk).
    expect(sizes.map((size) => size.route)).toContain('(entry only)');
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    for (const size of sizes) {
      expect(size.gzippedBytes, size.route).toBeGreaterThan(1000);
      expect(size.gzippedBytes, size.route).toBeLessThanOrEqual(budgetBytes);
    }
  });
});
