import { PothosValidationError } from '@pothos/core';
import { GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { GraphQLServices, WebRequestServices } from '../../src/graphql/context.ts';
import { loadConfig } from '../../src/config.ts';
import { db } from '../../src/db/client.ts';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  RateLimitedError,
  ServiceBusyError,
  SessionRequiredError,
  TooLargeError,
  UnauthenticatedError,
  WrongCredentialsError,
} from '../../src/errors.ts';
import { createGraphQLEndpoint } from '../../src/graphql/graphql-endpoint.ts';
import { prepareOperation, runOperation } from '../../src/graphql/run-operation.ts';
import { createCompression } from '../../src/http/compression.ts';
import { createEdge } from '../../src/http/edge.ts';
import { json } from '../../src/http/responses.ts';
import { TooManyStreamsError } from '../../src/library/live-updates.ts';
import { createLogger } from '../../src/log.ts';
import { noMetrics } from '../../src/metrics/metrics.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount } from '../support/factories.ts';
import { call, graphql } from '../support/http.ts';
import { captureLog } from '../support/log-capture.ts';

// Errors become statuses in one place (src/http/error-status.ts), so the same error thrown by a
// resolver answers the same status (and Retry-After) over REST and over /graphql: each expected
// code, an argument's validation, an unexpected error and a real database failure. The REST side
// is runOperation behind the edge, as every REST route runs; the GraphQL side the /graphql
// endpoint behind the same edge; the schema is a small one whose field throws what it is told to.
const { app, config } = await useTestApp({ AIRDATE_LOG_LEVEL: 'silent', AIRDATE_RATE_LIMIT_PER_MINUTE: '0' });

/** What a resolver throws, by name. */
const thrown: Record<string, () => unknown> = {
  input: () => new InputError('the title is too long', 'title'),
  notFound: () => new NotFoundError('show 12 not found'),
  conflict: () => new ConflictError('the name is taken'),
  tooLarge: () => new TooLargeError('the upload is over 50 MB'),
  rateLimited: () => new RateLimitedError(7),
  busy: () => new ServiceBusyError(3),
  wrongCredentials: () => new WrongCredentialsError(),
  unauthenticated: () => new UnauthenticatedError('sign in first'),
  forbidden: () => new ForbiddenError('only administrators may do this'),
  sessionRequired: () => new SessionRequiredError(),
  tooManyStreams: () => new TooManyStreamsError('token', 2),
  argument: () => new PothosValidationError('Argument "first" must be from 0 to 100; got 101'),
  unexpected: () => new Error('the secret detail of a fault'),
};

const failing = { type: new GraphQLNonNull(GraphQLString), args: { kind: { type: new GraphQLNonNull(GraphQLString) } } };
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      fail: { ...failing, resolve: (_root, { kind }: { kind: string }) => (kind === 'database' ? readMissingTable() : Promise.reject(thrown[kind]!())) },
      maybe: { ...failing, type: GraphQLString, resolve: (_root, { kind }: { kind: string }) => Promise.reject(thrown[kind]!()) },
      ok: { type: GraphQLString, resolve: () => 'ok' },
    },
  }),
});

/** A real failure of the database: a table that is not there. */
async function readMissingTable(): Promise<string> {
  await db().$queryRawUnsafe('SELECT * FROM "NoSuchTable"');
  return 'unreachable';
}

const log = captureLog();
const logger = createLogger({ level: 'info', format: 'json', destination: log.destination });
const owner = await makeAccount();
const account = { id: owner.id, name: owner.name, timezone: 'UTC', feedVersion: 0, calendarVersion: 0, catalogVersion: 0, summaryProfile: 'full' };
const endpoint = createGraphQLEndpoint({ config: loadConfig({}), logger, schema, services: {} as GraphQLServices, webServices: {} as WebRequestServices });
const restOperation = prepareOperation(schema, 'query Fail($kind: String!) { fail(kind: $kind) }');
const edge = createEdge({
  logger,
  metrics: noMetrics,
  web: config.web,
  compress: createCompression(),
  route: async (request, url) => {
    if (url.pathname === '/graphql') return endpoint.operation(request, { via: 'token', account }, undefined);
    const data = await runOperation(restOperation, { account, services: {} as GraphQLServices, source: 'api' }, { kind: url.searchParams.get('kind') });
    return json(200, data);
  },
});

