import { PothosValidationError } from '@pothos/core';
import { getOperationAST, GraphQLError, type GraphQLSchema } from 'graphql';
import type { Plugin, YogaLogger, YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { noMetrics, type Metrics } from '../metrics/metrics.ts';
import { UnauthenticatedError } from '../errors.ts';
import type { GraphQLContext, WebRequestContext, WebRequestServices } from './context.ts';
import { anonymousDocumentAccess, anonymousRefusal, refuseCrossSite } from './graphql-access.ts';
import { graphqlLimitPlugins, limitCodes } from './graphql-limits.ts';
import { errorStatus } from '../http/error-status.ts';
import { publicOrigin } from '../http/public-origin.ts';
import { boundedRequest, parsedBody, preparsedBodyParser } from './graphql-body.ts';

/** What the edge found out about the request, handed to Yoga as the server context. */
type ServerContext = { account: GraphQLContext['account']; web: WebRequestContext };

export interface GraphQLEndpointProps {
  config: Config;
  logger: Logger;
  /** The schema every operation runs on (src/schema.ts). */
  schema: GraphQLSchema;
  services: GraphQLContext['services'];
  /** What the web app's requests carry (the sign-in limiter). */
  webServices: WebRequestServices;
}

/** How the edge authenticated a /graphql request (src/app.ts). */
export type GraphQLAccess =
  | { via: 'token'; account: GraphQLContext['account'] }
  | { via: 'session'; account: GraphQLContext['account']; sessionId: number }
  | { via: 'anonymous' };

/** `/graphql`: operations of an account or the public ones of anybody (the GraphiQL page: graphiql.ts). */
export interface GraphQLEndpoint {
  /**
   * An operation, checked and answered as GraphQL over HTTP says. Anonymous requests run only
   * documents of public root fields (401 otherwise, before validation); they and session requests
   * pass the CSRF rule first when they may write.
   */
  operation(request: Request, access: GraphQLAccess, clientAddress: string | undefined): Promise<Response>;
}

/**
 * The account of an anonymous request: reading anything of it throws, so a private resolver
 * reached without an account fails as "sign in first" instead of acting for nobody.
 */
export const noAccount = new Proxy({} as GraphQLContext['account'], {
  get: () => {
    throw new UnauthenticatedError('sign in first');
  },
});

/**
 * Builds the GraphQL endpoint on the schema: Yoga with the document limits (graphql-limits.ts),
 * body limits (AIRDATE_MAX_JSON_KB for JSON, AIRDATE_MAX_UPLOAD_MB for uploads) and error
 * handling by kind — a client's mistake (bad JSON, a wrong method, an unknown field, a variable of
 * the wrong type, a refused limit, an out-of-range argument, an expected AppError) keeps its
 * message and code and its 4xx, and is logged at info; only a real fault becomes "Unexpected
 * error." (a 500, as over REST) and is logged as an error, with its stack.
 */
export function createGraphQLEndpoint(props: GraphQLEndpointProps): GraphQLEndpoint {
  const { config, logger, schema, services } = props;
  // Yoga is loaded by the first /graphql request: loading it costs ~0.1 s of CPU, which a start
  // need not spend before it serves (the REST routes run their operations without it).
  let loading: Promise<YogaServerInstance<ServerContext, GraphQLContext>> | undefined;
  const yoga = () => (loading ??= import('graphql-yoga').then(({ createYoga }) => createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // No CORS headers, ever (Yoga's default reflects any Origin with credentials): a page of
    // another origin must not read an answer, and a request with a token needs no browser.
    cors: false,
    batching: false,
    maskedErrors: { maskError: classifyError },
    logging: yogaLogger(logger),
    // Bodies are read under our limits before Yoga sees them (graphql-body.ts).
    maxRequestBodySize: false,
    plugins: [preparsedBodyParser(), ...graphqlLimitPlugins(config.limits.graphql), answeredWithData(), logAndCountResults(logger, services.metrics ?? noMetrics)],
    // The page is ours (graphiql.ts): Yoga's loads its files from a CDN.
    graphiql: false,
    context: ({ account, web }): GraphQLContext => ({ account, services, source: 'graphql', web }),
  })));

  return {
    async operation(request, access, clientAddress) {
      if (access.via === 'session') refuseCrossSite(request, config.web);
      const bounded = await boundedRequest(request, config.limits);
      if (access.via === 'anonymous') {
        const wanted = await anonymousDocumentAccess(bounded, config.limits.graphql, parsedBody(bounded));
        if (!wanted.isPublic) throw anonymousRefusal();
        if (wanted.hasMutation) refuseCrossSite(request, config.web);
      }
      const cookies: string[] = [];
      const web: WebRequestContext = {
        ...props.webServices,
        via: access.via,
        sessionId: access.via === 'session' ? access.sessionId : undefined,
        sessionAccountId: access.via === 'session' ? access.account.id : undefined,
        request,
        origin: publicOrigin(request, config.web),
        clientAddress,
        settings: config.web,
        setCookie: (value) => void cookies.push(value),
      };
      const response = await (await yoga()).fetch(bounded, { account: access.via === 'anonymous' ? noAccount : access.account, web });
      for (const cookie of cookies) response.headers.append('set-cookie', cookie);
      return response;
    },
  };
}

