import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { makeShow } from '../support/factories.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

/**
 * Issue 31, item 7, in Chromium: the pages load posters from the catalogs' image hosts only. A
 * stand-in for TMDB's image host (AIRDATE_TMDB_IMAGE_URL, so its origin is on the page's img-src)
 * and another host, both real servers on loopback answering a PNG and counting what they get; a
 * show with each poster. The TMDB poster is drawn; the other is never even requested.
 */

// A 1×1 PNG.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function imageHost() {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
    response.end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const tmdbImages = await imageHost();
const elsewhere = await imageHost();
const browser = await launchChromium();
// TMDB's API itself is never asked here (the shows are stored by the test); its key makes TMDB a
// configured catalog, whose image URL's origin the page then allows.
const airdate = await startAirdate({ TMDB_API_KEY: 'k', AIRDATE_TMDB_URL: 'http://127.0.0.1:9', AIRDATE_TMDB_IMAGE_URL: `${tmdbImages.url}/t/p/w500` });

describe("posters in the pages (the image policy names the catalogs' hosts only)", { timeout: 120_000 }, () => {
  it("shows a poster from TMDB's image host and never requests one from another host", async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await completeSetup(page, airdate.setupUrl, 'poster-admin', 'a long enough password 1');
    const fromTmdb = await makeShow({ title: 'Poster From TMDB', poster: `${tmdbImages.url}/t/p/w500/tmdb.png` });
    const chosen = await makeShow({ title: 'Poster Elsewhere', poster: `${elsewhere.url}/track.png` });

    await page.goto(`${airdate.baseUrl}/shows/${fromTmdb.id}`);
    await page.getByRole('heading', { name: 'Poster From TMDB' }).waitFor();
    const drawn = page.locator('img.poster');
    await expect.poll(() => drawn.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(1);
    expect(tmdbImages.seen).toEqual(['/t/p/w500/tmdb.png']);

    await page.goto(`${airdate.baseUrl}/shows/${chosen.id}`);
    await page.getByRole('heading', { name: 'Poster Elsewhere' }).waitFor();
    // Refused by the policy: drawn as the blank, and the host hears nothing.
    await expect.poll(() => page.locator('img.poster-failed').count()).toBe(1);
    expect(elsewhere.seen).toEqual([]);
    expect(refused.join('\n')).toContain(`${elsewhere.url}/track.png`);
    await page.close();
  });
});
