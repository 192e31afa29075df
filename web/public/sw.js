// Airdate's service worker: makes the web app installable and lets its files load from the
// device. It caches the app's own static files only — the hashed /assets/ files (immutable), the
// icons and manifest, and the HTML shell (the same for everyone: it holds no data) — and never a
// response of /graphql, /api, /auth or any other server path, nor anything sent with a method
// other than GET: an account's data never lands in a cache another person of the device could
// read. See docs/web-app.md ("Installing on a phone").
const cacheName = 'airdate-app-v1';
// The HTML shell, as the server answers it for / (every app page is the same file).
const shell = '/';
const rootFiles = new Set(['/favicon.svg', '/manifest.webmanifest', '/icon-192.png', '/icon-512.png', '/icon-maskable-512.png', '/apple-touch-icon.png']);
const serverPaths = /^\/(api|graphql|graphiql|auth|healthz|readyz|metrics)(\/|$)/;

/**
 * What the worker does with a request: 'asset' (cache first: files that never change under their
 * name), 'file' (network first, the cached copy offline), 'shell' (a page: the network's, or the
 * cached shell offline) or null (left to the browser, never cached).
 */
function strategy(request) {
  if (request.method !== 'GET') return null;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  if (serverPaths.test(url.pathname) || url.search.includes('token=')) return null;
  if (url.pathname.startsWith('/assets/')) return 'asset';
  if (rootFiles.has(url.pathname)) return 'file';
  if (request.mode === 'navigate') return 'shell';
  return null;
}
self.airdateStrategy = strategy;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(cacheName)
      .then((cache) => cache.addAll([shell, ...rootFiles]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== cacheName).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** Keeps a copy of a good, plain answer (no redirect, no error, no opaque response). */
async function keep(request, response) {
  if (response.ok && response.type === 'basic') {
    const cache = await caches.open(cacheName);
    await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const kind = strategy(event.request);
  if (!kind) return;
  if (kind === 'asset') {
    event.respondWith(caches.match(event.request).then((cached) => cached || fetch(event.request).then((response) => keep(event.request, response))));
  } else if (kind === 'file') {
    event.respondWith(fetch(event.request).then((response) => keep(event.request, response), () => caches.match(event.request).then((cached) => cached || Response.error())));
  } else {
    // A page: always the network's answer (the server decides, e.g. a redirect); offline, the
    // cached shell, which then shows that the server cannot be reached.
    event.respondWith(fetch(event.request).catch(() => caches.match(shell).then((cached) => cached || Response.error())));
  }
});
