import { describe, expect, it } from 'vitest';
import { launchChromium, startAirdate } from './browser-support.ts';

// The API reference page in a real browser: Swagger UI loads from this server alone, under its
// Content-Security-Policy, and renders every path of the document.
const browser = await launchChromium();
const airdate = await startAirdate();

describe('/api/docs in a browser', () => {
  it('renders every documented path with no request to another origin and no CSP refusal', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(airdate.baseUrl) && !url.startsWith('data:')) elsewhere.push(url);
    });
    await page.goto(`${airdate.baseUrl}/api/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    const document = (await (await fetch(`${airdate.baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, object> };
    const shown = await page.locator('.opblock-summary-path').allInnerTexts();
    const normalized = new Set(shown.map((text) => text.replace(/\u200b/g, '').trim()));
    for (const path of Object.keys(document.paths)) expect(normalized, path).toContain(path);
    // Swagger UI's own complaints about the document (an unsupported field value, a bad reference).
    expect(await page.locator('.errors-wrapper').allInnerTexts()).toEqual([]);
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
