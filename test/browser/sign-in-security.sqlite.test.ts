import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startOidcProvider } from '../support/oidc-provider.ts';
import { completeSetup, launchChromium, signInThroughPage, startAirdate } from './browser-support.ts';

// Sign-in under attack and by single sign-on, in a real browser: the sign-in limit's 429 shown
// (and the owner's own browser let in all the same, by its device cookie), cross-site requests
// from another origin's page refused with nothing changed, the SSO button completing a sign-in
// through a real OpenID provider, and hostile returnTo paths landing on this origin.
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
const port = await freePort();
const provider = await startOidcProvider({ redirectUri: `http://localhost:${port}/auth/oidc/callback`, accounts: [{ sub: 'sso-bob', preferred_username: 'bob' }] });
const browser = await launchChromium();
const airdate = await startAirdate({
  PORT: String(port),
  AIRDATE_OIDC_ISSUER: provider.issuer,
  AIRDATE_OIDC_CLIENT_ID: provider.clientId,
  AIRDATE_OIDC_CLIENT_SECRET: provider.clientSecret,
  AIRDATE_OIDC_CREATE_USERS: 'true',
  AIRDATE_OIDC_LABEL: 'Test SSO',
});
const password = 'the administrator password';
const admin = await browser.newContext();
const adminPage = await admin.newPage();
adminPage.setDefaultTimeout(30_000);
await completeSetup(adminPage, airdate.setupUrl, 'root', password);

const viewerWebhook = async () => {
  const answer = await adminPage.request.post(`${airdate.baseUrl}/graphql`, { data: { query: '{ viewer { webhookUrl } }' }, headers: { origin: airdate.baseUrl } });
  return ((await answer.json()) as { data: { viewer: { webhookUrl: string | null } } }).data.viewer.webhookUrl;
};

// Each wrong password costs a real scrypt verification (~0.5 s, seconds on a loaded machine): the
// pages wait up to 30 s for each answer.
describe('sign-in in the browser', { timeout: 180_000 }, () => {
  it('shows the 429 of the sign-in limit after repeated wrong passwords, and refuses the right one then', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${airdate.baseUrl}/sign-in`);
    for (let attempt = 1; attempt <= 10; attempt++) {
      await signInThroughPage(page, 'root', `wrong password ${attempt}`);
      await page.getByRole('alert').filter({ hasText: 'That name and password do not match an account.' }).waitFor();
    }
    await signInThroughPage(page, 'root', password);
    await page.getByRole('alert').filter({ hasText: /too many .*try again in \d+ s/i }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();

    // The owner's browser (it made the account, so it holds the device cookie) still gets in after signing out.
    const own = await admin.newPage();
    own.setDefaultTimeout(30_000);
    await own.request.post(`${airdate.baseUrl}/graphql`, { data: { query: 'mutation { signOut }' }, headers: { origin: airdate.baseUrl } });
    await own.goto(`${airdate.baseUrl}/sign-in`);
    const [answer] = await Promise.all([
      own.waitForResponse((response) => response.url().endsWith('/graphql') && (response.request().postData() ?? '').includes('signIn(')),
      signInThroughPage(own, 'root', password),
    ]);
    expect(answer.status()).toBe(200);
    const viewer = await own.request.post(`${airdate.baseUrl}/graphql`, { data: { query: '{ viewer { name } }' }, headers: { origin: airdate.baseUrl } });
    expect(await viewer.json()).toEqual({ data: { viewer: { name: 'root' } } });
    await own.close();
  });

  it('refuses cross-site form posts and fetches from another origin, and nothing changes', async () => {
    await adminPage.goto(`${airdate.baseUrl}/settings/developer`);
    const before = await viewerWebhook();
    const mutation = 'mutation { updateSettings(input: { webhookUrl: "https://attacker.example/hook" }) { __typename } }';
    // Same site (localhost), another origin: the Lax cookie goes along, so only the Origin check stops it.
    const attacker: Server = createHttpServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>attacker</title>
        <form id="form" method="POST" action="${airdate.baseUrl}/graphql" enctype="text/plain">
          <input name='{"query":${JSON.stringify(JSON.stringify(mutation)).slice(0, -1)}", "x":"' value='"}'>
        </form>
        <script>
          fetch(${JSON.stringify(`${airdate.baseUrl}/graphql`)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: ${JSON.stringify(mutation)} }) })
            .then(() => { document.title = 'fetched'; }, () => { document.title = 'fetched'; });
        </script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise((resolve) => attacker.close(resolve)));
    const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;

    const page = await admin.newPage();
    const refusals: number[] = [];
    page.on('response', (response) => void (response.url().endsWith('/graphql') && refusals.push(response.status())));
    await page.goto(attackerUrl);
    await expect.poll(() => page.title()).toBe('fetched');
    await Promise.all([page.waitForURL(`${airdate.baseUrl}/graphql`), page.evaluate(() => (document.getElementById('form') as HTMLFormElement).submit())]);
    expect(await page.textContent('body')).toContain('cross-site request refused');
    expect(refusals).toEqual([403, 403]);
    expect(await viewerWebhook()).toBe(before);
    await page.close();
  });

  it('signs in with the SSO button through a real OpenID provider, back on the page asked for', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${airdate.baseUrl}/import-export`);
    const button = page.getByRole('link', { name: 'Sign in with Test SSO' });
    await button.waitFor();
    // The browser follows Airdate's redirect to the provider; the test plays the person there.
    // (A redirect cannot be intercepted, so the provider's own login page loads; the test reads the
    // authorization request the browser made and signs in there over HTTP.)
    const [authorization] = await Promise.all([page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/`)), button.click()]);
    const authorizationUrl = authorization.url();
    expect(authorizationUrl).toContain('code_challenge_method=S256');
    const callback = await provider.signIn(authorizationUrl, { username: 'sso-bob' });
    await page.goto(callback.href);
    await page.getByRole('heading', { name: 'Import & export' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/import-export');
    await page.getByText('bob', { exact: true }).waitFor();
    await context.close();
  });

  it("returns from single sign-on started by another origin's link with a hostile returnTo to a page of this origin only", async () => {
    // returnTo as a link on another page of the same site could set it, and where the browser lands.
    const cases = [
      ['/。evil.example', '/%E3%80%82evil.example'],
      ['/🎬', '/%F0%9F%8E%AC'],
      ['/.//evil.example', '/'],
      ['//evil.example', '/'],
      ['/\\evil.example', '/'],
    ];
    const links: Server = createHttpServer((_, response) => {
      const anchors = cases.map(([returnTo], index) => `<a id="l${index}" href="${airdate.baseUrl}/auth/oidc/start?returnTo=${encodeURIComponent(returnTo!)}">${index}</a>`);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>links</title>${anchors.join(' ')}`);
    });
    await new Promise<void>((resolve) => links.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise((resolve) => links.close(resolve)));
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    for (const [index, [returnTo, expected]] of cases.entries()) {
      await page.goto(`http://localhost:${(links.address() as AddressInfo).port}/`);
      const [authorization] = await Promise.all([page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/`)), page.click(`#l${index}`)]);
      const callback = await provider.signIn(authorization.url(), { username: 'sso-bob' });
      const answer = await page.goto(callback.href);
      expect([returnTo, answer?.status(), page.url()]).toEqual([returnTo, 200, `${airdate.baseUrl}${expected}`]);
    }
    await context.close();
  });
});
