import { afterAll, afterEach, vi } from 'vitest';
import { checkResponse, documentedPaths } from './openapi-check.ts';

/**
 * vitest setupFiles entry: every REST response the suite sees is checked against the OpenAPI
 * document (test/support/openapi-check.ts). It observes, never replaces: the apps tests build
 * (createApp, through useTestApp or directly) get their `fetch` wrapped, and so does
 * `globalThis.fetch` (tests that talk to `serve` processes over HTTP). A test that saw a response
 * breaking the document fails in afterEach with the path, the status and ajv's errors.
 */

/** Checks of the responses seen since the last report, run when it comes (see `report`). */
const pending: (() => Promise<void>)[] = [];
const violations: string[] = [];

/**
 * Notes a response to check. Its body is cloned now and read only at the test's end: a streamed
 * body (the export) is still pulled at the pace the test reads it, as without the check.
 */
function observe(method: string, url: string, response: Response): void {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return; // A URL that cannot be read (a test of exactly that) names no path.
  }
  // Every answer of an Airdate server carries X-Request-Id; a test's own peers and the separate
  // metrics listener (AIRDATE_METRICS_PORT: /metrics only, a 404 elsewhere) do not, and the
  // document does not describe them.
  if (!documentedPaths(pathname) || !response.headers.has('x-request-id')) return;
  const copy = response.clone();
  pending.push(() =>
    checkResponse(method, url, copy).then(
      (found) => void violations.push(...found),
      (error: unknown) => void violations.push(`${method} ${url}: the check failed: ${String(error)}`),
    ),
  );
}

vi.mock(import('../../src/app.ts'), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    createApp: async (...args: Parameters<typeof original.createApp>) => {
      const app = await original.createApp(...args);
      const answer = app.fetch.bind(app);
      app.fetch = async (request, context) => {
        const { method, url } = request;
        const response = await answer(request, context);
        observe(method, url, response);
        return response;
      };
      return app;
    },
  };
});

const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : input instanceof URL ? input.href : String(input);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const response = await realFetch(input, init);
  observe(method, url, response);
  return response;
};

/** Waits for the checks under way (bounded: a stream that never ends must not hang the suite). */
async function report(): Promise<void> {
  const checks = pending.splice(0).map((check) => check());
  if (checks.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(checks), new Promise((resolve) => (timer = setTimeout(resolve, 20_000)))]);
    clearTimeout(timer);
  }
  const found = violations.splice(0);
  if (found.length > 0) throw new Error(`REST responses that break the OpenAPI document (src/rest/openapi/):\n${found.join('\n')}`);
}

afterEach(report, 30_000);
afterAll(report, 30_000);
