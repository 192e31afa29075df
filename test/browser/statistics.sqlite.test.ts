import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { setWatched } from '../../src/library/library.ts';
import { makeMovie, makeShow } from '../support/factories.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// The statistics page against a real server: the empty state says what to do, then a history of
// two years shows the totals, hours (and what lacked a runtime), months, weekdays, the top show,
// and another year picked from the list; at phone width nothing overflows.
const browser = await launchChromium();
const airdate = await startAirdate();

describe('the statistics page', () => {
  it('shows an empty history, then a year in review with hours, months, weekdays and shows, and another year', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await completeSetup(page, airdate.setupUrl, 'dana', 'a long enough password');
    await page.getByRole('navigation', { name: 'Library' }).getByRole('link', { name: 'Statistics' }).click();
    await page.getByRole('heading', { name: 'Nothing watched yet' }).waitFor();
    expect(await page.getByRole('link', { name: 'import your history' }).getAttribute('href')).toBe('/import-export');

    const account = await db().account.findUniqueOrThrow({ where: { name: 'dana' } });
    const show = await makeShow({ title: 'Orchard Lane', episodes: [1, 2, 3].map((number) => ({ number, airDate: '2024-01-01' })) });
    await db().episode.updateMany({ where: { showId: show.id, number: { lte: 2 } }, data: { runtime: 45 } });
    const film = await makeMovie({ title: 'Night Ferry' });
    await db().movie.update({ where: { id: film.id }, data: { runtime: 90 } });
    const watch = (kind: 'episode' | 'movie', id: number, at: string) => setWatched({ accountId: account.id, kind, id, watched: true, at: new Date(at) });
    // The account is in UTC: Saturday 1 March 2025 and Monday 3 March; Friday 1 March 2024.
    await watch('episode', show.episodes[0]!.id, '2025-03-01T20:00:00Z');
    await watch('episode', show.episodes[1]!.id, '2025-03-03T20:00:00Z');
    await watch('movie', film.id, '2025-03-03T22:00:00Z');
    await watch('episode', show.episodes[2]!.id, '2024-03-01T20:00:00Z');

    await page.reload();
    await page.getByRole('heading', { name: '2025 in review' }).waitFor();
    const allTime = page.getByRole('region', { name: 'All time' });
    expect(await allTime.locator('dt:has-text("Episodes") + dd').textContent()).toBe('3');
    expect(await allTime.locator('dt:has-text("Hours watched") + dd').textContent()).toBe('3 h');
    await allTime.getByText('1 episode or movie without a known runtime is not in the hours.').waitFor();
    const review = page.getByRole('region', { name: '2025 in review' });
    expect(await review.locator('dt:has-text("Movies") + dd').textContent()).toBe('1');
    expect(await review.locator('dt:has-text("Hours watched") + dd').textContent()).toBe('3 h');
    await review.getByText('Most watched show: Orchard Lane (2 episodes, 1.5 h).').waitFor();
    await review.getByText('Busiest month: March (3 items).').waitFor();
    await review.getByText('Favourite day: Monday (2 items).').waitFor();
    const byMonth = page.getByRole('table', { name: 'By month, 2025' });
    expect(await byMonth.getByRole('row', { name: /^March/ }).locator('td').allTextContents()).toEqual(['2', '1', '3 h', '']);
    expect(await page.getByRole('table', { name: 'By weekday, 2025' }).getByRole('row', { name: /^Saturday/ }).locator('td').first().textContent()).toBe('1');

    // Another year from the list: the URL says it, the review follows.
    await page.getByLabel('Year').selectOption('2024');
    await page.getByRole('heading', { name: '2024 in review' }).waitFor();
    expect(new URL(page.url()).search).toBe('?year=2024');
    await page.getByText('Most watched show: Orchard Lane (1 episode).').waitFor();
    await page.getByText('1 episode or movie without a known runtime', { exact: false }).first().waitFor();

    // A year without history is reviewed as empty; a phone shows it all without overflowing.
    await page.goto(`${airdate.baseUrl}/statistics?year=2020`);
    await page.getByText('Nothing was marked watched in 2020.').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${airdate.baseUrl}/statistics`);
    await page.getByRole('heading', { name: '2025 in review' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The tables fit too: no sideways scrolling to read the hours.
    expect(await page.locator('.table-scroll').evaluateAll((boxes) => boxes.map((box) => box.scrollWidth - box.clientWidth))).toEqual([0, 0]);
    await context.close();
  });
});
