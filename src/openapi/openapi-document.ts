import { z } from 'zod';
import { listLimits } from '../limits.ts';
import { openPaths, restRoutes, type RestMethod, type RestRoute } from '../routes.ts';
import { calendarDaysSchemas, calendarKindsSchema, dryRunSchema, followBodySchema, importTimeZoneSchema, summaryLimitSchema, syncBodySchema, watchedBodySchema } from './request-schemas.ts';
import * as responses from './response-schemas.ts';

/**
 * The OpenAPI 3.1 document of the REST paths, generated from the zod schemas the routes validate
 * with (request-schemas.ts) and the presenters are typed with (response-schemas.ts), through
 * zod's own `z.toJSONSchema` (JSON Schema 2020-12, which OpenAPI 3.1's default dialect is built on:
 * the document leaves `jsonSchemaDialect` at that default, which Swagger UI requires). Paths come from
 * rest-routes.ts, the table app.ts routes by: a route without a description here is an error.
 */

type JsonSchema = Record<string, unknown>;
type Response = { description: string; content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, unknown> };

interface OperationSpec {
  summary: string;
  description?: string;
  tag: string;
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  /** Success and route-specific statuses; the builder adds the errors every route of its kind can answer. */
  responses: Record<string, Response>;
}

const ref = (schema: z.ZodType): JsonSchema => {
  const id = z.globalRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('a response or body schema without an id');
  return { $ref: `#/components/schemas/${id}` };
};
const jsonContent = (schema: z.ZodType) => ({ 'application/json': { schema: ref(schema) } });
const inline = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};
const queryParameter = (name: string, schema: z.ZodType, description?: string) => {
  const jsonSchema = inline(schema);
  return { name, in: 'query', required: false, description: description ?? jsonSchema.description, schema: jsonSchema };
};
const error = (description: string, headers?: Record<string, unknown>): Response => ({ description, content: jsonContent(responses.errorSchema), ...(headers ? { headers } : {}) });
const etag = { ETag: { description: 'Strong validator of this body; send it back in If-None-Match.', schema: { type: 'string' } } };
const ifNoneMatch = { name: 'If-None-Match', in: 'header', required: false, description: 'An ETag from an earlier answer: 304 without a body when it still names the current one.', schema: { type: 'string' } };
const notModified: Response = { description: 'Not modified: the ETag sent still names the current body.', headers: etag };
const jsonWrite = { 400: error('Malformed JSON, a body that is not an object, a missing or wrong-typed field, a value past its limit.'), 413: error('Body over AIRDATE_MAX_JSON_KB.'), 415: error('Not a JSON content type.') };

const feed = (summary: string, schema: z.ZodType, description?: string): OperationSpec => ({
  summary,
  tag: 'Feeds',
  ...(description ? { description } : {}),
  parameters: [ifNoneMatch],
  responses: { 200: { description: summary, content: jsonContent(schema), headers: etag }, 304: notModified },
});

