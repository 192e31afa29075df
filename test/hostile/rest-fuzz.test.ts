import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../support/database.ts';
import { accountState, fuzzOptions, makeLibraryAccount } from './support.ts';

const { app } = await useTestApp({ AIRDATE_RATE_LIMIT_PER_MINUTE: '0', AIRDATE_LOG_LEVEL: 'silent', AIRDATE_MAX_JSON_KB: '16' });
const errors = vi.spyOn(app.logger, 'error');
afterAll(() => errors.mockRestore());
const account = await makeLibraryAccount();
const other = await makeLibraryAccount();

const paths = [
  '/api/machine/summary',
  '/api/machine/releases',
  '/api/machine/airing',
  '/api/machine/widget',
  '/api/machine/watched',
  '/api/machine/follow',
  '/api/machine/sync',
  '/api/calendar.ics',
  '/api/export',
  '/api/import/trakt',
  '/api/import/tvtime',
  '/api/import/airdate',
  '/api/import/nope',
  '/healthz',
  '/readyz',
  '/',
  '/api',
  '/api/machine',
  '/graphql',
];
/** Odd spellings a careless client or a scanner sends. */
const pathNoise = ['', '/', '//', '/.', '/..', '%00', '%2F', '%ZZ', '%E0%A4%A', '%C0%AF', '%F0%9F%98%80', ';x=1', '/%2e%2e/%2e%2e/etc/passwd', '\\', 'é', '~'];
const queryValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '3650', '3651', '99999999999999999999', '1e3', 'episode', 'movie,game', 'EPISODE', 'episode,episode,nope', '%ZZ', '\u0000', '😀', '{', '[]', '{"a":1}', '{ viewer { name } }', 'mutation { sync { ok } }'),
  fc.string({ maxLength: 20 }),
);
const queryKey = fc.constantFrom('token', 'past', 'future', 'kinds', 'query', 'x', 'token', 'limit', 'variables', 'extensions', 'operationName');
const tokenValue = (valid: string) => fc.constantFrom(valid, valid, valid, `${valid}x`, valid.slice(0, -1), '', 'adt_', 'a'.repeat(5_000), valid.toUpperCase(), ` ${valid}`);

const jsonBody = fc.oneof(
  fc.record(
    {
      kind: fc.constantFrom('episode', 'movie', 'game', 'show', 'EPISODE', '', 7, null),
      id: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2_147_483_647, 2_147_483_648, 1.5, '1', null, Number.MAX_SAFE_INTEGER)),
      watched: fc.oneof(fc.boolean(), fc.constantFrom('true', 1, null)),
      followed: fc.oneof(fc.boolean(), fc.constantFrom('false', 0)),
      archived: fc.oneof(fc.boolean(), fc.constantFrom('yes')),
    },
    { requiredKeys: [] },
  ).map((value) => JSON.stringify(value)),
  fc.json({ maxDepth: 4 }),
  fc.constantFrom('', ' ', '{', '[', '{"kind":"episode"', 'null', '"x"', '[]', '[{}]', '{"__proto__":{"x":1}}', '\uFEFF{}', `${'['.repeat(50_000)}${']'.repeat(50_000)}`, `{"kind":"${'a'.repeat(20_000)}"}`),
);

