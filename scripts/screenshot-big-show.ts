// npx tsx scripts/screenshot-big-show.ts: the show page of the 2,700-episode show of a real-size
// library (bench/real-library.ts), at desktop width (light) and on a phone (dark), as
// docs/screenshots/shows-big.png and shows-big-phone-dark.png (issue 33). A fresh data folder,
// seeded directly, then a real serve process on it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildWebApp } from './build-web.mjs';
import { buildRealCatalog, seedRealLibrary, writeCatalogFile } from '../bench/real-library.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { loadConfig } from '../src/config.ts';
import { closeDatabase, openDatabase } from '../src/db/client.ts';
import { localDate } from '../src/time/dates.ts';
import { startServer } from '../test/support/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
await buildWebApp(path.join(root, 'dist/web'));
const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-screenshot-big-show-'));
const catalog = buildRealCatalog(localDate('UTC', new Date()));
await openDatabase(loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent' }), { migrate: true });
const password = 'collector password 1';
const account = await createAccount({ name: 'collector', password, timezone: 'UTC', role: 'admin' });
const seeded = await seedRealLibrary(account.id, catalog);
await closeDatabase();
writeCatalogFile(catalog, path.join(dataDir, 'catalog.json'));
const server = await startServer({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'warn', AIRDATE_CATALOG_FILE: path.join(dataDir, 'catalog.json') });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
try {
  for (const [name, options] of [
    ['shows-big', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' as const }],
    ['shows-big-phone-dark', { viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const, isMobile: true, hasTouch: true, deviceScaleFactor: 1 }],
  ] as const) {
    const page = await (await browser.newContext({ ...options, locale: 'en-US', timezoneId: 'UTC' })).newPage();
    page.setDefaultTimeout(120_000);
    await page.goto(`${server.baseUrl}/sign-in`);
    await page.getByLabel('Name').fill('collector');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    // The 2,700-episode show, its head: the holes, the choice of up next, the seasons' progress.
    await page.goto(`${server.baseUrl}/shows/${seeded.bigShowId}`);
    await page.locator('.episode').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(root, 'docs/screenshots', `${name}.png`) });
    console.log(`wrote docs/screenshots/${name}.png`);
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
