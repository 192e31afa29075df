import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// The library in a browser, against a real server with a fixed offline catalog: search → follow →
// mark the first episode → up next moves on → the REST summary agrees; one click on home and its
// undo toast; a season and "up to here" with each date choice → the history says those dates;
// undo from the history; a movie released today under "releasing"; a refused mark rolled back
// with the reason; the same pages at phone width. One server, one browser, one account.
const today = localDate('UTC', new Date());
const catalogDir = mkdtempSync(path.join(tmpdir(), 'airdate-library-'));
const catalogFile = path.join(catalogDir, 'catalog.json');
const aired = (days: number) => addDays(today, -days);
writeFileSync(
  catalogFile,
  JSON.stringify({
    shows: [
      {
        ids: { tmdb: 880001 },
        title: 'Harbor Lights',
        poster: null,
        episodes: [
          { season: 1, number: 1, title: 'Arrival', air_date: aired(60) },
          { season: 1, number: 2, title: 'Fog', air_date: aired(53) },
          { season: 1, number: 3, title: 'Tide', air_date: aired(46) },
          { season: 1, number: 4, title: 'Storm', air_date: aired(39) },
          { season: 2, number: 1, title: 'Return', air_date: aired(10) },
          { season: 2, number: 2, title: 'Anchor', air_date: aired(3) },
          { season: 2, number: 3, title: 'Lantern', air_date: addDays(today, 4) },
          { season: 0, number: 1, title: 'Making of', air_date: aired(20) },
        ],
      },
    ],
    movies: [{ ids: { tmdb: 880002 }, title: 'Tidewater', release_date: today, poster: null }],
    games: [{ ids: { igdb: 880003 }, title: 'Lighthouse Keeper', release_date: aired(100), poster: null }],
  }),
);

const browser = await launchChromium();
const airdate = await startAirdate({ AIRDATE_CATALOG_FILE: catalogFile, AIRDATE_JOB_POLL_MS: '100' });
const base = airdate.baseUrl;
const password = 'correct horse battery';

/** Runs GraphQL with the page's session cookie. */
async function gql(page: Page, query: string, variables: Record<string, unknown> = {}) {
  const response = await page.request.post(`${base}/graphql`, { data: { query, variables }, headers: { origin: base } });
  const body = (await response.json()) as { data: any; errors?: unknown };
  expect(body.errors, JSON.stringify(body)).toBeUndefined();
  expect(response.status(), JSON.stringify(body)).toBe(200);
  return body.data;
}

