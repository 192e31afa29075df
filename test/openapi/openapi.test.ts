import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { availableImportSources } from '../../src/imports/sources/import-sources.ts';
import { buildOpenApiDocument, openPaths } from '../../src/openapi/openapi-document.ts';
import { restRoutes } from '../../src/routes.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';
import { checkResponse } from '../support/openapi-check.ts';

const { app } = await useTestApp();
const document = buildOpenApiDocument('test', restRoutes) as Record<string, any>;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (the official schema), and every component is valid JSON Schema 2020-12', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    const ajv = new Ajv2020({ strict: false });
    for (const [id, schema] of Object.entries(document.components.schemas as Record<string, object>)) {
      expect(ajv.validateSchema(schema), `${id}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  it('describes every route of the app’s table with each of its methods (and HEAD for every GET), and nothing else', () => {
    const expected = new Set([...restRoutes.map((route) => `${route.method} ${route.template}`), ...openPaths.map((path) => `GET ${path}`)]);
    const described = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(described.filter((entry) => !entry.startsWith('HEAD ')))).toEqual(expected);
    expect(new Set(described.filter((entry) => entry.startsWith('HEAD ')).map((entry) => entry.replace('HEAD', 'GET')))).toEqual(
      new Set([...expected].filter((entry) => entry.startsWith('GET '))),
    );
    expect(document.components.schemas.ImportSource.enum).toEqual(availableImportSources);
  });

  it('allows ?token= exactly where the route does, and documents 401 and 429 on token routes only', () => {
    for (const route of restRoutes) {
      const operation = document.paths[route.template][route.method.toLowerCase()];
      const schemes = operation.security.map((requirement: object) => Object.keys(requirement)[0]);
      const expected = { 'header-or-query': ['bearerToken', 'queryToken'], 'header-only': ['bearerToken'], 'own-token': ['connectionToken'] }[route.auth];
      expect(schemes, route.template).toEqual(expected);
      expect(Object.keys(operation.responses), route.template).toEqual(expect.arrayContaining(['401', '429', '405', '500']));
      expect(operation.responses['429'].headers['Retry-After']).toBeDefined();
    }
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.paths['/healthz'].get.responses['401']).toBeUndefined();
  });
});

describe('GET /api/openapi.json and /api/docs', () => {
  it('serves the document without a token, HEAD too, and 405 to other methods', async () => {
    const response = await call(app, 'GET', '/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.json.openapi).toBe('3.1.0');
    expect(Object.keys(response.json.paths)).toEqual(Object.keys(document.paths));
    const head = await app.fetch(new Request('http://airdate.test/api/openapi.json', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await call(app, 'POST', '/api/openapi.json');
    expect(post.status).toBe(405);
    expect(post.json).toEqual({ error: 'method POST is not allowed here; use GET, HEAD' });
    expect((await call(app, 'DELETE', '/api/docs')).status).toBe(405);
  });

  it('tags the document: 304 for its ETag, gzipped when asked', async () => {
    const response = await call(app, 'GET', '/api/openapi.json');
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"openapi-[\w-]{22}"$/);
    for (const sent of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await call(app, 'GET', '/api/openapi.json', { headers: { 'if-none-match': sent } });
      expect([again.status, again.text, again.headers.get('etag')], sent).toEqual([304, '', etag]);
    }
    expect((await call(app, 'GET', '/api/openapi.json', { headers: { 'if-none-match': '"openapi-stale"' } })).status).toBe(200);
    const zipped = await app.fetch(new Request('http://airdate.test/api/openapi.json', { headers: { 'accept-encoding': 'gzip' } }));
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8'))).toEqual(response.json);
  });

  it("answers 404 for any other name under /api/docs/, the names of an object's own properties too", async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '..%2Fpackage.json', '%2e%2e%2fpackage.json', 'swagger-ui-bundle.js.map', 'index.html', 'x'.repeat(5_000), '%00', '/api/openapi.json']) {
      const response = await call(app, 'GET', `/api/docs/${name}`);
      expect([response.status, response.json.error.slice(0, 24)], name).toEqual([404, 'no such file: /api/docs/']);
    }
  });

  it('serves a page whose scripts and styles load from this server, under a CSP that allows only that', async () => {
    const page = await call(app, 'GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(page.text).not.toMatch(/<script>(?!<)/);
    const references = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references.filter((reference) => reference.endsWith('.js'))).toHaveLength(2);
    expect(references.filter((reference) => reference.endsWith('.css'))).toHaveLength(1);
    for (const reference of references) {
      expect(reference, 'no other origin').toMatch(/^\/api\/docs\//);
      const asset = await app.fetch(new Request(new URL(reference, 'http://airdate.test')));
      expect(asset.status, reference).toBe(200);
      const body = Buffer.from(await asset.arrayBuffer());
      expect(body.byteLength, reference).toBeGreaterThan(reference.endsWith('.png') || reference.endsWith('start.js') ? 50 : 1000);
      if (reference.endsWith('.js')) expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
      if (reference.endsWith('.css')) expect(asset.headers.get('content-type')).toMatch(/^text\/css/);
    }
    // Swagger UI's text files go gzipped to a client that takes gzip (the same bytes once unzipped); the icon never.
    for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
      const url = `http://airdate.test/api/docs/${name}`;
      const plain = await app.fetch(new Request(url, { headers: { 'accept-encoding': 'identity' } }));
      const plainBody = Buffer.from(await plain.arrayBuffer());
      expect(plain.headers.get('content-encoding'), name).toBeNull();
      expect(Number(plain.headers.get('content-length')), name).toBe(plainBody.byteLength);
      for (const acceptEncoding of ['gzip, deflate, br', 'gzip;q=0']) {
        const asked = await app.fetch(new Request(url, { headers: { 'accept-encoding': acceptEncoding } }));
        const body = Buffer.from(await asked.arrayBuffer());
        const zipped = name.endsWith('.png') || acceptEncoding === 'gzip;q=0' ? null : 'gzip';
        expect(asked.headers.get('content-encoding'), `${name} ${acceptEncoding}`).toBe(zipped);
        expect(Number(asked.headers.get('content-length')), name).toBe(body.byteLength);
        expect(zipped ? gunzipSync(body).equals(plainBody) : body.equals(plainBody), name).toBe(true);
        if (zipped) expect(body.byteLength, name).toBeLessThan(plainBody.byteLength / 2);
        if (zipped) expect(asked.headers.get('vary'), name).toMatch(/accept-encoding/i);
      }
      const head = await app.fetch(new Request(url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }));
      expect([head.status, (await head.arrayBuffer()).byteLength], name).toEqual([200, 0]);
    }
    const starter = await app.fetch(new Request('http://airdate.test/api/docs/start.js'));
    expect(await starter.text()).toContain("url: '/api/openapi.json'");
  });
});