/**
 * Yoga's `maskError`: what a client may see of an error. Errors of the request (Yoga's own HTTP
 * and parameter errors, graphql-js syntax, validation and variable errors, our limit refusals)
 * pass as they are. An error inside execution gets its code and HTTP status from the one rule
 * (src/http/error-status.ts), as the REST facade answers the same error: an expected failure — an
 * AppError of a service, a PothosValidationError of an argument or cursor — keeps its message
 * (the same error object, so Yoga does not log it as an unexpected one); anything else is a fault:
 * "Unexpected error." and a 500 (Yoga logs the original, see yogaLogger). A partial answer is 200
 * whatever its errors (answeredWithData).
 */
function classifyError(error: unknown, message: string): Error {
  if (isRequestError(error)) {
    // A malformed request and a refused limit are 400 whatever the Accept header (Yoga marks
    // parse-time errors as answered with 200 to application/json clients, like syntax errors).
    const http = error.extensions.http as { spec?: boolean } | undefined;
    if (http && alwaysBadRequest.has(String(error.extensions.code))) http.spec = false;
    return error;
  }
  const answer = errorStatus(error);
  // `spec: false`: the status whatever the Accept header (Yoga would answer 200 to application/json).
  const http = { status: answer.status, spec: false, ...(Object.keys(answer.headers).length > 0 ? { headers: answer.headers } : {}) };
  if (answer.kind !== 'expected') {
    // Where it failed stays (the path and the place in the document); what failed does not.
    const where = error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {};
    return new GraphQLError(message, { ...where, extensions: { code: answer.code, http } });
  }
  if (!(error instanceof GraphQLError)) return new GraphQLError(answer.message, { extensions: { code: answer.code, http } });
  Object.assign(error.extensions, { code: answer.code, http });
  return error;
}

const alwaysBadRequest = new Set<string>(['BAD_REQUEST', ...Object.values(limitCodes)]);

/**
 * A GraphQLError that does not wrap a thrown exception (Yoga's isOriginalGraphQLError), nor is
 * a PothosValidationError (itself a GraphQLError) an argument's check threw during execution.
 */
function isRequestError(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError) || error instanceof PothosValidationError) return false;
  return error.originalError == null || isRequestError(error.originalError);
}

/**
 * The status of an executed operation's answer that carries data: 200, whatever its errors. GraphQL
 * over HTTP requires it for both media types (a partial answer is a success: what could be answered
 * was, and `errors` says what could not), so the status classifyError gave each error stands only
 * when `data` is null: then the answer takes the highest, a fault's 500 above any expected one's.
 */
function answeredWithData(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || isAsyncIterable(result) || result.data == null || !result.errors?.length) return;
      const errors = result.errors.map((error) => {
        if (!(error instanceof GraphQLError) || !error.extensions.http) return error;
        const { http: _status, ...extensions } = error.extensions;
        return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError, extensions });
      });
      setResult({ ...result, errors });
    },
  };
}

const isAsyncIterable = (value: object): value is AsyncIterable<unknown> => Symbol.asyncIterator in value;

/**
 * Yoga's logger on ours. Yoga logs at `error` only what maskError replaced (a real fault): that
 * is logged with the original error's stack.
 */
function yogaLogger(logger: Logger): YogaLogger {
  const text = (args: unknown[]) => args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
  return {
    debug: (...args) => (logger.isLevelEnabled('debug') ? logger.debug(text(args)) : undefined),
    info: (...args) => logger.info(text(args)),
    warn: (...args) => logger.warn(text(args)),
    error: (...args) => {
      const [first] = args;
      if (first instanceof Error) {
        const cause = first instanceof GraphQLError && first.originalError ? first.originalError : first;
        logger.error({ err: cause }, 'GraphQL operation failed');
      } else logger.error(text(args));
    },
  };
}

/**
 * A client's error message without the value it quotes: graphql-js puts the offending value —
 * a password sent as a number, say — after these words ("Variable "$p" got invalid value …",
 * "String cannot represent a non string value: …", "Expected …, found …").
 */
function withoutValues(message: string): string {
  return message.replace(/(got invalid value|value:|found)\s[\s\S]*$/, '$1 …');
}

/**
 * Counts every answered operation by its name and outcome (ok, error: a client's mistake or an
 * expected failure, fault: an unexpected error), and writes one info line per answer that
 * carries a client's mistake (never a stack: nothing failed here).
 */
function logAndCountResults(logger: Logger, metrics: Pick<Metrics, 'graphqlOperation'>): Plugin {
  const operationNames = new WeakMap<Request, string | null | undefined>();
  return {
    onParams({ params, request }) {
      operationNames.set(request, params.operationName);
    },
    // The name in the document when the request did not give one (most clients do not).
    onValidate({ params, context }) {
      const { request } = context as { request?: Request };
      if (!request) return;
      const operation = getOperationAST(params.documentAST, operationNames.get(request) ?? undefined);
      if (operation?.name) operationNames.set(request, operation.name.value);
    },
    onResultProcess({ result, request }) {
      const results = Array.isArray(result) ? result : [result];
      const errors = results.flatMap((item) => ('errors' in item && item.errors ? item.errors : []));
      const mistakes = errors
        .filter((error) => error.extensions?.code !== 'INTERNAL_SERVER_ERROR')
        .map((error) => `${String(error.extensions?.code ?? 'GRAPHQL_ERROR')}: ${withoutValues(error.message)}`);
      const outcome = errors.length === 0 ? 'ok' : mistakes.length < errors.length ? 'fault' : 'error';
      metrics.graphqlOperation({ operationName: operationNames.get(request), outcome });
      if (mistakes.length > 0) logger.info(`GraphQL request answered with errors: ${mistakes.slice(0, 3).join('; ').slice(0, 500)}`);
    },
  };
}