/** The answer of the REST side and of /graphql (as `accept` asks) to the same error. */
async function both(kind: string, accept = 'application/graphql-response+json') {
  const rest = await edge(new Request(`http://airdate.test/rest?kind=${kind}`));
  const query = await edge(
    new Request('http://airdate.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ query: `{ fail(kind: "${kind}") }` }) }),
  );
  return { rest: { status: rest.status, retryAfter: rest.headers.get('retry-after'), body: await rest.json() }, graphql: { status: query.status, retryAfter: query.headers.get('retry-after'), body: await query.json() } };
}

describe('the same error, the same status over REST and GraphQL', () => {
  const expected: [string, number, string | null][] = [
    ['input', 400, null],
    ['notFound', 404, null],
    ['conflict', 409, null],
    ['tooLarge', 413, null],
    ['rateLimited', 429, '7'],
    ['busy', 503, '3'],
    ['wrongCredentials', 401, null],
    ['unauthenticated', 401, null],
    ['forbidden', 403, null],
    ['sessionRequired', 403, null],
    ['tooManyStreams', 429, null],
    ['argument', 400, null],
  ];
  for (const [kind, status, retryAfter] of expected) {
    it(`an expected ${kind} error: ${status}${retryAfter ? ` with Retry-After ${retryAfter}` : ''} on both, with its message`, async () => {
      const message = (thrown[kind]!() as Error).message;
      for (const accept of ['application/graphql-response+json', 'application/json']) {
        const answers = await both(kind, accept);
        expect(answers.rest).toEqual({ status, retryAfter, body: { error: message } });
        expect(answers.graphql).toEqual({ status, retryAfter, body: { data: null, errors: [expect.objectContaining({ message })] } });
      }
    });
  }

  it('an unexpected error and a failure of the database: 500 on both, the message masked, logged once with its stack', async () => {
    for (const kind of ['unexpected', 'database']) {
      for (const accept of ['application/graphql-response+json', 'application/json']) {
        const logged = log.records().length;
        const answers = await both(kind, accept);
        expect(answers.rest).toEqual({ status: 500, retryAfter: null, body: { error: 'internal server error' } });
        expect(answers.graphql).toEqual({ status: 500, retryAfter: null, body: { data: null, errors: [{ message: 'Unexpected error.', locations: expect.any(Array), path: ['fail'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } });
        const faults = log.records().slice(logged).filter((record) => record.level === 'error');
        expect(faults, kind).toHaveLength(2);
        for (const fault of faults) expect((fault.err as { stack: string }).stack).toMatch(kind === 'database' ? /NoSuchTable/ : /the secret detail of a fault/);
        expect(JSON.stringify([answers.rest.body, answers.graphql.body])).not.toMatch(/secret detail|NoSuchTable/);
      }
    }
  });
});

describe('/graphql: an answer with data is 200, one without takes its gravest error', () => {
  const post = (query: string) =>
    edge(new Request('http://airdate.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query }) }));

  it('an unexpected error beside an expected one is a 500, not the expected one\'s 4xx', async () => {
    // The nullable field's error is kept beside the one that leaves no data.
    const answer = await post('{ a: maybe(kind: "notFound") b: fail(kind: "unexpected") }');
    const body = await answer.json();
    expect(body.data).toBeNull();
    expect(body.errors.map((error: { extensions: { code: string } }) => error.extensions.code).sort()).toEqual(['INTERNAL_SERVER_ERROR', 'NOT_FOUND']);
    expect(answer.status).toBe(500);
  });

  it('a partial answer (data with errors beside it) is 200, as GraphQL over HTTP requires', async () => {
    for (const kind of ['notFound', 'rateLimited', 'unexpected']) {
      const answer = await post(`{ ok maybe(kind: "${kind}") }`);
      expect(answer.status, kind).toBe(200);
      expect(answer.headers.get('retry-after'), kind).toBeNull();
      expect((await answer.json()).data, kind).toEqual({ ok: 'ok', maybe: null });
    }
  });
});

describe('the running app', () => {
  it('a failure of the database under a REST route and under /graphql: 500 on both', async () => {
    const person = await makeAccount();
    await db().$executeRawUnsafe('ALTER TABLE "LibraryItem" RENAME TO "LibraryItemGone"');
    try {
      const rest = await call(app, 'GET', '/api/machine/summary', { token: person.token });
      const query = await graphql(app, person.token, '{ summary { upNext { id } } }');
      expect([rest.status, query.status]).toEqual([500, 500]);
      expect(rest.json).toEqual({ error: 'internal server error' });
      expect(query.json.errors[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    } finally {
      await db().$executeRawUnsafe('ALTER TABLE "LibraryItemGone" RENAME TO "LibraryItem"');
    }
  });
});