describe('the response check (test/support/openapi-check.ts)', () => {
  const json = (status: number, body: unknown, type = 'application/json; charset=utf-8') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
  const summary = { generatedAt: '2026-11-21T08:00:00.000Z', counts: { upNext: 0, airingToday: 0, airingWeek: 0, unwatchedEpisodes: 0 }, next: null, upNext: [], today: [], week: [], releasing: [] };
  const url = 'http://airdate.test/api/machine/summary';

  it('passes a body that keeps the document', async () => {
    expect(await checkResponse('GET', url, json(200, summary))).toEqual([]);
    expect(await checkResponse('POST', 'http://airdate.test/api/machine/watched/', json(404, { error: 'no such episode' }))).toEqual([]);
  });

  it('catches a missing field, a wrong type, an extra field, an undocumented status or content type, and a wrong method answered', async () => {
    const { counts: _counts, ...withoutCounts } = summary;
    const cases: [string, Promise<string[]>, RegExp][] = [
      ['missing field', checkResponse('GET', url, json(200, withoutCounts)), /counts/],
      ['wrong type', checkResponse('GET', url, json(200, { ...summary, releasing: [{ kind: 'movie', id: '3', title: 'X', air_date: '2026-11-22', poster: null }] })), /body does not match/],
      ['a method the path does not take, answered other than 405', checkResponse('GET', 'http://airdate.test/api/machine/watched', json(200, { ok: true, done: 1 })), /GET .* not documented/],
      ['extra field on a write', checkResponse('POST', 'http://airdate.test/api/machine/watched', json(200, { ok: true, done: 1 })), /body does not match/],
      ['bad date-time', checkResponse('GET', url, json(200, { ...summary, generatedAt: 'yesterday' })), /generatedAt/],
      ['undocumented status', checkResponse('GET', url, json(418, { error: 'teapot' })), /status 418 is not documented/],
      ['undocumented content type', checkResponse('GET', url, json(200, summary, 'text/plain')), /content type "text\/plain"/],
      ['error body of another shape', checkResponse('GET', url, json(401, { message: 'no' })), /body does not match/],
      ['import of a source', checkResponse('POST', `http://airdate.test/api/import/${availableImportSources[0]}`, json(200, { ok: true })), /imported/],
    ];
    for (const [name, check, message] of cases) {
      const found = await check;
      expect(found, name).toHaveLength(1);
      expect(found[0], name).toMatch(message);
    }
    // Paths the document does not describe are not its business.
    expect(await checkResponse('GET', 'http://airdate.test/graphql', json(418, {}))).toEqual([]);
    expect(await checkResponse('POST', 'http://airdate.test/api/import/nosuchsource', json(404, { error: 'no such endpoint' }))).toEqual([]);
  });
});

