import { describe, expect, it } from 'vitest';
import { storeFixtureCatalog } from '../media-servers/catalog.ts';
import { fixture, plexForm } from '../media-servers/fixtures.ts';
import { completeSetup, launchChromium, signInThroughPage, startAirdate } from './browser-support.ts';
import { startFakeServer } from '../media-servers/history/fake-media-server.ts';

// The Connections page in a real browser against a real server: connect Plex, copy its URL, set
// which users count, see deliveries (matched, ignored, unmatched and why) in the log, regenerate
// and disconnect.
const browser = await launchChromium();
const airdate = await startAirdate();
await storeFixtureCatalog();

const scrobble = (user: string, metadata?: Record<string, unknown>) => {
  const body = fixture('plex/episode-scrobble.json');
  return { ...body, Account: { id: 1, title: user }, Metadata: { ...(body.Metadata as object), ...metadata } };
};
const post = (url: string, payload: unknown) => fetch(url, { method: 'POST', body: plexForm(payload, true) });

describe('the Connections page', () => {
  it('connects Plex, shows its URL to copy, saves options, logs why deliveries matched or not, regenerates and disconnects', { timeout: 90_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await completeSetup(page, airdate.setupUrl, 'viewer', 'a long enough password');
    // The account's pages are in the menu under its name.
    await page.getByText('viewer', { exact: true }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connections' }).waitFor();

    const plex = page.getByRole('region', { name: 'Plex', exact: true });
    await plex.getByRole('listitem').first().waitFor();
    expect(await plex.getByRole('listitem').allInnerTexts()).toContainEqual(expect.stringContaining('plex.tv → Account → Webhooks'));
    await plex.getByRole('button', { name: 'Connect Plex', exact: true }).click();
    const urlField = plex.getByRole('textbox', { name: 'Plex URL' });
    await urlField.waitFor();
    const url = await urlField.inputValue();
    expect(url).toMatch(new RegExp(`^${airdate.baseUrl}/api/media-servers/plex\\?token=adw_[0-9A-Za-z]{38}$`));
    // One copy button per URL, each named for what it copies.
    await plex.getByRole('button', { name: 'Copy Plex URL' }).click();
    await plex.getByText('Plex URL copied').waitFor();

    await plex.getByLabel('Users that count').fill('alex');
    await plex.getByRole('button', { name: 'Save Plex options' }).click();
    await plex.getByText('Plex options saved.').waitFor();

    expect((await post(url, scrobble('alex'))).status).toBe(200);
    expect(((await (await post(url, scrobble('kim'))).json()) as { result: string }).result).toBe('ignored');
    const unknown = await (await post(url, scrobble('alex', { grandparentTitle: 'Pluribus', Guid: [{ id: 'tvdb://9100003' }] }))).json();
    expect(unknown).toMatchObject({ result: 'unmatched' });

    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    const log = page.getByRole('table', { name: 'Media server deliveries, newest first' });
    await log.getByRole('row').nth(3).waitFor();
    const rows = (await log.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t').slice(1));
    expect(rows).toEqual([
      ['Plex', 'media.scrobble', 'alex', 'unmatched (waiting for the catalog)', 'no stored episode matches episode ids tvdb:9100003, title "Pluribus" S1E2, and no single followed show has that title'],
      ['Plex', 'media.scrobble', 'kim', 'ignored', 'user kim is not among the users that count'],
      ['Plex', 'media.scrobble', 'alex', 'matched', 'recorded Severance S01E02 (by item ids)'],
    ]);

    await plex.getByRole('button', { name: 'Regenerate Plex URL' }).click();
    await page.getByRole('dialog', { name: 'Make a new Plex URL?' }).getByRole('button', { name: 'Regenerate' }).click();
    await plex.getByText('A new Plex URL was made').waitFor();
    await expect.poll(() => urlField.inputValue()).not.toBe(url);
    const fresh = await urlField.inputValue();
    expect((await post(url, scrobble('alex'))).status).toBe(401);
    expect((await post(fresh, scrobble('alex'))).status).toBe(200);

    await plex.getByRole('button', { name: 'Disconnect Plex' }).click();
    await page.getByRole('dialog', { name: 'Disconnect Plex?' }).getByRole('button', { name: 'Disconnect' }).click();
    await plex.getByRole('button', { name: 'Connect Plex', exact: true }).waitFor();
    expect((await post(fresh, scrobble('alex'))).status).toBe(401);
    await context.close();
  });

  it('brings in a Jellyfin server’s past: a wrong key said plainly, the user picked, a dry run’s report, then the import', { timeout: 90_000 }, async () => {
    const jellyfin = await startFakeServer({ kind: 'jellyfin', key: 'right-key' });
    const context = await browser.newContext();
    const page = await context.newPage();
    // The account the first test set up (this file's server is set up once).
    await page.goto(airdate.baseUrl);
    await signInThroughPage(page, 'viewer', 'a long enough password');
    await page.getByText('viewer', { exact: true }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connections' }).waitFor();
    const past = page.getByRole('region', { name: 'Bring in what you watched before' });
    await past.getByLabel('Address').fill(jellyfin.url);
    await past.getByLabel('API key').fill('wrong-key');
    await past.getByRole('button', { name: 'Save server' }).click();
    await past.getByText('Jellyfin saved').waitFor();
    const card = past.getByRole('region', { name: `Jellyfin at ${jellyfin.url}` });
    await card.getByRole('button', { name: 'Find Jellyfin users' }).click();
    await card.getByText(/refused the API key \(401\) for the list of users: check it/).waitFor();

    await past.getByLabel('API key').fill('right-key');
    await past.getByRole('button', { name: 'Save server' }).click();
    await card.getByRole('button', { name: 'Find Jellyfin users' }).click();
    await card.getByLabel('Which user is you').selectOption({ label: 'sam' });
    await card.getByRole('button', { name: 'Dry run' }).click();
    await card.getByText('Report (dry run, nothing written)').waitFor({ timeout: 30_000 });
    expect(await card.getByText(/Dry run finished .*: 4 items read\./).count()).toBe(1);
    await card.getByText("Frieren: Beyond Journey's End — show").waitFor();
    await card.getByRole('button', { name: 'Import', exact: true }).click();
    await card.getByRole('heading', { name: 'Report', exact: true }).waitFor({ timeout: 30_000 });
    await card.getByText(/Import finished .*: 4 items read\./).waitFor();
    await context.close();
    await jellyfin.close();
  });
});
