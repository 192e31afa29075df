import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
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

const signedInPages = [
  { path: '/settings/developer', heading: 'Developer settings' },
  { path: '/settings/account', heading: 'Account' },
  { path: '/import-export', heading: 'Import & export' },
  { path: '/connections', heading: 'Connections' },
  { path: '/admin', heading: 'Administration' },
];
const signedOutPages = [
  { path: '/sign-in', heading: 'Sign in' },
  { path: '/setup#code=not-a-real-code', heading: 'Create your account' },
  { path: '/no-such-page', heading: 'Page not found' },
];

describe.each(['light', 'dark'] as const)('every page in the %s color scheme', { timeout: 60_000 }, (colorScheme) => {
  it('has no serious or critical axe violation, signed out', async () => {
    const context = await browser.newContext({ colorScheme, bypassCSP: true /* axe is injected as an inline script */ });
    const page = await context.newPage();
    for (const target of signedOutPages) {
      await page.goto(`${airdate.baseUrl}${target.path}`);
      await page.getByRole('heading', { level: 1, name: target.heading }).waitFor();
      expect(await seriousViolations(page), target.path).toEqual([]);
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
    for (const target of signedInPages) {
      await page.goto(`${airdate.baseUrl}${target.path}`);
      const heading = page.getByRole('heading', { level: 1, name: target.heading });
      await heading.waitFor();
      // The page heading has the focus after a page load, so screen readers start there.
      await expect.poll(() => heading.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.waitForLoadState('networkidle');
      expect(await seriousViolations(page), target.path).toEqual([]);
    }
    await page.goto(`${airdate.baseUrl}/settings/developer`);
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await seriousViolations(page), 'the confirmation dialog').toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await context.close();
  });
});