/** The REST summary, as Home Assistant reads it. */
async function restSummary(page: Page) {
  const token = (await gql(page, '{ viewer { apiToken } }')).viewer.apiToken as string;
  const response = await fetch(`${base}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { next: { episode: string; show: string } | null; upNext: { episode: string }[]; releasing: { title: string }[] };
}

const watchedCodes = async (page: Page) => {
  const data = await gql(page, '{ library(kind: SHOW) { edges { node { item { ... on Show { episodes { code watched } } } } } } }');
  return (data.library.edges[0].node.item.episodes as { code: string; watched: boolean }[]).filter((episode) => episode.watched).map((episode) => episode.code);
};

/** What the history page writes for a mark dated `at` (the test browser is en-US in UTC). */
const shownTime = (at: string) => new Date(at).toLocaleString('en-US', { timeZone: 'UTC' });

describe('the library in the browser', () => {
  it('searches, follows, marks one and many episodes with each date, undoes, and lists releases', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ timezoneId: 'UTC', locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await completeSetup(page, airdate.setupUrl, 'alice', password);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByText('Nothing followed yet.').waitFor();

    // Search and follow, from the main navigation.
    await page.getByRole('navigation', { name: 'Library' }).getByRole('link', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
    await page.getByLabel('Title').fill('Harbor');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const follow = page.getByRole('button', { name: 'Follow Harbor Lights' });
    await follow.click();
    await page.getByText('Harbor Lights is now followed.').waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Following Harbor Lights' }).getAttribute('aria-pressed')).toBe('true');
    // Searching again shows it as followed: the server's state, not the page's memory.
    await page.reload();
    await page.getByRole('button', { name: 'Following Harbor Lights' }).waitFor();
    await page.getByText('Following', { exact: true }).waitFor();

    // The show: its next episode is the first one; mark it.
    await page.getByRole('link', { name: 'Harbor Lights' }).click();
    await page.getByRole('heading', { name: 'Harbor Lights', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Next episode' }).locator('strong', { hasText: 'S01E01' }).waitFor();
    await page.getByRole('button', { name: 'S01E01 of Harbor Lights watched' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'S01E01 of Harbor Lights watched' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('region', { name: 'Next episode' }).locator('strong', { hasText: 'S01E02' }).waitFor();

    // Home: up next moved on, and the REST summary agrees.
    await page.getByRole('link', { name: 'Home' }).click();
    const upNext = page.getByRole('region', { name: /Up next/ });
    await upNext.getByText('S01E02 · Fog').waitFor();
    expect((await restSummary(page)).next).toMatchObject({ show: 'Harbor Lights', episode: 'S01E02' });

    // One click on home moves the show on at once; the toast's Undo takes it back.
    await upNext.getByRole('button', { name: 'Watched: S01E02 of Harbor Lights' }).click();
    await upNext.getByText('S01E03 · Tide').waitFor();
    expect((await restSummary(page)).next?.episode).toBe('S01E03');
    const toast = page.locator('.toast');
    await toast.getByText('S01E02 of Harbor Lights marked watched').waitFor();
    await toast.getByRole('button', { name: 'Undo' }).click();
    await toast.getByText('Undone.').waitFor();
    await upNext.getByText('S01E02 · Fog').waitFor();
    expect((await restSummary(page)).next?.episode).toBe('S01E02');
    expect(await watchedCodes(page)).toEqual(['S01E01']);

    // A season with its air dates: the confirmation says only aired episodes are marked.
    await page.goto(`${base}/search?q=Harbor`);
    await page.getByRole('link', { name: 'Harbor Lights' }).click();
    await page.getByRole('button', { name: 'Mark season watched… Season 2' }).click();
    let dialog = page.getByRole('dialog', { name: 'Mark season 2?' });
    await dialog.getByText('Only episodes that have already aired are marked: 2 episodes; 1 not aired yet is left alone.').waitFor();
    await dialog.getByLabel('Each episode’s air date').check();
    await dialog.getByRole('button', { name: 'Mark watched' }).click();
    await page.locator('.toast').getByText('2 episodes of Harbor Lights marked watched').waitFor();
    await expect.poll(() => watchedCodes(page)).toEqual(['S01E01', 'S02E01', 'S02E02']);

    // "Up to here" on S01E03 with the date unknown: S01E02 and S01E03; specials stay out.
    await page.getByRole('button', { name: 'Up to here (S01E03)' }).click();
    dialog = page.getByRole('dialog', { name: 'Mark everything up to S01E03?' });
    await dialog.getByText('Only episodes that have already aired are marked: 2 episodes.').waitFor();
    await dialog.getByLabel('Date unknown').check();
    await dialog.getByRole('button', { name: 'Mark watched' }).click();
    await expect.poll(() => watchedCodes(page)).toEqual(['S01E01', 'S01E02', 'S01E03', 'S02E01', 'S02E02']);

    // "Up to here" on S01E04, dated now.
    const before = Date.now();
    await page.getByRole('button', { name: 'Up to here (S01E04)' }).click();
    dialog = page.getByRole('dialog', { name: 'Mark everything up to S01E04?' });
    await dialog.getByText('Only episodes that have already aired are marked: 1 episode.').waitFor();
    await dialog.getByRole('button', { name: 'Mark watched' }).click();
    await expect.poll(() => watchedCodes(page)).toEqual(['S01E01', 'S01E02', 'S01E03', 'S01E04', 'S02E01', 'S02E02']);
    // Nothing aired is left: the show says so; the special was never marked.
    await page.getByText('Nothing aired is left to watch.').waitFor();
    await page.getByRole('region', { name: /Specials/ }).getByText('0 of 1 watched').waitFor();

    // The history says the chosen dates, newest first.
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    const entry = (code: string) => page.getByRole('listitem').filter({ hasText: code });
    await entry('S02E01').getByText(`Watched ${shownTime(`${aired(10)}T12:00:00.000Z`)}`).waitFor();
    await entry('S02E02').getByText(`Watched ${shownTime(`${aired(3)}T12:00:00.000Z`)}`).waitFor();
    await entry('S01E02').getByText(/Watched, date unknown \(marked /).waitFor();
    await entry('S01E03').getByText(/Watched, date unknown \(marked /).waitFor();
    const nowText = await entry('S01E04').locator('.hint').textContent();
    const recorded = new Date(`${nowText!.replace(/^Watched /, '')} UTC`).getTime();
    expect(recorded).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(recorded).toBeLessThanOrEqual(Date.now());
    // Newest first: the marks dated now come before the ones dated by their air dates.
    const order = await page.locator('.history .item').allTextContents();
    expect(order.findIndex((text) => text.includes('S01E04'))).toBeLessThan(order.findIndex((text) => text.includes('S02E02')));
    expect(order.findIndex((text) => text.includes('S02E02'))).toBeLessThan(order.findIndex((text) => text.includes('S02E01')));

    // Undo from the history: S01E04 is unwatched again and its entry gone.
    await entry('S01E04').getByRole('button', { name: /^Undo/ }).click();
    await page.getByText('Harbor Lights S01E04: the mark was undone.').waitFor();
    await expect.poll(() => entry('S01E04').count()).toBe(0);
    await expect.poll(() => watchedCodes(page)).toEqual(['S01E01', 'S01E02', 'S01E03', 'S02E01', 'S02E02']);
    // By the summary's rule, S01E04 is skipped (watched episodes come after it): nothing is up next.
    expect((await restSummary(page)).next).toBeNull();

    // A movie released today: followed from a search by kind, it shows under "Releasing soon".
    await page.goto(`${base}/search?q=Tidewater&kind=MOVIE`);
    await page.getByRole('button', { name: 'Follow Tidewater' }).click();
    await page.getByText('Tidewater is now followed.').waitFor();
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('region', { name: /Releasing soon/ }).getByText('Tidewater').waitFor();
    expect((await restSummary(page)).releasing.map((item) => item.title)).toContain('Tidewater');

    // Movies by state: released today, then watched from the page.
    await page.getByRole('link', { name: 'Movies' }).click();
    await page.getByRole('heading', { name: 'Movies', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Released (1)' }).click();
    await page.getByRole('button', { name: 'Watched: Tidewater' }).click();
    await page.getByRole('button', { name: 'Watched (1)' }).waitFor();
    await page.getByRole('button', { name: 'Released (0)' }).waitFor();
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('region', { name: /Releasing soon/ }).getByText('Nothing releasing today or tomorrow.').waitFor();

    // The history by kind: movies only.
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    await page.getByLabel('Show').selectOption('MOVIE');
    await expect.poll(() => new URL(page.url()).search).toBe('?kind=MOVIE');
    await expect.poll(async () => (await page.locator('main').textContent())?.match(/Page 1 of 1 \(\d+ entries\)|Nothing watched yet/)?.[0], { message: 'the history page' }).toBe('Page 1 of 1 (1 entries)');
    expect(await page.locator('.history .item').allTextContents()).toEqual([expect.stringContaining('Tidewater')]);

    // A refused mark is rolled back, with the server's reason on the page.
    await page.goto(`${base}/shows/${(await gql(page, '{ searchCatalog(query: "Harbor") { ... on Show { databaseId } } }')).searchCatalog[0].databaseId}`);
    await page.getByRole('heading', { name: 'Harbor Lights', level: 1 }).waitFor();
    await page.route('**/graphql', async (route) => {
      const body = route.request().postDataJSON() as { query: string };
      if (!body.query.includes('mutation MarkWatched')) return route.continue();
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ data: { markWatched: { __typename: 'NotFoundError', message: 'episode 1 not found' } } }) });
    });
    const s1e4 = page.getByRole('button', { name: 'S01E04 of Harbor Lights watched' });
    await s1e4.click();
    await page.getByRole('alert').getByText('S01E04 was not marked: Episode 1 not found.').waitFor();
    expect(await s1e4.getAttribute('aria-pressed')).toBe('false');
    await page.unroute('**/graphql');
    await context.close();
  });

  it('fits a 390 px phone: one-line header, no page wider than the screen, marks work', { timeout: 90_000 }, async () => {
    const context = await browser.newContext({ timezoneId: 'UTC', locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    const header = await page.locator('header.top').boundingBox();
    expect(header!.height).toBeLessThan(70);
    const showId = (await gql(page, '{ searchCatalog(query: "Harbor") { ... on Show { databaseId } } }')).searchCatalog[0].databaseId;
    // A release notification in the delivery log (Tidewater, followed, out today, unwatched again): the sync's release check sends it.
    const movieId = (await gql(page, '{ searchCatalog(query: "Tidewater", kind: MOVIE) { ... on Movie { databaseId } } }')).searchCatalog[0].databaseId;
    await gql(page, 'mutation ($id: Int!) { markWatched(input: { kind: MOVIE, ids: [$id], watched: false }) { __typename } }', { id: movieId });
    const receiver = await startReceiver({ respond: (_, response) => response.writeHead(200).end('ok') });
    await gql(page, 'mutation ($url: String!) { updateSettings(input: { webhookUrl: $url }) { __typename } }', { url: `${receiver.url}/hook` });
    const token = (await gql(page, '{ viewer { apiToken } }')).viewer.apiToken as string;
    expect((await fetch(`${base}/api/machine/sync`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(1);
    for (const target of ['/', '/search?q=Harbor', `/shows/${showId}`, '/movies', '/games', '/history', '/settings/developer', '/settings/account', '/import-export']) {
      await page.goto(`${base}${target}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(() => document.documentElement.scrollWidth), target).toBeLessThanOrEqual(390);
    }
    // The delivery log names the movie, and "Send again" sends it again and shows the new attempt count.
    await page.goto(`${base}/settings/developer`);
    const sendAgain = page.getByRole('button', { name: /^Send again: Tidewater/ });
    await sendAgain.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await sendAgain.click();
    await page.getByText('Sending again; the log shows the new attempt when it is made.').waitFor();
    await expect.poll(() => receiver.requests.length).toBe(2);
    await page.getByRole('row').filter({ hasText: 'Tidewater' }).getByRole('cell', { name: '2', exact: true }).waitFor();
    // The copy buttons say what they copy; the test button says why it waits for a saved URL.
    await page.getByRole('button', { name: 'Copy API token' }).waitFor();
    await page.getByRole('button', { name: 'Copy Signing secret' }).waitFor();
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill('https://example.com/other');
    const testButton = page.getByRole('button', { name: 'Send a test notification' });
    expect(await testButton.isDisabled()).toBe(true);
    await page.getByText('The URL in the field is not saved yet: save it first, the test goes to the saved URL.').waitFor();

    // Up next on the phone: with season 2 unmarked (over GraphQL), S01E04 is next; one tap marks it and the show moves on.
    await gql(page, 'mutation ($id: Int!) { markEpisodes(input: { showId: $id, season: 2, watched: false }) { __typename } }', { id: showId });
    await page.goto(`${base}/`);
    const upNext = page.getByRole('region', { name: /Up next/ });
    await upNext.getByRole('button', { name: 'Watched: S01E04 of Harbor Lights' }).tap();
    await expect.poll(() => watchedCodes(page)).toContain('S01E04');
    await upNext.getByText('S02E01 · Return').waitFor();

    // A change made elsewhere (over REST, as Home Assistant makes it) shows when the tab is focused again.
    const episodes = (await gql(page, 'query ($id: Int!) { show(id: $id) { episodes { databaseId code } } }', { id: showId })).show.episodes as { databaseId: number; code: string }[];
    const s2e1 = episodes.find((episode) => episode.code === 'S02E01')!.databaseId;
    const marked = await fetch(`${base}/api/machine/watched`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'episode', id: s2e1, watched: true }) });
    expect(marked.status).toBe(200);
    // (Focus refetches run at most once a second: the poll focuses again until one runs.)
    await expect
      .poll(async () => {
        await page.evaluate(() => window.dispatchEvent(new Event('focus')));
        return upNext.getByText('S02E02 · Anchor').count();
      }, { interval: 250 })
      .toBe(1);
    await context.close();
  });
});
