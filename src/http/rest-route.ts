import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config.ts';
import type { AuthenticatedAccount, GraphQLContext } from '../graphql/context.ts';
import type { Logger } from '../log.ts';
import type { RateLimitStore } from './rate-limit.ts';

/** A method a REST path answers (GET brings HEAD along). */
export type RestMethod = 'GET' | 'POST';

/**
 * Where a route takes the API token from: the header, or also `?token=` (calendar apps, widgets);
 * `own-token`: no API token at all, the handler checks a token of its own kind in the URL (a media
 * server connection's, which can do nothing else) and its context's account is a stand-in that
 * throws when read.
 */
export type TokenPlacement = 'header-or-query' | 'header-only' | 'own-token';

/**
 * Answers one request of a route, for the account the edge authenticated. `revalidate`, on a
 * handler whose answers carry a kept ETag (the feeds, the calendar), answers a conditional GET
 * before any Request or Response exists (src/early-answers.ts).
 */
export type RestHandler = ((request: Request, context: GraphQLContext) => Promise<Response>) & { revalidate?: Revalidate };

/**
 * The headers of the 304 this route would answer to a GET of `search` for `account` carrying
 * `ifNoneMatch`, when the ETag it holds for that account and URL matches; undefined when it does
 * not (or holds none yet): the request then takes the ordinary way. Throws what the handler would
 * (a malformed parameter's 400), which also sends the request the ordinary way.
 */
export type Revalidate = (search: URLSearchParams, account: AuthenticatedAccount, ifNoneMatch: string) => Record<string, string> | undefined;

/** What a route's handler is made with, once the schema exists (app.ts). */
export interface RouteDependencies {
  schema: GraphQLSchema;
  logger: Logger;
  limits: Config['limits'];
  /** Where rate limits count (the database on PostgreSQL, else this process), for routes with limits of their own. */
  counters: RateLimitStore;
}

/** One response of an OpenAPI operation. */
export interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
  headers?: Record<string, unknown>;
}

/** A route's own part of its OpenAPI operation; the document adds what every route of its kind can answer. */
export interface OpenApiOperation {
  summary: string;
  description?: string;
  tag: string;
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  /** Success and route-specific statuses. */
  responses: Record<string, OpenApiResponse>;
}

/**
 * One token-carrying REST operation, declared once, in its feature: app.ts routes by it (through
 * routes.ts, which collects them) and the OpenAPI document describes it. Its input and output are
 * the zod schemas the handler validates with and answers by, which the operation refers to.
 */
export interface RestRoute {
  method: RestMethod;
  /** The paths it answers: one, or one per import source. */
  paths: readonly string[];
  /** The paths as the OpenAPI document and the access log write them (`/api/import/{source}`). */
  template: string;
  auth: TokenPlacement;
  /** Also accepts the web app's session cookie (a GET only: a link the browser follows). */
  session?: true;
  operation: OpenApiOperation;
  /** Makes the handler of one of `paths`. */
  handler(dependencies: RouteDependencies, path: string): RestHandler;
}
