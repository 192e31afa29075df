// `npm run screenshots`: docs/screenshots/ from a real run — a fresh server (its own SQLite data
// folder) with the demo catalog, Debian's Chromium, the first-run setup, a followed library with
// some episodes watched, a webhook receiver, an import — so the docs show the pages as they are.
// Every page of web/src/routes.ts, at desktop width (1280 px, light) as <page>.png and at phone
// width (390 px, dark) as <page>-phone-dark.png, where <page> is its path with "/" as "-"
// (settings-developer); a page added to routes.ts gets its pictures without touching this file.
// It also prints the Markdown table docs/web-app.md shows them in.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildWebApp } from './build-web.mjs';
import { buildDemoCatalog } from '../src/catalog/demo-catalog.ts';
import { startServer } from '../test/support/processes.ts';
import { fillPath, webRoutes } from '../test/support/web-routes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'docs/screenshots');
mkdirSync(out, { recursive: true });
// Pictures of pages that no longer exist go; every page's are made again below.
for (const file of readdirSync(out)) if (file.endsWith('.png')) rmSync(path.join(out, file));
await buildWebApp(path.join(root, 'dist/web'));

const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-screenshots-'));
const catalogFile = path.join(dataDir, 'demo-catalog.json');
writeFileSync(catalogFile, JSON.stringify(buildDemoCatalog(new Date().toISOString().slice(0, 10))));
const server = await startServer({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_WEBHOOK_ALLOWED_HOSTS: 'external,private,loopback', AIRDATE_CATALOG_FILE: catalogFile });
const receiver = createServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

const desktop = { viewport: { width: 1280, height: 900 }, colorScheme: 'light' as const };
const phone = { viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const slug = (route: string) => (route === '/' ? 'home' : route.slice(1).replaceAll('/', '-'));
const written: string[] = [];

/** Waits until the page shows its heading and what it loads, then writes the picture. */
async function shot(page: Page, name: string) {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  for (let waited = 0; (await page.locator('.loading').count()) > 0 && waited < 10_000; waited += 100) await page.waitForTimeout(100);
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
  written.push(name);
  console.log(`wrote docs/screenshots/${name}.png`);
}

async function both(contexts: { desktop: BrowserContext; phone: BrowserContext }, route: string, prepare?: (page: Page) => Promise<void>) {
  for (const [kind, context] of Object.entries(contexts)) {
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}${route}`);
    await prepare?.(page);
    await shot(page, kind === 'desktop' ? slug(route) : `${slug(route)}-phone-dark`);
    await page.close();
  }
}

try {
  for (let waited = 0; !/\/setup#code=/.test(server.output()) && waited < 10_000; waited += 50) await new Promise((done) => setTimeout(done, 50));
  const setupUrl = /open (http:\/\/\S+\/setup#code=\S+)/.exec(server.output())?.[1];
  if (!setupUrl) throw new Error(`no setup link in the server's output:\n${server.output()}`);
  const signedOut = { desktop: await browser.newContext(desktop), phone: await browser.newContext(phone) };

  // The setup page, filled in, then the account it makes.
  // The phone first: the desktop's click uses the link up.
  for (const [kind, context] of [['phone', signedOut.phone], ['desktop', signedOut.desktop]] as const) {
    const page = await context.newPage();
    await page.goto(setupUrl);
    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByLabel('Password again').fill('correct horse battery');
    await shot(page, kind === 'desktop' ? 'setup' : 'setup-phone-dark');
    if (kind === 'desktop') {
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
      await signedOut.desktop.storageState({ path: path.join(dataDir, 'state.json') });
      await context.clearCookies();
    }
    await page.close();
  }
  const signedIn = { desktop: await browser.newContext({ ...desktop, storageState: path.join(dataDir, 'state.json') }), phone: await browser.newContext({ ...phone, storageState: path.join(dataDir, 'state.json') }) };

  // A library: the demo catalog's shows, movies and games followed (a fresh database numbers them
  // in the file's order), its first episodes watched.
  const work = await signedIn.desktop.newPage();
  await work.goto(`${server.baseUrl}/settings/developer`);
  const token = await work.getByRole('textbox', { name: 'API token' }).inputValue();
  const post = (route: string, body: unknown) => fetch(`${server.baseUrl}${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const kind of ['show', 'movie', 'game'] as const) for (let id = 1; id <= 3; id += 1) await post('/api/machine/follow', { kind, id, followed: true });
  for (let id = 1; id <= 12; id += 1) await post('/api/machine/watched', { kind: 'episode', id, watched: true });
  await post('/api/machine/watched', { kind: 'movie', id: 1, watched: true });

  // The developer settings with a webhook that answered a test; an import with its report; an
  // invitation link made.
  await work.getByRole('textbox', { name: 'Webhook URL' }).fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
  await work.getByRole('button', { name: 'Save webhook' }).click();
  await work.getByText('Webhook URL saved.').waitFor();
  await work.getByRole('button', { name: 'Send a test notification' }).click();
  await work.getByText('The receiver accepted the test notification.').waitFor();

  for (const route of webRoutes()) {
    if (route.path === '/setup') continue;
    if (route.access === 'public') await both(signedOut, route.path);
    else if (route.path === '/import-export') {
      await both(signedIn, route.path, async (page) => {
        const history = [
          { id: 1, watched_at: '2024-03-01T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { ids: { trakt: 1, tmdb: 9_300_001 }, year: 2026, title: 'The Glass Cartographer' } },
          { id: 2, watched_at: '2024-03-02T20:00:00.000Z', action: 'scrobble', type: 'movie', movie: { ids: { trakt: 2 }, year: 2019, title: 'A Film Nobody Catalogued' } },
        ];
        await page.getByLabel('Files (zips too)').setInputFiles({ name: 'history.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(history)) });
        await page.getByRole('button', { name: 'Import' }).click();
        await page.getByRole('heading', { name: /^Report/ }).waitFor();
      });
    } else if (route.path === '/admin') {
      await both(signedIn, route.path, async (page) => {
        await page.getByRole('button', { name: 'Create setup link' }).click();
        await page.getByText('Invitation link made').waitFor();
      });
    } else await both(signedIn, fillPath(route.path, { id: 1 })); // a show: the demo catalog's first, followed above
  }

  // The table docs/web-app.md shows (desktop | phone, one row a page).
  const pages = [...new Set(written.map((name) => name.replace(/-phone-dark$/, '')))];
  console.log(['', '| Page | Desktop | Phone (dark) |', '| --- | --- | --- |', ...pages.map((name) => `| \`/${name}\` | ![${name}](screenshots/${name}.png) | ![${name} on a phone](screenshots/${name}-phone-dark.png) |`)].join('\n'));
} finally {
  await browser.close();
  receiver.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
