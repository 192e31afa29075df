import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { json, traktMoviePlay, tvTimeTrackingV2, tvTimeWatch } from '../imports/fixtures.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { completeSetup, launchChromium, signInThroughPage, startAirdate } from './browser-support.ts';

// The journey, in a real browser against a real server process: first-run setup, the
// token and what it opens, regenerating it, a signed test notification, an import with its report,
// the export download, signing out. One test: each step starts where the previous one left off.
const browser = await launchChromium();
const airdate = await startAirdate();

describe('a new administrator in the browser', () => {
  it('sets up, uses and replaces the token, tests the webhook, imports, exports and signs out', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const password = 'correct horse battery';
    await completeSetup(page, airdate.setupUrl, 'alice', password);
    expect(new URL(page.url()).pathname).toBe('/');
    // An empty library says what to do next; the account's pages are in the menu.
    await page.getByRole('link', { name: 'Search and follow' }).waitFor();
    await page.getByText('alice', { exact: true }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Developer' }).click();
    await page.getByRole('heading', { name: 'Developer settings' }).waitFor();

    // The token, created on this first view, opens the machine API.
    const tokenField = page.getByRole('textbox', { name: 'API token' });
    const firstToken = await tokenField.inputValue();
    expect(firstToken.length).toBeGreaterThan(20);
    // The delivery log loads (its query stays within the server's cost limit).
    await page.getByText('No release notifications yet.').waitFor();
    const summary = (token: string) => fetch(`${airdate.baseUrl}/api/machine/summary`, { headers: { authorization: `Bearer ${token}` } });
    expect((await summary(firstToken)).status).toBe(200);

    // Regenerate, behind a confirmation: the old token fails at once.
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make a new API token?' });
    await dialog.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByText('A new token was made').waitFor();
    await expect.poll(() => tokenField.inputValue()).not.toBe(firstToken);
    const secondToken = await tokenField.inputValue();
    expect((await summary(firstToken)).status).toBe(401);
    expect((await summary(secondToken)).status).toBe(200);

    // The copyable machine URLs carry the new token and answer as they are (calendar apps and
    // Home Assistant take a URL and nothing else); the subscribe link is the webcal: form.
    const summaryUrl = await page.getByRole('textbox', { name: 'Summary URL' }).inputValue();
    const calendarUrl = await page.getByRole('textbox', { name: 'Calendar URL' }).inputValue();
    expect(summaryUrl).toBe(`${airdate.baseUrl}/api/machine/summary?token=${secondToken}`);
    expect((await fetch(summaryUrl)).status).toBe(200);
    const calendar = await fetch(calendarUrl);
    expect(calendar.status).toBe(200);
    expect(await calendar.text()).toMatch(/^BEGIN:VCALENDAR/);
    const subscribe = await page.getByRole('link', { name: 'Subscribe in your calendar app' }).getAttribute('href');
    expect(subscribe).toBe(calendarUrl.replace(/^http:/, 'webcal:'));

    // The webhook: a bad URL is refused with the server's words, then the receiver gets a signed test.
    const webhookField = page.getByRole('textbox', { name: 'Webhook URL' });
    await webhookField.fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: /http/i }).count()).toBeGreaterThan(0);
    const receiver = await startReceiver({ respond: (_, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('got it, thanks') });
    await webhookField.fill(`${receiver.url}/hook`);
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook URL saved.').waitFor();
    await page.getByRole('button', { name: 'Send a test notification' }).click();
    await page.getByText('The receiver accepted the test notification.').waitFor();
    await page.getByText('got it, thanks').waitFor();
    expect(receiver.requests).toHaveLength(1);
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    const delivered = receiver.requests[0]!;
    const verified = new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>) as { type: string };
    expect(verified.type).toBe('test');

    // Import a Trakt history: the report names every item no catalog knows.
    await page.getByText('alice', { exact: true }).click();
    await page.getByRole('link', { name: 'Import & export' }).click();
    await page.getByRole('heading', { name: 'Import & export' }).waitFor();
    await page.getByLabel('From').selectOption('TRAKT');
    // One film with a TMDB id (kept), one with only Trakt's own id (nothing to match it by).
    const unmatchable = { ...traktMoviePlay(2, '2024-03-02T20:00:00.000Z', 'A Film Nobody Catalogued', null), movie: { ids: { trakt: 600002, slug: 'lost' }, year: 2019, title: 'A Film Nobody Catalogued' } };
    const history = [traktMoviePlay(1, '2024-03-01T20:00:00.000Z', 'A Kept Film', 990001), unmatchable];
    await page.getByLabel('Files (zips too)').setInputFiles({ name: 'history.json', mimeType: 'application/json', buffer: Buffer.from(json(history)) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    const counts = page.getByRole('region', { name: 'Report' });
    expect(await counts.locator('dt:has-text("Movies") + dd').textContent()).toBe('1');
    await page.getByRole('heading', { name: 'Unmatched (1)' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'A Film Nobody Catalogued' }).filter({ hasText: 'history.json' }).waitFor();

    // TV Time's plain times: the zone select shows the account's zone; another is chosen, and the
    // report says which one the times were read in.
    await page.getByLabel('From').selectOption('TVTIME');
    const zone = page.getByLabel('Times without a time zone are in');
    const viewer = await fetch(`${airdate.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${secondToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ viewer { timezone } }' }) });
    const accountZone = ((await viewer.json()) as { data: { viewer: { timezone: string } } }).data.viewer.timezone;
    expect(await zone.inputValue()).toBe(accountZone);
    const chosen = accountZone === 'America/Sao_Paulo' ? 'Asia/Tokyo' : 'America/Sao_Paulo';
    await zone.selectOption(chosen);
    const tracking = tvTimeTrackingV2([tvTimeWatch(81189, 'Breaking Bad', 1, 1, '2021-10-20 14:59:55')]);
    await page.getByLabel('Files (zips too)').setInputFiles({ name: 'tracking-prod-records-v2.csv', mimeType: 'text/csv', buffer: Buffer.from(tracking) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { name: 'How the files were read' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: `1 time without a time zone read as local times in ${chosen} (the time zone chosen for this import)` }).waitFor();

    // The export downloads with the session cookie.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download export' }).click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as Record<string, unknown>;
    expect(exported).toHaveProperty('version');

    // Sign out: every page sends the browser to the sign-in page, and back after signing in.
    await page.getByText('alice', { exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    for (const path of ['/settings/developer', '/settings/account', '/import-export', '/admin']) {
      await page.goto(`${airdate.baseUrl}${path}`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(page.url()).toBe(`${airdate.baseUrl}/sign-in?returnTo=${encodeURIComponent(path)}`);
    }
    expect((await page.request.post(`${airdate.baseUrl}/graphql`, { data: { query: '{ viewer { name } }' } })).status()).toBe(401);
    await signInThroughPage(page, 'alice', password);
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin');
    await page.getByText('alice', { exact: true }).first().waitFor();
    await context.close();
  });
});