const multipart = fc.record({
  name: fc.constantFrom('file', 'a', '', 'weird"name'),
  fileName: fc.constantFrom('watched-history.json', 'export.zip', '../../etc/passwd', '日本.csv', ''),
  content: fc.oneof(fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')), fc.json({ maxDepth: 3 }), fc.constantFrom('PK\u0003\u0004garbage', '[{"watched_at":"2026-01-01T00:00:00.000Z","type":"movie","movie":{"title":"x","ids":{"tmdb":2147483648}}}]')),
});

const request = fc.record({
  method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  path: fc.tuple(fc.constantFrom(...paths), fc.oneof({ weight: 3, arbitrary: fc.constant('') }, fc.constantFrom(...pathNoise))).map(([path, noise]) => `${path}${noise}`),
  query: fc.array(fc.tuple(queryKey, queryValue), { maxLength: 3 }),
  auth: fc.constantFrom('bearer', 'bearer', 'query', 'none', 'basic', 'lowercase', 'bad'),
  token: tokenValue(account.token),
  contentType: fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/vnd.api+json', '*/*', 'garbage;;;'),
  body: fc.oneof(jsonBody, multipart),
  ifNoneMatch: fc.option(fc.constantFrom('*', '"x"', 'W/"x", "y"', ''), { nil: undefined }),
});

function toRequest(input: {
  method: string;
  path: string;
  query: [string, string][];
  auth: string;
  token: string;
  contentType: string | undefined;
  body: string | { name: string; fileName: string; content: string };
  ifNoneMatch: string | undefined;
}): Request {
  const url = new URL(`http://airdate.test${input.path}`);
  for (const [key, value] of input.query) url.searchParams.append(key, value);
  const headers = new Headers();
  if (input.auth === 'bearer') headers.set('authorization', `Bearer ${input.token}`);
  if (input.auth === 'lowercase') headers.set('authorization', `bearer ${input.token}`);
  if (input.auth === 'basic') headers.set('authorization', `Basic ${Buffer.from(`x:${input.token}`).toString('base64')}`);
  if (input.auth === 'bad') headers.set('authorization', 'Bearer');
  if (input.auth === 'query') url.searchParams.set('token', input.token);
  if (input.ifNoneMatch !== undefined) headers.set('if-none-match', input.ifNoneMatch);
  let body: string | undefined;
  if (typeof input.body === 'string') {
    body = input.body;
    if (input.contentType) headers.set('content-type', input.contentType);
  } else {
    const boundary = 'fuzzboundary';
    headers.set('content-type', input.contentType === 'multipart/form-data' ? `multipart/form-data; boundary=${boundary}` : (input.contentType ?? 'multipart/form-data'));
    body = `--${boundary}\r\ncontent-disposition: form-data; name="${input.body.name}"; filename="${input.body.fileName}"\r\ncontent-type: application/octet-stream\r\n\r\n${input.body.content}\r\n--${boundary}--\r\n`;
  }
  const bodyless = input.method === 'GET' || input.method === 'HEAD';
  return new Request(url, { method: input.method, headers, body: bodyless ? undefined : body });
}

describe('REST requests of any shape (property)', () => {
  it('never get a 5xx, always answer a JSON error body when they fail, and change nothing when refused', async () => {
    const otherBefore = await accountState(other.id);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const before = await accountState(account.id);
        const response = await app.fetch(toRequest(input));
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const context = `${input.method} ${input.path} ${JSON.stringify(input.query)} ${input.auth} → ${response.status} ${text.slice(0, 200)}`;
        expect(response.status, context).toBeLessThan(500);
        expect(errors, context).not.toHaveBeenCalled();
        const type = response.headers.get('content-type') ?? '';
        if (response.status >= 400 && !input.path.startsWith('/graphql')) {
          expect(type, context).toMatch(/^application\/json/);
          if (input.method !== 'HEAD') {
            const parsed = JSON.parse(text);
            expect(Object.keys(parsed), context).toEqual(['error']);
            expect(parsed.error, context).toBeTypeOf('string');
          }
          expect(await accountState(account.id), context).toEqual(before);
        } else if (response.status === 200 && type.startsWith('text/html')) {
          // A page of the web app (its HTML shell): never for a server path.
          expect(input.path, context).not.toMatch(/^\/(api|graphql|auth|healthz|readyz)(\/|$)/);
          if (input.method !== 'HEAD') expect(text, context).toContain('<div id="app">');
        } else if (response.status === 200 && input.method !== 'HEAD' && !type.startsWith('text/calendar')) {
          expect(() => JSON.parse(text), context).not.toThrow();
        }
      }),
      fuzzOptions,
    );
    // The fuzz reached the handlers, not only the edge: successes and several kinds of refusal.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(fuzzOptions.numRuns / 40);
    expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThanOrEqual(5);
    expect(await accountState(other.id)).toEqual(otherBefore);
    expect((await app.fetch(new Request('http://airdate.test/healthz'))).status).toBe(200);
  }, 300_000);
});
