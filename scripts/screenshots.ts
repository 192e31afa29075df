// `npm run screenshots`: docs/screenshots/<page>.png from a real run — a fresh server (its own
// SQLite data folder), Debian's Chromium, the first-run setup, a webhook receiver, an import — so
// the README shows the pages as they are. Desktop at 1280 px wide, and phone width (360 px) for two.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { buildWebApp } from './build-web.mjs';
import { startServer } from '../test/support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'docs/screenshots');
mkdirSync(out, { recursive: true });
await buildWebApp(path.join(root, 'dist/web'));

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-screenshots-'));
const server = await startServer({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'external,private,loopback' });
const receiver = createServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

try {
  for (let waited = 0; !/\/setup#code=/.test(server.output()) && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
  const setupUrl = /open (http:\/\/\S+\/setup#code=\S+)/.exec(server.output())?.[1];
  if (!setupUrl) throw new Error(`no setup link in the server's output:\n${server.output()}`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  const shot = async (name: string, target: Page = page) => {
    await target.waitForLoadState('networkidle');
    await target.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
    console.log(`wrote docs/screenshots/${name}.png`);
  };

  await page.goto(setupUrl);
  await page.getByLabel('Name').fill('alice');
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
  await page.getByLabel('Password again').fill('correct horse battery');
  await shot('setup');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
  await page.goto(`${setupUrl.split('/setup')[0]}/settings/developer`);
  await page.getByRole('heading', { name: 'Developer settings' }).waitFor();
  await page.getByRole('textbox', { name: 'Webhook URL' }).fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
  await page.getByRole('button', { name: 'Save webhook' }).click();
  await page.getByText('Webhook URL saved.').waitFor();
  await page.getByRole('button', { name: 'Send a test notification' }).click();
  await page.getByText('The receiver accepted the test notification.').waitFor();
  await shot('developer-settings');

  await page.goto(`${server.baseUrl}/settings/account`);
  await page.getByRole('heading', { name: 'Signed-in browsers' }).waitFor();
  await shot('account');

  await page.goto(`${server.baseUrl}/import-export`);
  const history = [
    { id: 1, watched_at: '2024-03-01T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { ids: { trakt: 1, tmdb: 603, imdb: 'tt0133093' }, year: 1999, title: 'The Matrix' } },
    { id: 2, watched_at: '2024-03-02T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { ids: { trakt: 2 }, year: 2019, title: 'A Film Nobody Catalogued' } },
  ];
  await page.getByLabel('Files (zips too)').setInputFiles({ name: 'history.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(history)) });
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('heading', { name: /^Report/ }).waitFor();
  await shot('import-export');

  await page.goto(`${server.baseUrl}/admin`);
  await page.getByRole('button', { name: 'Create setup link' }).click();
  await page.getByText('Invitation link made').waitFor();
  await shot('administration');

  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, colorScheme: 'dark', storageState: await context.storageState() });
  const phonePage = await phone.newPage();
  await phonePage.goto(`${server.baseUrl}/settings/developer`);
  await phonePage.getByRole('heading', { name: 'Developer settings' }).waitFor();
  await shot('developer-settings-phone-dark', phonePage);

  const signedOut = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const signInPage = await signedOut.newPage();
  await signInPage.goto(`${server.baseUrl}/sign-in`);
  await signInPage.getByRole('heading', { name: 'Sign in' }).waitFor();
  await shot('sign-in', signInPage);
} finally {
  await browser.close();
  receiver.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
