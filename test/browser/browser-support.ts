import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { buildWebApp } from '../../scripts/build-web.mjs';
import { useTestDatabase } from '../support/database.ts';
import { startServer } from '../support/processes.ts';

/**
 * Browser tests: Debian's Chromium driven by playwright-core (Playwright's own browser download
 * cannot work here; .ci/run installs the package when it is missing) against a real `serve`
 * process on the test file's database, serving the real build of web/.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
export const chromiumPath = '/usr/bin/chromium';

/** Builds dist/web when it is missing or older than a file of web/ (the server serves dist/web). */
export async function ensureWebBuild(): Promise<void> {
  const manifest = path.join(root, 'dist/web/.vite/manifest.json');
  const newest = (dir: string): number =>
    Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? newest(path.join(dir, entry.name)) : statSync(path.join(dir, entry.name)).mtimeMs)));
  if (!existsSync(manifest) || statSync(manifest).mtimeMs < Math.max(newest(path.join(root, 'web/src')), statSync(path.join(root, 'web/index.html')).mtimeMs)) {
    await buildWebApp(path.join(root, 'dist/web'));
  }
}

/** Chromium, headless and quiet (no background traffic), closed after the file; `args`: more switches. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
  });
  afterAll(() => browser.close());
  return browser;
}

/**
 * A fresh Airdate for the file: a new database with no account, one serve process (webhooks may
 * go to loopback, where the tests' receivers listen), and its first-run setup link read from
 * its log, as an operator reads it.
 */
export async function startAirdate(env: Record<string, string> = {}) {
  await ensureWebBuild();
  const config = await useTestDatabase();
  // Started here rather than through serverProcesses, which stops its servers after each test:
  // these files share one server between their tests.
  const server = await startServer({
    AIRDATE_DATA_DIR: config.dataDir,
    DATABASE_URL: config.database.url,
    AIRDATE_LOG_LEVEL: 'warn',
    AIRDATE_RATE_LIMIT_PER_MINUTE: '0',
    AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'external,private,loopback',
    ...env,
  });
  afterAll(() => server.stop());
  const linkPattern = /open (http:\/\/\S+\/setup#code=\S+)/;
  for (let waited = 0; !linkPattern.test(server.output()) && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
  const setupUrl = linkPattern.exec(server.output())?.[1];
  if (!setupUrl) throw new Error(`the server printed no setup link:\n${server.output()}`);
  // The server listens before its start is complete (the offline catalog file is stored after):
  // a page that searches the catalog waits for /readyz, as a load balancer would.
  let ready = false;
  for (let waited = 0; waited < 60_000 && !ready; waited += 50) {
    ready = (await fetch(`${server.baseUrl}/readyz`).catch(() => undefined))?.status === 200;
    if (!ready) await new Promise((done) => setTimeout(done, 50));
  }
  if (!ready) throw new Error(`the server was not ready within 60 s:\n${server.output()}`);
  return { server, baseUrl: server.baseUrl, setupUrl };
}

/** Goes through the first-run setup page in `page`, which ends on the home page. */
export async function completeSetup(page: Page, setupUrl: string, name: string, password: string): Promise<void> {
  await page.goto(setupUrl);
  await page.getByRole('heading', { name: 'Set up Airdate' }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  // Creating the account hashes its password (scrypt at N=2^17): seconds on a loaded machine.
  await page.getByRole('heading', { name: 'Home', exact: true }).waitFor({ timeout: 60_000 });
}

/** Signs in through the sign-in page (the page must show it). */
export async function signInThroughPage(page: Page, name: string, password: string): Promise<void> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}