/** Each route's own description, keyed `METHOD template`. */
const operations: Record<string, OperationSpec> = {
  'GET /api/machine/summary': {
    summary: 'The consolidated feed',
    tag: 'Feeds',
    description: "Up next, airing today and this week, releasing today or tomorrow, in the account's time zone. The account's summary profile chooses the shape: `full` (Summary) or `home-assistant` (HomeAssistantSummary).",
    parameters: [queryParameter('limit', summaryLimitSchema), ifNoneMatch],
    responses: {
      200: { description: 'The summary.', content: { 'application/json': { schema: { anyOf: [ref(responses.summarySchema), ref(responses.homeAssistantSummarySchema)] } } }, headers: etag },
      304: notModified,
      400: error(`\`limit\` is not a whole number from 0 to ${listLimits.feedItems.max}, or given twice.`),
    },
  },
  'GET /api/machine/releases': feed('Followed items releasing today or tomorrow', responses.releasesSchema),
  'GET /api/machine/airing': feed('Airing today and this week', responses.airingSchema),
  'GET /api/machine/widget': feed('The up-next watch list and this week', responses.widgetSchema),
  'POST /api/machine/watched': {
    summary: 'Mark watched or unwatched',
    tag: 'Writes',
    requestBody: { required: true, content: jsonContent(watchedBodySchema) },
    responses: { 200: { description: 'Done.', content: jsonContent(responses.okSchema) }, ...jsonWrite, 404: error('No item of that kind has this id.') },
  },
  'POST /api/machine/follow': {
    summary: 'Follow, unfollow, archive',
    tag: 'Writes',
    requestBody: { required: true, content: jsonContent(followBodySchema) },
    responses: { 200: { description: 'Done.', content: jsonContent(responses.okSchema) }, ...jsonWrite, 404: error('No item of that kind has this id.') },
  },
  'POST /api/machine/sync': {
    summary: 'Queue a catalog refresh and release check',
    tag: 'Writes',
    description: 'Answers at once; a sync already queued or running for the account is not queued twice.',
    requestBody: { required: false, content: jsonContent(syncBodySchema) },
    responses: { 200: { description: 'Queued.', content: jsonContent(responses.okSchema) }, ...jsonWrite },
  },
  'POST /api/import/{source}': {
    summary: 'Import a library from a file upload',
    tag: 'Import and export',
    description: 'The files as multipart/form-data file parts (any part names); zips are read. One request is one transaction.',
    parameters: [
      { name: 'source', in: 'path', required: true, schema: ref(responses.importSourceSchema) },
      queryParameter('dryRun', dryRunSchema),
      queryParameter('timeZone', importTimeZoneSchema),
    ],
    requestBody: {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } } } },
    },
    responses: {
      200: { description: 'The import report.', content: jsonContent(responses.importReportSchema) },
      400: error('A bad `dryRun` or `timeZone`, no file parts, a malformed body, or a file that is not of this source or breaks a bound (named with its first problem).'),
      413: error('Upload over AIRDATE_MAX_UPLOAD_MB, or zips past their bounds.'),
      415: error('Not multipart/form-data.'),
    },
  },
  'GET /api/calendar.ics': {
    summary: 'Releases as an iCalendar feed',
    tag: 'Feeds',
    description: 'All-day events for followed items from `past` days before to `future` days after the local today.',
    parameters: [queryParameter('past', calendarDaysSchemas.past), queryParameter('future', calendarDaysSchemas.future), queryParameter('kinds', calendarKindsSchema), ifNoneMatch],
    responses: {
      200: {
        description: 'The calendar.',
        content: { 'text/calendar': { schema: { type: 'string' } } },
        headers: { ...etag, 'Content-Disposition': { description: '`inline; filename="airdate.ics"`', schema: { type: 'string' } } },
      },
      304: notModified,
      400: error('A malformed or out-of-range value, a parameter given twice, or an unknown kind.'),
    },
  },
  'GET /api/export': {
    summary: 'Download the whole library',
    tag: 'Import and export',
    description: 'Streamed as a JSON attachment. Also answered to the web app’s signed-in session (its cookie) when no token is sent.',
    responses: {
      200: {
        description: 'The export document.',
        content: jsonContent(responses.exportSchema),
        headers: { 'Content-Disposition': { description: '`attachment; filename="airdate-export-YYYY-MM-DD.json"`', schema: { type: 'string' } } },
      },
      403: error('Sent with the session cookie by a page of another origin (its `Origin`, or `Sec-Fetch-Site` on anything but a followed link): `cross-site request refused`.'),
    },
  },
  'GET /healthz': { summary: 'The process is up', tag: 'Health', responses: { 200: { description: 'Up.', content: jsonContent(responses.healthSchema) } } },
  'GET /readyz': {
    summary: 'The database and the job store are reachable',
    tag: 'Health',
    responses: { 200: { description: 'Ready.', content: jsonContent(responses.readinessSchema) }, 503: error('The database or the job store is unreachable.') },
  },
  'GET /api/openapi.json': {
    summary: 'This document',
    tag: 'API description',
    parameters: [ifNoneMatch],
    responses: { 200: { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } }, headers: etag }, 304: notModified },
  },
  'GET /api/docs': {
    summary: 'A readable reference of this document (Swagger UI, served offline)',
    tag: 'API description',
    responses: { 200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
};

const securityFor = (route: RestRoute | undefined) => {
  if (route === undefined) return [];
  return route.auth === 'header-or-query' ? [{ bearerToken: [] }, { queryToken: [] }] : [{ bearerToken: [] }];
};

/** What every route can answer besides its own statuses. */
function commonResponses(route: RestRoute | undefined, method: RestMethod): Record<string, Response> {
  const allow = { Allow: { description: 'The methods the path takes.', schema: { type: 'string' } } };
  const common: Record<string, Response> = {
    400: error('The request URL cannot be read, or the connection closed before the request was answered.'),
    405: error(`Another method than ${method === 'GET' ? 'GET or HEAD' : method}.`, allow),
    500: error('Unexpected failure (details only in the server log).'),
  };
  if (route !== undefined) {
    common[401] = error(route.auth === 'header-only' ? 'No valid token; `?token=` is refused here: send the header.' : 'No valid token.');
    common[429] = error('Over the account’s rate limit.', { 'Retry-After': { description: 'Seconds until the next window.', schema: { type: 'integer' } } });
  }
  return common;
}

/** Builds the document; app.ts builds it once, on the first request for it. */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const described = new Set<string>();
  const entries: [string, RestMethod, RestRoute | undefined][] = [
    ...restRoutes.flatMap((route) => route.methods.map((method): [string, RestMethod, RestRoute] => [route.template, method, route])),
    ...openPaths.map((path): [string, RestMethod, undefined] => [path, 'GET', undefined]),
  ];
  for (const [template, method, route] of entries) {
    const key = `${method} ${template}`;
    if (described.has(key)) continue;
    described.add(key);
    const spec = operations[key];
    if (spec === undefined) throw new Error(`the OpenAPI document has no description of ${key}`);
    const { tag, responses: own, ...rest } = spec;
    const operation = { tags: [tag], ...rest, security: securityFor(route), responses: { ...commonResponses(route, method), ...own } };
    const item = (paths[template] ??= {});
    item[method.toLowerCase()] = operation;
    if (method === 'GET') {
      // HEAD: the same statuses and headers, no body.
      const headResponses = Object.fromEntries(Object.entries(operation.responses).map(([status, { content: _body, ...response }]) => [status, response]));
      item.head = { ...operation, summary: `${spec.summary} (headers only)`, responses: headResponses };
    }
  }
  for (const key of Object.keys(operations)) if (!described.has(key)) throw new Error(`the OpenAPI document describes ${key}, which no route answers`);
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
      },
    },
  };
}

/** Every schema with a `.meta({ id })`, under its id, referring to the others by `#/components/schemas/…`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as JsonSchema]));
}
