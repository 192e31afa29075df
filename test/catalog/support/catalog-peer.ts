import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test catalog server received. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a route answers: JSON (`json`), raw text (`text`), or `hang` to never answer. */
export type Answer = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | 'hang';

export type Route = (request: SeenRequest) => Answer | Promise<Answer>;

/**
 * A real HTTP server on 127.0.0.1, port 0, standing in for a catalog API. `route` is swappable
 * so the caller can change what the "remote" answers; every request is recorded. Free of the
 * test runner, so a benchmark starts the same peer (tests use catalog-server.ts, which closes it
 * after the file's tests).
 */
export async function serveCatalog(route: Route) {
  const requests: SeenRequest[] = [];
  const state = { route };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const seen = { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      void Promise.resolve(state.route(seen)).then((answer) => {
        if (answer === 'hang') return;
        const body = answer.text ?? (answer.json === undefined ? '' : JSON.stringify(answer.json));
        response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        response.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Requests whose path matches. */
    seen: (path: string | RegExp) => requests.filter((request) => (typeof path === 'string' ? request.path === path : path.test(request.path))),
    setRoute(next: Route) {
      state.route = next;
    },
    /** Drops every connection and stops listening. */
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
