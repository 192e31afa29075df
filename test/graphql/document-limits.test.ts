import { getIntrospectionQuery } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';

// Small limits, so each boundary is exact and cheap to reach; the defaults are tested below.
const { app, config } = await useTestApp({
  AIRDATE_GRAPHQL_MAX_DEPTH: '5',
  AIRDATE_GRAPHQL_MAX_ALIASES: '3',
  AIRDATE_GRAPHQL_MAX_DIRECTIVES: '2',
  AIRDATE_GRAPHQL_MAX_TOKENS: '100',
  AIRDATE_GRAPHQL_MAX_COST: '100',
});

const timezoneOf = async (token: string) => (await graphql(app, token, '{ viewer { timezone } }')).json.data.viewer.timezone;

/** A mutation that would move the account to Tokyo, with `selection` inside its answer. */
const moveToTokyo = (selection: string, prefix = '') =>
  `mutation { ${prefix}updateSettings(input: { timezone: "Asia/Tokyo" }) { ... on MutationUpdateSettingsSuccess { data { ${selection} } } } }`;

async function expectRefused(token: string, query: string, code: string, variables?: Record<string, unknown>) {
  const response = await graphql(app, token, query, variables);
  expect(response.status, response.text).toBe(400);
  expect(response.json.data).toBeUndefined();
  expect(response.json.errors).toHaveLength(1);
  expect(response.json.errors[0].extensions.code).toBe(code);
  return response.json.errors[0].message as string;
}

