import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { serveCatalog, type Route } from './catalog-peer.ts';

/**
 * A real HTTP server on 127.0.0.1, port 0, standing in for a catalog API (catalog-peer.ts):
 * `route` is swappable so a test can change what the "remote" answers; every request is
 * recorded. Closed after the file's tests.
 */
export async function startCatalogServer(route: Route) {
  const peer = await serveCatalog(route);
  afterAll(peer.close);
  return peer;
}

/** A base URL where nothing listens: a port freed right after binding it. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