describe('bad input keeps its messages (validated by the zod schemas)', () => {
  it('watched, follow and sync bodies', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    const show = await makeShow({ episodes: [{ number: 1, airDate: '2026-01-01' }] });
    const post = async (path: string, body: string) => (await call(app, 'POST', path, { token: account.token, rawBody: body, headers: { 'content-type': 'application/json' } })).json;
    const cases: [string, string, string][] = [
      ['/api/machine/watched', '[]', 'request body must be a JSON object'],
      ['/api/machine/watched', 'null', 'request body must be a JSON object'],
      ['/api/machine/watched', '{}', 'kind is required'],
      ['/api/machine/watched', '{"kind":"show","id":"x"}', 'kind must be one of episode, movie, game'],
      ['/api/machine/watched', '{"kind":"movie"}', 'id is required'],
      ['/api/machine/watched', '{"kind":"movie","id":1.5,"watched":3}', 'id must be a positive integer up to 2147483647'],
      ['/api/machine/watched', '{"kind":"movie","id":2147483648}', 'id must be a positive integer up to 2147483647'],
      ['/api/machine/watched', '{"kind":"movie","id":0}', 'id must be a positive integer up to 2147483647'],
      ['/api/machine/watched', `{"kind":"movie","id":${movie.id}}`, 'watched is required'],
      ['/api/machine/watched', `{"kind":"movie","id":${movie.id},"watched":"yes"}`, 'watched must be true or false'],
      ['/api/machine/follow', '{"kind":"episode","id":1}', 'kind must be one of show, movie, game'],
      ['/api/machine/follow', `{"kind":"show","id":${show.id},"followed":"yes","archived":1}`, 'followed must be true or false'],
      ['/api/machine/follow', `{"kind":"show","id":${show.id},"archived":null}`, 'archived must be true or false'],
      ['/api/machine/sync', '[1]', 'request body must be a JSON object'],
    ];
    for (const [path, body, error] of cases) expect(await post(path, body), `${path} ${body}`).toEqual({ error });
    expect(await post('/api/machine/sync', '{"anything":1}')).toEqual({ ok: true });
  });

  it('limit, dryRun and the calendar’s parameters', async () => {
    const account = await makeAccount();
    const get = async (path: string) => call(app, 'GET', path, { token: account.token });
    const limit = 'limit must be a whole number from 0 to 5000';
    // Hostile too: past the 32-bit range, a 100 000-digit number, a NUL byte, a non-ASCII digit.
    for (const query of ['-1', '1.5', '1e3', '%207', '5001', '', '99999999999', '9'.repeat(100_000), '1%00', '%D9%A1']) {
      expect((await get(`/api/machine/summary?limit=${query}`)).json, query.slice(0, 20)).toEqual({ error: limit });
    }
    expect((await get('/api/machine/summary?limit=1&limit=2')).json).toEqual({ error: `limit may be given once; ${limit}` });
    expect((await get('/api/machine/summary?limit=5000')).status).toBe(200);
    expect((await get('/api/calendar.ics?past=3651')).json).toEqual({ error: 'past must be a whole number of days from 0 to 3650' });
    expect((await get('/api/calendar.ics?future=x')).json).toEqual({ error: 'future must be a whole number of days from 0 to 3650' });
    expect((await get('/api/calendar.ics?past=1&past=2')).json).toEqual({ error: 'past may be given once' });
    expect((await get(`/api/calendar.ics?kinds=${'episode,'.repeat(50_000)}x`)).json).toEqual({ error: 'unknown kind "x"; kinds is a comma-separated list of episode, movie, game' });
    expect((await get('/api/calendar.ics?kinds=episode,show')).json).toEqual({ error: 'unknown kind "show"; kinds is a comma-separated list of episode, movie, game' });
    expect((await get('/api/calendar.ics?kinds=movie&kinds=game')).json).toEqual({ error: 'kinds may be given once' });
    expect((await get('/api/calendar.ics?past=0&future=3650&kinds=movie,%20episode,movie')).status).toBe(200);
    const upload = (query: string) => call(app, 'POST', `/api/import/trakt?${query}`, { token: account.token, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expect((await upload('dryRun=yes')).json).toEqual({ error: 'dryRun must be true or false' });
    expect((await upload('dryRun=true&dryRun=true')).json).toEqual({ error: 'dryRun must be given once' });
    // A good value goes on to the body's checks.
    expect((await upload('dryRun=false')).status).toBe(415);
  });
});