describe('GraphQL document limits', () => {
  it('refuses each limit with its code, a 400 and a message naming the setting, before anything runs', async () => {
    const account = await makeAccount();
    // depth 7 > 5: updateSettings, data, notifications, edges, node, deliveries, url
    const deep = moveToTokyo('notifications { edges { node { deliveries { url } } } }');
    expect(await expectRefused(account.token, deep, 'QUERY_TOO_DEEP')).toMatch(/AIRDATE_GRAPHQL_MAX_DEPTH/);
    const aliased = `mutation { ${[1, 2, 3, 4].map((index) => `a${index}: updateSettings(input: { timezone: "Asia/Tokyo" }) { __typename }`).join(' ')} }`;
    expect(await expectRefused(account.token, aliased, 'TOO_MANY_ALIASES')).toMatch(/AIRDATE_GRAPHQL_MAX_ALIASES/);
    const directed = moveToTokyo('timezone @include(if: true) name @include(if: true) databaseId @skip(if: false)');
    expect(await expectRefused(account.token, directed, 'TOO_MANY_DIRECTIVES')).toMatch(/AIRDATE_GRAPHQL_MAX_DIRECTIVES/);
    const long = moveToTokyo(Array.from({ length: 90 }, () => 'name').join(' '));
    expect(await expectRefused(account.token, long, 'TOO_MANY_TOKENS')).toMatch(/AIRDATE_GRAPHQL_MAX_TOKENS/);
    // updateSettings 1 + data 1 + notifications (1 + 60 × (pageInfo 1 + hasNextPage 1)) = 123 > 100
    const costly = moveToTokyo('notifications(first: 60) { pageInfo { hasNextPage } }');
    expect(await expectRefused(account.token, costly, 'QUERY_TOO_COSTLY')).toMatch(/cost 123 is over the limit of 100.*AIRDATE_GRAPHQL_MAX_COST/);
    // None of them ran: the time zone is still the one the account was made with.
    expect(await timezoneOf(account.token)).toBe('UTC');
  });

  it('accepts each limit exactly and refuses one more', async () => {
    const account = await makeAccount();
    const ok = async (query: string, variables?: Record<string, unknown>, operationName?: string) => {
      const response = await call(app, 'POST', '/graphql', { token: account.token, body: { query, variables, operationName } });
      expect(response.status, response.text).toBe(200);
      expect(response.json.errors, response.text).toBeUndefined();
    };
    // Depth 5 (viewer, notifications, edges, node, deliveries → a leaf at 6 would be one more).
    await ok('{ viewer { notifications { edges { node { databaseId } } } } }');
    await expectRefused(account.token, '{ viewer { notifications { edges { node { deliveries { url } } } } } }', 'QUERY_TOO_DEEP');
    // Fragments count at the depth they are spread at, not as levels of their own.
    await ok('{ viewer { ...N } } fragment N on Account { notifications { edges { node { databaseId } } } }');
    await ok('{ a: viewer { name } b: viewer { name } c: viewer { name } }');
    await expectRefused(account.token, '{ a: viewer { name } b: viewer { name } c: viewer { name } d: viewer { name } }', 'TOO_MANY_ALIASES');
    await ok('{ viewer { name @include(if: true) timezone @skip(if: false) } }');
    await expectRefused(account.token, '{ viewer { name @include(if: true) timezone @skip(if: false) databaseId @skip(if: false) } }', 'TOO_MANY_DIRECTIVES');
    // `{ viewer { … } }` is 5 tokens around its fields: 95 fields make 100 tokens.
    await ok(`{ viewer { ${Array.from({ length: 95 }, () => 'name').join(' ')} } }`);
    await expectRefused(account.token, `{ viewer { ${Array.from({ length: 96 }, () => 'name').join(' ')} } }`, 'TOO_MANY_TOKENS');
    // viewer 1 + notifications (1 + n × (edges 1 + cursor 1)) = 2n + 2, also when n is a variable.
    await ok('{ viewer { notifications(first: 49) { edges { cursor } } } }');
    await expectRefused(account.token, '{ viewer { name notifications(first: 49) { edges { cursor } } } }', 'QUERY_TOO_COSTLY');
    await ok('query($n: Int) { viewer { notifications(first: $n) { edges { cursor } } } }', { n: 49 });
    await expectRefused(account.token, 'query($n: Int) { viewer { notifications(first: $n) { edges { cursor } } } }', 'QUERY_TOO_COSTLY', { n: 50 });
    // A passed cost is remembered per document and variables: the same text asking for more is still measured.
    await ok('query($n: Int) { viewer { notifications(first: $n) { edges { cursor } } } }', { n: 49 });
    await expectRefused(account.token, 'query($n: Int) { viewer { notifications(first: $n) { edges { cursor } } } }', 'QUERY_TOO_COSTLY', { n: 50 });
    // Only the operation asked for is measured.
    await ok('query Cheap { viewer { name } } query Dear { viewer { notifications(first: 50) { edges { cursor } } } }', undefined, 'Cheap');
    const dear = await call(app, 'POST', '/graphql', { token: account.token, body: { query: 'query Cheap { viewer { name } } query Dear { viewer { notifications(first: 50) { edges { cursor } } } }', operationName: 'Dear' } });
    expect(dear.json.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
  });

  it('answers introspection as GraphiQL asks for it', async () => {
    const account = await makeAccount();
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    const { app: defaults } = await defaultApp;
    const response = await graphql(defaults, account.token, query);
    expect(response.status).toBe(200);
    expect(response.json.errors).toBeUndefined();
    expect(response.json.data.__schema.queryType.name).toBe('Query');
  });
});

/** Another app on the same database, with other settings. */
async function appWith(changes: (defaults: typeof config) => typeof config): Promise<App> {
  const defaults = loadConfig({ AIRDATE_DATA_DIR: config.dataDir, AIRDATE_LOG_LEVEL: 'silent', DATABASE_URL: config.database.url });
  const other = await createApp(changes(defaults));
  afterAll(() => other.jobs.stop(2_000));
  return other;
}

// The defaults, against the shapes that brought the server down before the limits existed.
const defaultApp = appWith((defaults) => defaults).then((other) => ({ app: other }));

describe('GraphQL document limits at their defaults', () => {
  it('refuses the nested, aliased and oversized documents that used to exhaust the server', async () => {
    const { app: defaults } = await defaultApp;
    const account = await makeAccount();
    const refused = async (query: string) => {
      const response = await graphql(defaults, account.token, query);
      expect(response.status, response.text.slice(0, 200)).toBe(400);
      return response.json.errors[0].extensions.code as string;
    };
    // Seven levels of Show.episodes → Episode.show (issue #11): too deep; four levels fit the
    // depth but not the cost (100 episodes a page, each level multiplies).
    const nested = (levels: number) => {
      let selection = 'title';
      for (let level = 0; level < levels; level += 1) selection = `episodes { show { ${selection} } }`;
      return `{ searchCatalog(query: "e") { ... on Show { ${selection} } } }`;
    };
    expect(await refused(nested(7))).toBe('QUERY_TOO_DEEP');
    expect(await refused(nested(4))).toBe('QUERY_TOO_COSTLY');
    const aliases = Array.from({ length: 1_000 }, (_, index) => `a${index}: searchCatalog(query: "e") { __typename }`).join(' ');
    expect(['TOO_MANY_TOKENS', 'TOO_MANY_ALIASES']).toContain(await refused(`{ ${aliases} }`));
    expect(await refused(`{ viewer { ${'name '.repeat(20_000)} } }`)).toBe('TOO_MANY_TOKENS');
    expect(await refused(`{ a: viewer { name } ${Array.from({ length: 15 }, (_, index) => `b${index}: viewer { name }`).join(' ')} }`)).toBe('TOO_MANY_ALIASES');
    expect(await refused('{ searchCatalog(query: "e", first: 50) { ... on Show { episodes(first: 500) { databaseId code title airDate } } } }')).toBe('QUERY_TOO_COSTLY');
  });

  it('accepts the queries the documentation shows (README, docs/api.md)', async () => {
    const { app: defaults } = await defaultApp;
    const account = await makeAccount();
    for (const query of [
      '{ searchCatalog(query: "e", kind: SHOW) { ... on Show { databaseId title episodes { databaseId code airDate } } } }',
      '{ viewer { name timezone apiToken webhookUrl webhookSecret } }',
      '{ summary { counts { upNext airingToday airingWeek unwatchedEpisodes } upNext { id title airDate } today { id } week { id } releasing { id title } } }',
      '{ library(first: 100) { edges { node { kind followed archived item { ... on Show { title databaseId } } } } } }',
      '{ viewer { notifications(first: 20) { edges { node { itemKey status deliveries { number at url statusCode durationMs error outcome } } } } } }',
      '{ calendar { from to eventCount events { uid kind id title summary date } } }',
      '{ export { format version account { name } shows { ids { tmdb tvdb } title episodes { season number watched history { at watched } } } movies { title history { at } } } }',
    ]) {
      const response = await graphql(defaults, account.token, query);
      expect(response.status, `${query}\n${response.text.slice(0, 300)}`).toBe(200);
      expect(response.json.errors, query).toBeUndefined();
    }
  });
});

describe('GraphQL over HTTP', () => {
  it('answers every malformed request with its 4xx and a JSON body', async () => {
    const account = await makeAccount();
    const auth = { authorization: `Bearer ${account.token}` };
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const response = await call(app, method, '/graphql', { token: account.token, body: { query: '{ viewer { name } }' } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST');
      expect(response.json.errors[0].message).toMatch(/GET and POST/);
    }
    const cases: [string, Parameters<typeof call>[3], number, RegExp][] = [
      ['POST', { headers: { ...auth, 'content-type': 'application/json' }, rawBody: '{"query": "{ viewer { name } }"' }, 400, /invalid JSON/],
      ['POST', { token: account.token, body: [{ query: '{ viewer { name } }' }] }, 400, /Batching is not supported/],
      ['POST', { token: account.token, body: {} }, 400, /Must provide query string/],
      ['POST', { token: account.token, body: { query: 42 } }, 400, /query.{0,3} param to be a string/],
      ['POST', { token: account.token, body: { query: '{ viewer { name } }', variables: 'x' } }, 400, /variables.{0,3} param/],
      ['POST', { headers: { ...auth, 'content-type': 'text/plain' }, rawBody: '{"query": "{ viewer { name } }"}' }, 415, /content type/],
      ['GET', { headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' } }, 415, /GET request has no body/],
    ];
    for (const [name, value] of [['variables', '{'], ['extensions', 'x'], ['variables', '5']] as const) {
      const response = await call(app, 'GET', `/graphql?query=%7B%20viewer%20%7B%20name%20%7D%20%7D&${name}=${encodeURIComponent(value)}`, { token: account.token });
      expect(response.status, `${name}=${value}`).toBe(400);
      expect(JSON.stringify(response.json)).toMatch(new RegExp(name));
    }
    for (const [method, options, status, message] of cases) {
      const response = await call(app, method, '/graphql?query=%7B%20viewer%20%7B%20name%20%7D%20%7D', options);
      expect(response.status, response.text).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/json/);
      expect(JSON.stringify(response.json)).toMatch(message);
    }
    const viaGet = await call(app, 'GET', `/graphql?query=${encodeURIComponent('mutation { updateSettings(input: { timezone: "Asia/Tokyo" }) { __typename } }')}`, { token: account.token });
    expect(viaGet.status).toBe(405);
    expect(viaGet.headers.get('allow')).toBe('POST');
    expect(await timezoneOf(account.token)).toBe('UTC');
  });

  it('holds a JSON body to AIRDATE_MAX_JSON_KB (413), declared or streamed', async () => {
    const small = await appWith((defaults) => ({ ...defaults, limits: { ...defaults.limits, maxJsonBytes: 1024 } }));
    const account = await makeAccount();
    const big = JSON.stringify({ query: `{ viewer { name } } # ${'x'.repeat(2_000)}` });
    const declared = await call(small, 'POST', '/graphql', { token: account.token, headers: { 'content-type': 'application/json' }, rawBody: big });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ error: 'request body is larger than 1 KB' });
    const stream = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(big)), controller.close()) });
    const init = { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' }, body: stream, duplex: 'half' };
    const streamed = await small.fetch(new Request('http://airdate.test/graphql', init as RequestInit));
    expect(streamed.status).toBe(413);
    // A caller of fetch declaring a small length and sending more is measured by what it sent.
    const understated = new Request('http://airdate.test/graphql', { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json', 'content-length': '20' }, body: big });
    expect((await small.fetch(understated)).status).toBe(413);
    const fits = await call(small, 'POST', '/graphql', { token: account.token, body: { query: '{ viewer { name } }' } });
    expect(fits.status).toBe(200);
  });

  it('answers a caller without a token 401 before reading the document: no field suggestions, no limits', async () => {
    for (const query of ['{ viewr { name } }', '{ viewer { nme } }', `{ ${'viewer { name } '.repeat(5_000)} }`]) {
      const response = await call(app, 'POST', '/graphql', { body: { query } });
      expect(response.status).toBe(401);
      expect(response.text).not.toMatch(/did you mean|viewer|QUERY_|TOO_MANY/i);
    }
  });

  it('answers client mistakes with their own errors, logged at info, and keeps "Unexpected error." for faults', async () => {
    const account = await makeAccount();
    const logged: { level: string; message: string }[] = [];
    const original = { ...app.logger };
    // A line is logged as (message) or as (fields, message).
    for (const level of ['info', 'error'] as const) app.logger[level] = ((...args: unknown[]) => void logged.push({ level, message: String(args.at(-1)) })) as typeof app.logger.info;
    try {
      const mistakes = [
        '{ viewr { name } }',
        '{ viewer { name }',
        '{ library(first: -5) { edges { cursor } } }',
        '{ library(first: 101) { edges { cursor } } }',
        '{ library(after: "zzz") { edges { cursor } } }',
        '{ summary { week(first: 5001) { id } } }',
        '{ calendar(past: -1) { eventCount } }',
      ];
      for (const query of mistakes) {
        const response = await graphql(app, account.token, query);
        expect(response.status, query).toBeLessThan(500);
        expect(response.json.errors[0].message, query).not.toBe('Unexpected error.');
      }
      const wrongVariable = await graphql(app, account.token, 'query($n: Int) { library(first: $n) { edges { cursor } } }', { n: 'x' });
      expect(wrongVariable.json.errors[0].message).toMatch(/Int cannot represent/);
      const unknownOperation = await call(app, 'POST', '/graphql', { token: account.token, body: { query: '{ viewer { name } }', operationName: 'Nope' } });
      expect(unknownOperation.status).toBe(400);
      expect(logged.filter((line) => line.level === 'error')).toEqual([]);
      expect(logged.filter((line) => line.level === 'info').length).toBeGreaterThanOrEqual(mistakes.length + 2);
      const cursor = await graphql(app, account.token, '{ library(after: "zzz") { edges { cursor } } }');
      expect(cursor.json.errors[0]).toMatchObject({ message: expect.stringMatching(/cursor/i), extensions: { code: 'BAD_USER_INPUT' } });
      const range = await graphql((await defaultApp).app, account.token, '{ calendar(past: -1) { eventCount } }');
      expect(range.status).toBe(400);
      expect(range.json.errors[0]).toMatchObject({ message: 'past must be a whole number of days from 0 to 3650', extensions: { code: 'BAD_INPUT' } });
    } finally {
      Object.assign(app.logger, original);
    }
  });
});
