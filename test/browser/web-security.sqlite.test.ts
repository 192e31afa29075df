import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// The web surface as an attacker's page uses it, in Chromium: a page of another origin of the same
// site (another port of localhost: the SameSite=Lax cookie goes along) trying to read a signed-in
// administrator's token and accounts; a DNS-rebinding page (its name made to resolve to the
// server); and the GraphiQL page, which must work from this server alone under its CSP.
const rebindName = 'rebind.attacker.example';
// The rebinding name resolves to the server; Chromium's Local Network Access checks (a browser's own,
// not every browser has them) are off so that only the server's own defence is tested.
const browser = await launchChromium([`--host-resolver-rules=MAP ${rebindName} 127.0.0.1`, '--disable-features=LocalNetworkAccessChecks']);
const airdate = await startAirdate();
const password = 'the administrator password';
const admin = await browser.newContext();
const adminPage = await admin.newPage();
adminPage.setDefaultTimeout(30_000);
await completeSetup(adminPage, airdate.setupUrl, 'root', password);

/** An HTTP server answering every request with `html`, on 127.0.0.1; its port. */
async function pageServer(html: string): Promise<number> {
  const server: Server = createServer((_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

/**
 * A script that tries each read and puts what came of it in `window.outcomes`: the text read, or
 * `blocked` when the browser refused to let the page have the answer.
 */
const tryReads = (reads: Record<string, { url: string; init?: RequestInit }>) => `<script>
  const reads = ${JSON.stringify(reads)};
  window.outcomes = Promise.all(Object.entries(reads).map(([name, { url, init }]) =>
    fetch(url, init).then(async (response) => [name, response.status + ' ' + (await response.text())], () => [name, 'blocked'])))
    .then(Object.fromEntries);
</script>`;

describe('the web surface against pages of other origins', { timeout: 120_000 }, () => {
  it("a page on another port of the same site reads neither the signed-in administrator's token nor the accounts", async () => {
    const base = airdate.baseUrl;
    const query = (text: string) => `${base}/graphql?query=${encodeURIComponent(text)}`;
    const reads = {
      token: { url: query('{ viewer { name apiToken } }'), init: { credentials: 'include' } },
      tokenByPost: {
        url: `${base}/graphql`,
        init: { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ viewer { apiToken } }' }) },
      },
      accounts: { url: query('{ accounts(first: 10) { name role } }'), init: { credentials: 'include' } },
      export: { url: `${base}/api/export`, init: { credentials: 'include' } },
    } satisfies Record<string, { url: string; init: RequestInit }>;
    const port = await pageServer(`<!doctype html><title>another page of the site</title>${tryReads(reads)}`);
    const page = await admin.newPage();
    await page.goto(`http://localhost:${port}/`);
    const outcomes = await page.evaluate(() => (window as unknown as { outcomes: Promise<Record<string, string>> }).outcomes);
    // (The server refuses them too, before running anything: test/http/web-security.test.ts.)
    expect(outcomes).toEqual({ token: 'blocked', tokenByPost: 'blocked', accounts: 'blocked', export: 'blocked' });
    // The same reads from the web app's own page work: the test can tell a read that succeeds.
    await adminPage.goto(`${base}/settings/developer`);
    const own = await adminPage.evaluate((urls) => Promise.all(urls.map((url) => fetch(url).then((response) => response.json()))), [reads.token.url, reads.accounts.url]);
    expect(own.map((answer) => answer.data)).toEqual([{ viewer: { name: 'root', apiToken: expect.stringMatching(/^adt_/) } }, { accounts: [{ name: 'root', role: 'ADMIN' }] }]);
    await page.close();
  });

  it('a DNS-rebinding page (its name resolving to the server) reaches nothing: every answer is a 400', async () => {
    const origin = `http://${rebindName}:${new URL(airdate.baseUrl).port}`;
    const reads = {
      signIn: {
        url: '/graphql',
        init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { signIn(name: "root", password: "guess") { name } }' }) },
      },
      authInfo: { url: `/graphql?query=${encodeURIComponent('{ authInfo { signedIn } }')}` },
      health: { url: '/healthz' },
      page: { url: '/' },
    };
    const page = await browser.newPage();
    // The attacker's own server answers the first load (before the name is pointed at the server).
    await page.route(`${origin}/`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: `<!doctype html><title>rebound</title>${tryReads(reads)}` }), { times: 1 });
    await page.goto(`${origin}/`);
    const outcomes = await page.evaluate(() => (window as unknown as { outcomes: Promise<Record<string, string>> }).outcomes);
    const refusal = `400 {"error":"this server does not answer to the host \\"${rebindName}\\": set AIRDATE_PUBLIC_URL to the address people open, or add the name to AIRDATE_ALLOWED_HOSTS"}`;
    expect(outcomes).toEqual({ signIn: refusal, authInfo: refusal, health: refusal, page: refusal });
    await page.close();
  });

  it('GraphiQL works from this server alone, under its CSP: nothing loaded from elsewhere, nothing refused, no page may frame it', async () => {
    const base = airdate.baseUrl;
    const token = ((await (await adminPage.request.post(`${base}/graphql`, { data: { query: '{ viewer { apiToken } }' }, headers: { origin: base } })).json()) as { data: { viewer: { apiToken: string } } }).data.viewer.apiToken;
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const elsewhere: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => void (!request.url().startsWith(`${base}/`) && !/^(data|blob):/.test(request.url()) && elsewhere.push(request.url())));
    page.on('console', (message) => void (/Content.Security.Policy|Refused to/i.test(message.text()) && problems.push(message.text())));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`Content Security Policy: ${event.violatedDirective} refused ${event.blockedURI}`));
    });
    const answer = await page.goto(`${base}/graphql`);
    const headers = answer!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect([headers['x-frame-options'], headers['x-content-type-options']]).toEqual(['DENY', 'nosniff']);

    // The person pastes their token into the headers editor and a query into the query editor, and runs it.
    const paste = async (editor: string, text: string) => {
      await page.locator(`${editor} .monaco-editor`).click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.evaluate((pasted) => navigator.clipboard.writeText(pasted), text);
      await page.keyboard.press('ControlOrMeta+V');
      // Monaco shows spaces as no-break spaces.
      await expect.poll(async () => (await page.locator(`${editor} .monaco-editor .view-lines`).innerText()).replace(/\u00a0/g, ' ')).toBe(text);
    };
    await paste('.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${token}` }));
    await paste('.graphiql-query-editor', '{ viewer { name timezone } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    const response = async () => JSON.parse((await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ')) as unknown;
    await expect.poll(response, { timeout: 30_000 }).toEqual({ data: { viewer: { name: 'root', timezone: expect.any(String) } } });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);

    // A page of another origin cannot frame it (CSP frame-ancestors, X-Frame-Options).
    const port = await pageServer(`<!doctype html><title>framing</title><iframe src="${base}/graphql"></iframe>`);
    const framing = await browser.newPage();
    const refused = framing.waitForEvent('console', (message) => /frame-ancestors|X-Frame-Options/.test(message.text()));
    await framing.goto(`http://localhost:${port}/`);
    await refused;
    await framing.close();
    await context.close();
  });
});
