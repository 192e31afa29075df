import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// Installable: the manifest and its icons are served, the shell links them, the service worker
// registers and caches the app's own files — and, after the account's pages were used, no cache
// holds any answer of /graphql, /api or another server path. Offline, a page still opens (the
// cached shell and files) and says the server cannot be reached.
const browser = await launchChromium();
const airdate = await startAirdate();

/** The width and height of a PNG, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('the installable web app', () => {
  it('serves a manifest whose icons exist at their sizes, linked from the shell', async () => {
    const response = await fetch(`${airdate.baseUrl}/manifest.webmanifest`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const manifest = (await response.json()) as { start_url: string; display: string; icons: { src: string; sizes: string; type: string }[] };
    expect(manifest).toMatchObject({ start_url: '/', display: 'standalone' });
    expect(manifest.icons.some((icon) => icon.sizes === '512x512')).toBe(true);
    for (const icon of manifest.icons) {
      const file = await fetch(`${airdate.baseUrl}${icon.src}`);
      expect(file.status, icon.src).toBe(200);
      expect(file.headers.get('content-type')).toContain(icon.type);
      if (icon.type === 'image/png') {
        const { width, height } = pngSize(Buffer.from(await file.arrayBuffer()));
        expect(`${width}x${height}`).toBe(icon.sizes);
      }
    }
    const shell = await (await fetch(`${airdate.baseUrl}/`)).text();
    expect(shell).toContain('<link rel="manifest" href="/manifest.webmanifest"');
    const worker = await fetch(`${airdate.baseUrl}/sw.js`);
    expect(worker.headers.get('cache-control')).toBe('no-cache');
  });

  it("sorts requests: the app's files are cached, no server path or write ever is", () => {
    const context = { self: { location: { origin: 'https://airdate.example' }, addEventListener: () => undefined } as Record<string, unknown>, URL };
    vm.runInNewContext(readFileSync(new URL('../../web/public/sw.js', import.meta.url), 'utf8'), context);
    const strategy = context.self.airdateStrategy as (request: { method: string; url: string; mode?: string }) => string | null;
    const at = (path: string, method = 'GET', mode = 'cors') => strategy({ method, url: `https://airdate.example${path}`, mode });
    expect(at('/assets/index-abc123.js')).toBe('asset');
    expect(at('/manifest.webmanifest')).toBe('file');
    expect(at('/calendar', 'GET', 'navigate')).toBe('shell');
    for (const path of ['/graphql', '/graphql?query=%7Bviewer%7Bname%7D%7D', '/api/machine/summary', '/api/calendar.ics?token=adt_x', '/api/export', '/auth/oidc/start', '/healthz', '/graphiql/5/graphiql.css', '/metrics']) {
      expect(at(path), path).toBeNull();
      expect(at(path, 'GET', 'navigate'), `${path} opened as a page`).toBeNull();
    }
    expect(at('/graphql', 'POST')).toBeNull();
    expect(at('/assets/index-abc123.js', 'POST')).toBeNull();
    expect(at('/calendar')).toBeNull();
    expect(at('/?token=adt_x', 'GET', 'navigate')).toBeNull();
    expect(strategy({ method: 'GET', url: 'https://elsewhere.example/assets/x.js', mode: 'cors' })).toBeNull();
  });

  it("registers the service worker, whose caches hold the app's files and never an account's data, and opens offline", { timeout: 90_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await completeSetup(page, airdate.setupUrl, 'erin', 'a long enough password');
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    // Pages used with the worker in control: each reads its data from /graphql.
    for (const path of ['/calendar', '/statistics', '/settings/account', '/settings/developer']) {
      await page.goto(`${airdate.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
    }
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname + new URL(request.url).search);
      return urls;
    });
    expect(cached).toContain('/');
    expect(cached.some((url) => url.startsWith('/assets/'))).toBe(true);
    for (const url of cached) expect(url, 'cached').toMatch(/^\/(assets\/[^/?]+|[a-z0-9-]+\.(png|svg|webmanifest))?$/);

    // Offline: the shell and the app's files come from the cache; the page says what is wrong.
    await context.setOffline(true);
    await page.goto(`${airdate.baseUrl}/calendar`);
    await page.getByText('the server cannot be reached', { exact: false }).waitFor();
    await context.close();
  });
});
