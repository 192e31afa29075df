import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/http/web-app.ts';
import { useTestApp } from '../support/database.ts';

// The server answering the built web app: a folder shaped like dist/web, made here, served
// through the whole app (createApp's routing decides what is the web app's and what stays JSON).
const dir = mkdtempSync(path.join(tmpdir(), 'airdate-web-'));
const shell = '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body></body></html>';
const script = `console.log(${JSON.stringify('x'.repeat(5000))});\n`;
mkdirSync(path.join(dir, 'assets'));
mkdirSync(path.join(dir, '.vite'));
writeFileSync(path.join(dir, 'index.html'), shell);
writeFileSync(path.join(dir, 'assets/index-AbC123.js'), script);
writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
writeFileSync(path.join(dir, '.vite/manifest.json'), '{"secret":"manifest"}');
writeFileSync(path.join(dir, '..', `${path.basename(dir)}-outside.txt`), 'outside');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(path.join(dir, '..', `${path.basename(dir)}-outside.txt`), { force: true });
});

const { app } = await useTestApp({ AIRDATE_LOG_LEVEL: 'silent' }, { webAppDir: dir });
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const get = (target: string, headers: Record<string, string> = {}, method = 'GET') => app.fetch(new Request(new URL(target, 'http://airdate.test'), { method, headers }));

describe('the HTML shell', () => {
  it('answers every app route with the shell, no-cache and the security headers', async () => {
    for (const route of ['/', '/sign-in', '/setup', '/settings/developer', '/settings/account', '/import-export', '/admin', '/admin/']) {
      const response = await get(route, { accept: '*/*' });
      expect(response.status, route).toBe(200);
      expect(await response.text()).toBe(shell);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
      expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it("allows images only from this server and the catalogs' image hosts (issue 31, item 7)", async () => {
    const policy = (await get('/', html)).headers.get('content-security-policy')!;
    const images = policy.split('; ').find((directive) => directive.startsWith('img-src '));
    expect(images).toBe("img-src 'self' data: https://image.tmdb.org https://artworks.thetvdb.com https://images.igdb.com");
    expect(policy).toContain("default-src 'self'");
  });

  it('answers other paths with the shell only for a browser asking for HTML', async () => {
    const page = await get('/library/shows/12', html);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(shell);
    const machine = await get('/library/shows/12', { accept: 'application/json' });
    expect(machine.status).toBe(404);
    expect(await machine.json()).toEqual({ error: 'no such endpoint: GET /library/shows/12' });
  });

  it('never answers the server’s own paths: their 404s stay JSON', async () => {
    for (const target of ['/api/nope', '/api', '/auth/nothing', '/graphql/x', '/healthz/x']) {
      const response = await get(target, html);
      expect(response.status, target).toBe(404);
      expect(response.headers.get('content-type'), target).toBe('application/json; charset=utf-8');
    }
  });

  it('answers HEAD with the headers and no body, and leaves other methods to the JSON 404', async () => {
    const head = await get('/settings/account', html, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(shell)));
    expect(await head.text()).toBe('');
    const post = await get('/', html, 'POST');
    expect(post.status).toBe(404);
    expect(await post.json()).toEqual({ error: 'no such endpoint: POST /' });
  });

  it('says to build when the app is not built, instead of failing', async () => {
    const missing = createWebApp(path.join(dir, 'no-such-build'));
    const response = (await missing.respond(new Request('http://airdate.test/', { headers: html }), new URL('http://airdate.test/')).catch((error: unknown) => error)) as { status: number; message: string };
    expect(response.status).toBe(503);
    expect(response.message).toContain('npm run build');
  });
});

describe('static files', () => {
  it('serves hashed assets for a year, immutable, gzipped when the client takes gzip', async () => {
    const plain = await get('/assets/index-AbC123.js');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(script);

    const gzipped = await get('/assets/index-AbC123.js', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('accept-encoding');
    const bytes = Buffer.from(await gzipped.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(script.length / 10);
    expect(gunzipSync(bytes).toString()).toBe(script);
  });

  it('serves root files such as the icon', async () => {
    const icon = await get('/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('refuses missing, hidden and out-of-folder files with a JSON 404', async () => {
    const outside = `${path.basename(dir)}-outside.txt`;
    for (const target of ['/assets/missing-123.js', '/assets/.hidden', `/assets/..%2f..%2f${outside}`, '/assets/%2e%2e/index.html', '/assets/', '/assets']) {
      const response = await get(target);
      expect(response.status, target).toBe(404);
      expect(await response.json(), target).toHaveProperty('error');
    }
    const manifest = await get('/.vite/manifest.json');
    expect(manifest.status).toBe(404);
    const manifestAsPage = await get('/.vite/manifest.json', html);
    expect(await manifestAsPage.text()).toBe(shell);
    const traversal = await get(`/..%2f${outside}`);
    expect(traversal.status).toBe(404);
  });
});
