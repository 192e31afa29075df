import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeMovie, makeShow } from '../support/factories.ts';
import { fillPath, webRoutes } from '../support/web-routes.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// axe-core on every page, in the light and the dark color scheme: no serious or critical
// violation (contrast included, which is why both schemes are checked).
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const browser = await launchChromium();
const airdate = await startAirdate();

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * Every page of the app's routes list (web/src/routes.ts), so a page added there is checked
 * without touching this file: public ones signed out, the others signed in as an administrator
 * whose library has something in it (a followed show airing today, a movie and an episode
 * watched), so lists, calendars and charts are drawn, not only their empty states. Plus a path
 * no route has (the "not found" page).
 */
const routes = webRoutes();
const publicPaths = [...routes.filter((route) => route.access === 'public').map((route) => route.path), '/setup#code=not-a-real-code', '/no-such-page'];
const signedInPaths = routes.filter((route) => route.access !== 'public').map((route) => route.path);

/** Waits until the page shows its heading and has loaded what it shows (no "Loading…" left). */
async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  await expect.poll(() => page.locator('.loading').count()).toBe(0);
}

let seeded: { id: number } | undefined;
/** Gives the signed-in account a followed show airing today and two watched items, once; answers the values of the routes' parameters (the show's id). */
async function seed(page: Page): Promise<{ id: number }> {
  if (seeded) return seeded;
  await page.goto(`${airdate.baseUrl}/settings/developer`);
  const token = await page.getByRole('textbox', { name: 'API token' }).inputValue();
  const today = new Date().toISOString().slice(0, 10);
  const show = await makeShow({ title: 'Accessible Show', poster: 'https://127.0.0.1:9/no-such-poster.jpg', episodes: [{ number: 1, airDate: today }, { number: 2, airDate: '2024-01-01' }] });
  const movie = await makeMovie({ title: 'Accessible Film', releaseDate: today });
  const post = (path: string, body: unknown) => fetch(`${airdate.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const body of [{ kind: 'show', id: show.id, followed: true }, { kind: 'movie', id: movie.id, followed: true }]) expect((await post('/api/machine/follow', body)).status).toBe(200);
  for (const body of [{ kind: 'episode', id: show.episodes[1]!.id, watched: true }, { kind: 'movie', id: movie.id, watched: true }]) expect((await post('/api/machine/watched', body)).status).toBe(200);
  seeded = { id: show.id };
  return seeded;
}

describe.each(['light', 'dark'] as const)('every page in the %s color scheme', { timeout: 60_000 }, (colorScheme) => {
  it('has no serious or critical axe violation, signed out', async () => {
    const context = await browser.newContext({ colorScheme, bypassCSP: true /* axe is injected as an inline script */ });
    const page = await context.newPage();
    for (const path of publicPaths) {
      await page.goto(`${airdate.baseUrl}${path}`);
      await settled(page);
      expect(await seriousViolations(page), path).toEqual([]);
    }
    // The check itself sees a problem when there is one: an input without a label is critical.
    await page.evaluate(() => document.querySelector('main')!.insertAdjacentHTML('beforeend', '<input id="unlabelled">'));
    expect((await seriousViolations(page)).join('\n')).toMatch(/^label: .*#unlabelled/m);
    await context.close();
  });

  it('has no serious or critical axe violation, signed in, with its dialogs open too', async () => {
    const context = await browser.newContext({ colorScheme, bypassCSP: true /* axe is injected as an inline script */ });
    const page = await context.newPage();
    if (colorScheme === 'light') await completeSetup(page, airdate.setupUrl, 'admin', 'a long enough password');
    else {
      await page.goto(`${airdate.baseUrl}/sign-in`);
      await page.getByLabel('Name').fill('admin');
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    }
    const values = await seed(page);
    for (const path of signedInPaths.map((route) => fillPath(route, values))) {
      await page.goto(`${airdate.baseUrl}${path}`);
      await settled(page);
      expect(new URL(page.url()).pathname, 'a signed-in page shows itself').toBe(path);
      // The page heading has the focus after a page load, so screen readers start there.
      const heading = page.getByRole('heading', { level: 1 }).first();
      await expect.poll(() => heading.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await seriousViolations(page), path).toEqual([]);
    }
    // A poster that cannot be loaded is drawn as the blank, not as a broken image.
    await page.goto(`${airdate.baseUrl}/`);
    await expect.poll(() => page.locator('img.poster-failed').count()).toBeGreaterThan(0);
    await page.goto(`${airdate.baseUrl}/settings/developer`);
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await seriousViolations(page), 'the confirmation dialog').toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await context.close();
  });
});
