import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from './responses.ts';
import { sendStatic as send, staticFile, staticFiles } from './static-file.ts';

/**
 * Serves the built web app (scripts/build-web.mjs → dist/web) from the server process itself:
 * hashed files under /assets/ cached for a year, the HTML shell for every app route (the app
 * routes in the browser), small root files such as /favicon.svg. The server's own paths (/api,
 * /graphql, /graphiql, /auth, /healthz, /readyz, /metrics) are never answered here, so their 404s stay JSON.
 */
export interface WebApp {
  /** The response for a request the web app answers, or undefined to let the server's routing go on. */
  respond(request: Request, url: URL): Promise<Response | undefined>;
}

/** Routes of the app; these get the shell whatever the Accept header says. */
export const appRoutes = ['/', '/sign-in', '/setup', '/calendar', '/statistics', '/settings/developer', '/settings/account', '/import-export', '/admin'];

const serverPaths = /^\/(api|graphql|graphiql|auth|healthz|readyz|metrics)(\/|$)/;
/** One path segment of safe characters, not starting with a dot: no traversal, no dotfiles (.vite/). */
const fileName = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,200}$/;

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};
const compressible = new Set(['.js', '.css', '.html', '.svg', '.json', '.webmanifest', '.txt', '.map']);

/**
 * The shell's headers: no inline script may run (Vite emits none), no framing, no referrer to
 * other sites; images only from this server and `imageOrigins` (the catalogs' image hosts: a page
 * never loads an image from a host an import file or anyone else chose); no-cache so a new
 * build's asset names are picked up at once.
 */
export function shellHeaders(imageOrigins: readonly string[]): Record<string, string> {
  const images = ["'self'", 'data:', ...imageOrigins].join(' ');
  return {
    'content-type': contentTypes['.html']!,
    'cache-control': 'no-cache',
    'content-security-policy': `default-src 'self'; img-src ${images}; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

export interface WebAppOptions {
  /**
   * The origins pages may load images from besides their own (posters): asked at each page load,
   * since the offline catalog file may name new hosts when it is read again. None by default.
   */
  imageOrigins?: () => readonly string[];
}

/** The web app in `dir` (dist/web normally; tests pass a folder of their own). */
export function createWebApp(dir: string, options: WebAppOptions = {}): WebApp {
  // The headers for the origins last asked about, built again only when they change.
  let headers = { key: '', value: shellHeaders([]) };
  const currentHeaders = () => {
    const origins = options.imageOrigins?.() ?? [];
    const key = origins.join(' ');
    if (key !== headers.key) headers = { key, value: shellHeaders(origins) };
    return headers.value;
  };
  // Built files never change under a running server (a build is followed by a restart: `npm start`
  // builds first), so each is read once. Only files that exist are kept: the map is bounded by the folder.
  const load = staticFiles(async (relative) => {
    let body: Buffer;
    try {
      body = await readFile(path.join(dir, relative));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw error;
    }
    const extension = path.extname(relative).toLowerCase();
    return staticFile(body, contentTypes[extension] ?? 'application/octet-stream', compressible.has(extension));
  });

  async function shell(request: Request): Promise<Response> {
    const file = await load('index.html');
    if (!file) throw new HttpError(503, 'the web app is not built: run `npm run build` (npm install and npm start run it too)');
    return send(request, file, currentHeaders());
  }

  return {
    async respond(request, url) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
      const pathname = url.pathname;
      if (serverPaths.test(pathname)) return undefined;
      if (pathname === '/assets' || pathname.startsWith('/assets/')) {
        const name = pathname.slice('/assets/'.length);
        const file = fileName.test(name) ? await load(path.join('assets', name)) : undefined;
        if (!file) throw new HttpError(404, `no such file: ${pathname.slice(0, 200)}`);
        return send(request, file, { 'cache-control': 'public, max-age=31536000, immutable' });
      }
      const rootName = pathname.slice(1);
      if (fileName.test(rootName) && rootName !== 'index.html' && path.extname(rootName)) {
        const file = await load(rootName);
        // The service worker is checked for a new version at every visit (web/public/sw.js).
        if (file) return send(request, file, { 'cache-control': rootName === 'sw.js' ? 'no-cache' : 'public, max-age=86400' });
      }
      const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
      if (appRoutes.includes(normalized) || (request.headers.get('accept') ?? '').includes('text/html')) return shell(request);
      return undefined;
    },
  };
}
