import { z } from 'zod';
import type { OpenApiOperation, OpenApiResponse, RestMethod, RestRoute } from '../http/rest-route.ts';
import { okSchema } from './common-schemas.ts';
import { error, etag, ifNoneMatch, jsonContent, notModified } from './operation-parts.ts';

/**
 * The OpenAPI 3.1 document of the REST paths, generated from the routes each feature declares
 * (src/routes.ts collects them: the list app.ts routes by) with the zod schemas they validate with
 * and answer by, through zod's own `z.toJSONSchema` (JSON Schema 2020-12, which OpenAPI 3.1's
 * default dialect is built on: the document leaves `jsonSchemaDialect` at that default, which
 * Swagger UI requires). The paths answered without a token are described here.
 */

type JsonSchema = Record<string, unknown>;

const healthSchema = okSchema;
const readinessSchema = z
  .strictObject({ ok: z.literal(true), database: z.literal('ok'), scheduler: z.literal('ok') })
  .meta({ id: 'Readiness' });

/** Paths answered without a token: health, and the API's own description. GET (and HEAD) only. */
export const openPaths = ['/healthz', '/readyz', '/api/openapi.json', '/api/docs'] as const;

const openOperations: Record<(typeof openPaths)[number], OpenApiOperation> = {
  '/healthz': { summary: 'The process is up', tag: 'Health', responses: { 200: { description: 'Up.', content: jsonContent(healthSchema) } } },
  '/readyz': {
    summary: 'The database and the job store are reachable',
    tag: 'Health',
    responses: {
      200: { description: 'Ready.', content: jsonContent(readinessSchema) },
      503: error('Starting (`starting`), the start failed, or the database or the job store is unreachable.'),
    },
  },
  '/api/openapi.json': {
    summary: 'This document',
    tag: 'API description',
    parameters: [ifNoneMatch],
    responses: { 200: { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } }, headers: etag }, 304: notModified },
  },
  '/api/docs': {
    summary: 'A readable reference of this document (Swagger UI, served offline)',
    tag: 'API description',
    responses: { 200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
};

const securityFor = (route: RestRoute | undefined) => {
  if (route === undefined) return [];
  if (route.auth === 'own-token') return [{ connectionToken: [] }];
  return route.auth === 'header-or-query' ? [{ bearerToken: [] }, { queryToken: [] }] : [{ bearerToken: [] }];
};

/** What every route can answer besides its own statuses. */
function commonResponses(route: RestRoute | undefined, method: RestMethod): Record<string, OpenApiResponse> {
  const allow = { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } };
  const common: Record<string, OpenApiResponse> = {
    400: error('The request URL cannot be read, or the connection closed before the request was answered.'),
    405: error(`Another method than ${method === 'GET' ? 'GET or HEAD' : method}.`, allow),
    500: error('Unexpected failure (details only in the server log).'),
  };
  if (route !== undefined) {
    common[401] = error(
      route.auth === 'header-only' ? 'No valid token; `?token=` is refused here: send the header.' : route.auth === 'own-token' ? 'No valid connection token for this path.' : 'No valid token.',
    );
    common[429] = error(route.auth === 'own-token' ? 'Over the connection’s rate limit.' : 'Over the account’s rate limit.', { 'Retry-After': { description: 'Seconds until the next window.', schema: { type: 'integer' } } });
  }
  return common;
}

/** Builds the document of `routes` and the open paths; the API description builds it once, on the first request for it. */
export function buildOpenApiDocument(version: string, routes: readonly RestRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const entries: [string, RestMethod, OpenApiOperation, RestRoute | undefined][] = [
    ...routes.map((route): [string, RestMethod, OpenApiOperation, RestRoute] => [route.template, route.method, route.operation, route]),
    ...openPaths.map((path): [string, RestMethod, OpenApiOperation, undefined] => [path, 'GET', openOperations[path], undefined]),
  ];
  for (const [template, method, spec, route] of entries) {
    const item = (paths[template] ??= {});
    if (item[method.toLowerCase()] !== undefined) throw new Error(`two routes declare ${method} ${template}`);
    const { tag, responses: own, ...rest } = spec;
    const operation = { tags: [tag], ...rest, security: securityFor(route), responses: { ...commonResponses(route, method), ...own } };
    item[method.toLowerCase()] = operation;
    if (method === 'GET') {
      // HEAD: the same statuses and headers, no body.
      const headResponses = Object.fromEntries(Object.entries(operation.responses).map(([status, { content: _body, ...response }]) => [status, response]));
      item.head = { ...operation, summary: `${spec.summary} (headers only)`, responses: headResponses };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Airdate REST API',
      version,
      description: 'The machine API (`/api/machine/*`), import, export, calendar and health of an Airdate server. Every failure body is exactly `{"error":"<message>"}`. GraphQL (`/graphql`, schema.graphql) is described by its own schema.',
    },
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerToken: { type: 'http', scheme: 'bearer', description: 'The account’s API token: `Authorization: Bearer adt_…`.' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'The API token as `?token=`, for clients that cannot set headers (not on export or import).' },
        connectionToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description: 'A media server connection’s token (`adw_…`, shown in its URL on the Connections page): it only records watches, on its own source’s path. An API token is refused.',
        },
      },
    },
  };
}

/** Every schema with a `.meta({ id })`, under its id, referring to the others by `#/components/schemas/…`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as JsonSchema]));
}
