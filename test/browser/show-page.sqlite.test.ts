import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchChromium } from './browser-support.ts';
import { signInToRealLibrary, startRealLibraryAirdate } from './real-library.ts';

// The show page at real size (issue 33, items 1 and 2), on the real-size library
// (bench/real-library.ts): the 2,700-episode "Tides of the Grand Line" in 13 seasons of up to 400
// and the 440-episode "Grey Harbor General" watched through season 14 of 21.
const browser = await launchChromium();
const airdate = await startRealLibraryAirdate();
const base = airdate.baseUrl;
const { bigShowId, longShowId } = airdate.seeded;

/** Every node of the page (elements, text, comments), as a DOM-size audit counts them. */
const domNodes = (page: Page) => page.evaluate(() => {
  let count = 0;
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
  while (walker.nextNode()) count += 1;
  return count;
});

/** What Tab can reach on the page. */
const tabStops = (page: Page) => page.evaluate(() => [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter((element) => element.tabIndex >= 0 && !(element as HTMLButtonElement).disabled && element.getClientRects().length > 0).length);

async function signedInPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  await signInToRealLibrary(page, base);
  return page;
}

const seasonToggle = (page: Page, season: number) => page.locator(`#season-heading-${season} button`);

describe('the show page of a 2,700-episode show', () => {
  it('stays under 3,000 DOM nodes, keeps its height while scrolling, and jumps to and collapses seasons', { timeout: 240_000 }, async () => {
    const page = await signedInPage();
    await page.goto(`${base}/shows/${bigShowId}`);
    await page.getByRole('heading', { name: 'Tides of the Grand Line', level: 1 }).waitFor({ timeout: 60_000 });
    // Nothing aired is left after the furthest watched (the last 12 aired): the page opens in the season watched last.
    await page.locator('.episode').first().waitFor();
    const open = await page.locator('button.season-toggle[aria-expanded="true"]').allTextContents();
    expect(open).toHaveLength(1);
    expect(await domNodes(page)).toBeLessThanOrEqual(3_000);

    // Jump to season 1 (400 episodes) and scroll through all of it: the page's height never moves.
    await page.getByLabel('Jump to').selectOption('1');
    await expect.poll(() => seasonToggle(page, 1).getAttribute('aria-expanded')).toBe('true');
    await page.locator('#season-list-1 .episode').first().waitFor();
    const heights = new Set<number>();
    const nodes: number[] = [];
    const listTop = await page.evaluate(() => document.getElementById('season-list-1')!.getBoundingClientRect().top + window.scrollY);
    for (let y = listTop - 400; y < listTop + 400 * 56 + 800; y += 700) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      heights.add(await page.evaluate(() => document.documentElement.scrollHeight));
      nodes.push(await domNodes(page));
    }
    expect([...heights]).toHaveLength(1);
    expect(Math.max(...nodes)).toBeLessThanOrEqual(3_000);
    // Rows come as the screen reaches them: the last one of season 1 is drawn at the end.
    await page.getByRole('button', { name: 'S01E400 of Tides of the Grand Line watched' }).waitFor();
    // End of the page: the height is the same as at the top.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    heights.add(await page.evaluate(() => document.documentElement.scrollHeight));
    expect([...heights]).toHaveLength(1);
    // Keyboard users reach the drawn rows and the seasons' headers, not 5,500 buttons.
    expect(await tabStops(page)).toBeLessThan(250);

    // Collapse season 1: its rows go, its header stays.
    await seasonToggle(page, 1).click();
    expect(await seasonToggle(page, 1).getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#season-list-1').count()).toBe(0);
    // Each season says its progress: watched of aired.
    expect(await page.getByRole('progressbar', { name: /^Season 13: \d+ of \d+ aired episodes watched$/ }).count()).toBe(1);
    await page.context().close();
  });

  it('opens at the next unwatched episode, its season open and the others collapsed', { timeout: 120_000 }, async () => {
    const page = await signedInPage();
    await page.goto(`${base}/shows/${longShowId}`);
    await page.getByRole('heading', { name: 'Grey Harbor General', level: 1 }).waitFor({ timeout: 60_000 });
    await page.getByRole('region', { name: 'Next episode' }).locator('strong', { hasText: 'S15E01' }).waitFor();
    const row = page.getByRole('button', { name: 'S15E01 of Grey Harbor General watched' });
    await row.waitFor();
    await expect.poll(async () => {
      const box = await row.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 800;
    }).toBe(true);
    expect(await seasonToggle(page, 15).getAttribute('aria-expanded')).toBe('true');
    expect(await seasonToggle(page, 1).getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('button.season-toggle[aria-expanded="true"]').count()).toBe(1);
    await page.context().close();
  });

  it('one mark is one mutation and one small read, the live stream\'s echo of it read by no one but other tabs', { timeout: 120_000 }, async () => {
    const page = await signedInPage();
    const other = await page.context().newPage();
    // Both tabs' live streams are open (answered) before the mark.
    const streams = [page, other].map((tab) => tab.waitForResponse((response) => response.url().includes('operationName=LibraryChanged') && response.status() === 200, { timeout: 60_000 }));
    await other.goto(`${base}/shows/${longShowId}`);
    await page.goto(`${base}/shows/${longShowId}`);
    const button = (tab: Page) => tab.getByRole('button', { name: 'S15E01 of Grey Harbor General watched' });
    await button(page).waitFor({ timeout: 60_000 });
    await button(other).waitFor({ timeout: 60_000 });
    await Promise.all(streams);
    await page.waitForTimeout(1_500);

    const sent: Request[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/graphql') && request.method() === 'POST') sent.push(request);
    });
    await button(page).click();
    await expect.poll(() => button(page).getAttribute('aria-pressed')).toBe('true');
    // The other tab learns of it from the live stream: the echo was sent.
    await expect.poll(() => button(other).getAttribute('aria-pressed'), { timeout: 15_000 }).toBe('true');
    await page.getByRole('region', { name: 'Next episode' }).locator('strong', { hasText: 'S15E02' }).waitFor();
    // Two more polls of the stream: anything the echo would make this tab read is sent by now.
    await page.waitForTimeout(2_500);
    const operations = sent.map((request) => (request.postDataJSON() as { query: string }).query.match(/^\s*(query|mutation) (\w+)/)?.[2]);
    expect(operations.filter((name) => name === 'MarkWatched')).toHaveLength(1);
    expect(operations.filter((name) => name !== 'MarkWatched')).toEqual(['ShowHead']);
    await page.context().close();
  });

  it('says how many earlier episodes were not watched, reaches them, and the up-next choice moves the show and the REST summary', { timeout: 180_000 }, async () => {
    const page = await signedInPage();
    const big = airdate.catalog.shows[airdate.catalog.bigShow]!;
    const aired = big.episodes.filter((episode) => episode.season !== 0 && episode.air_date !== null && episode.air_date <= airdate.catalog.today).length;
    const token = (await (await page.request.post(`${base}/graphql`, { data: { query: '{ viewer { apiToken } }' }, headers: { origin: base } })).json()).data.viewer.apiToken as string;
    const restUpNext = async () => {
      const summary = (await (await fetch(`${base}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } })).json()) as { upNext: { show: string; episode: string }[] };
      return summary.upNext.find((item) => item.show === big.title)?.episode ?? null;
    };
    expect(await restUpNext()).toBeNull();

    await page.goto(`${base}/shows/${bigShowId}`);
    const next = page.getByRole('region', { name: 'Next episode' });
    await next.getByText('Nothing aired is left after the furthest watched.').waitFor({ timeout: 60_000 });
    // Only the last 12 aired episodes are watched.
    await next.getByText(`${(aired - 12).toLocaleString('en-US').replace(/,/g, '')} earlier episodes not watched.`).waitFor();
    await next.getByRole('button', { name: 'Show the first (S01E01)' }).click();
    const first = page.getByRole('button', { name: 'S01E01 of Tides of the Grand Line watched' });
    await expect.poll(async () => {
      const box = await first.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 800;
    }).toBe(true);

    // This show: the first unwatched aired episode. Up next and the REST summary follow.
    await next.getByLabel('Up next offers').selectOption('FIRST_UNWATCHED');
    await next.locator('strong', { hasText: 'S01E01' }).waitFor();
    expect(await restUpNext()).toBe('S01E01');
    // Back to the account's choice (the default): caught up again.
    await next.getByLabel('Up next offers').selectOption('');
    await next.getByText('Nothing aired is left after the furthest watched.').waitFor();
    expect(await restUpNext()).toBeNull();

    // The account's choice, from the Account page: every show without its own follows it.
    await page.goto(`${base}/settings/account`);
    await page.getByLabel('The first unwatched aired episode').check();
    await page.getByText('Up next now offers the first unwatched aired episode.').waitFor();
    expect(await restUpNext()).toBe('S01E01');
    await page.goto(`${base}/shows/${bigShowId}`);
    await page.getByRole('region', { name: 'Next episode' }).locator('strong', { hasText: 'S01E01' }).waitFor({ timeout: 60_000 });
    await page.context().close();
  });
});
