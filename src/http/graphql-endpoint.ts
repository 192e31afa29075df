import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { UnauthenticatedError } from '../errors.ts';
import type { SignInLimiter } from '../auth/sign-in-limit.ts';
import type { GraphQLContext, WebRequestContext } from '../schema/context.ts';
import { schema } from '../schema/index.ts';
import { anonymousDocumentAccess, anonymousRefusal, refuseCrossSite } from './graphql-access.ts';
import { graphqlLimitPlugins, limitCodes } from './graphql-limits.ts';
import { publicOrigin } from './public-origin.ts';
import { cappedRequest, isMultipart, readCappedBody } from './read-upload.ts';
import { HttpError } from './responses.ts';

/** What the edge found out about the request, handed to Yoga as the server context. */
type ServerContext = { account: GraphQLContext['account']; web: WebRequestContext };

export interface GraphQLEndpointProps {
  config: Config;
  logger: Logger;
  services: GraphQLContext['services'];
  signInLimiter: SignInLimiter;
}

/** How the edge authenticated a /graphql request (src/app.ts). */
export type GraphQLAccess =
  | { via: 'token'; account: GraphQLContext['account'] }
  | { via: 'session'; account: GraphQLContext['account']; sessionId: number }
  | { via: 'anonymous' };

/** `/graphql`: the GraphiQL page, and operations of an account or the public ones of anybody. */
export interface GraphQLEndpoint {
  /** The GraphiQL page (a browser's GET), which needs no token. */
  page(request: Request): Promise<Response>;
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
const noAccount = new Proxy({} as GraphQLContext['account'], {
  get: () => {
    throw new UnauthenticatedError('sign in first');
  },
});

/** Content types an operation may be posted as: JSON, or a multipart upload (importLibrary). */
const postedTypes = ['application/json', 'application/graphql-response+json', 'application/graphql+json', 'multipart/form-data'];
const mediaType = (request: Request) => (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * Builds the GraphQL endpoint on the schema: Yoga with the document limits (graphql-limits.ts),
 * body limits (AIRDATE_MAX_JSON_KB for JSON, AIRDATE_MAX_UPLOAD_MB for uploads) and error
 * handling by kind — a client's mistake (bad JSON, a wrong method, an unknown field, a variable of
 * the wrong type, a refused limit, an out-of-range argument, an expected AppError) keeps its
 * message and code and its 4xx, and is logged at info; only a real fault becomes "Unexpected
 * error." and is logged as an error, with its stack.
 */
export function createGraphQLEndpoint(props: GraphQLEndpointProps): GraphQLEndpoint {
  const { config, logger, services } = props;
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    batching: false,
    maskedErrors: { maskError: classifyError },
    logging: yogaLogger(logger),
    plugins: [...graphqlLimitPlugins(config.limits.graphql), logRefusals(logger)],
    graphiql: { title: 'Airdate GraphQL', headers: JSON.stringify({ Authorization: 'Bearer <your API token>' }) },
    context: ({ account, web }): GraphQLContext => ({ account, services, source: 'graphql', web }),
  });

  return {
    page: async (request) => yoga.fetch(request, {} as ServerContext),
    async operation(request, access, clientAddress) {
      if (access.via === 'session') refuseCrossSite(request, config.web);
      const bounded = await boundedRequest(request, config.limits);
      if (access.via === 'anonymous') {
        const wanted = await anonymousDocumentAccess(bounded, config.limits.graphql);
        if (!wanted.isPublic) throw anonymousRefusal();
        if (wanted.hasMutation) refuseCrossSite(request, config.web);
      }
      const cookies: string[] = [];
      const web: WebRequestContext = {
        via: access.via,
        sessionId: access.via === 'session' ? access.sessionId : undefined,
        sessionAccountId: access.via === 'session' ? access.account.id : undefined,
        request,
        origin: publicOrigin(request, config.web),
        clientAddress,
        settings: config.web,
        setCookie: (value) => void cookies.push(value),
        signInLimiter: props.signInLimiter,
      };
      const response = await yoga.fetch(bounded, { account: access.via === 'anonymous' ? noAccount : access.account, web });
      for (const cookie of cookies) response.headers.append('set-cookie', cookie);
      return response;
    },
  };
}

/**
 * The request with its body read under the right limit, refusing what GraphQL over HTTP does not
 * take: a POST in another content type (415), a GET that says it carries an upload (415: a GET
 * has no body), a body over its limit (413, refused from Content-Length before reading).
 */
async function boundedRequest(request: Request, limits: Config['limits']): Promise<Request> {
  const type = mediaType(request);
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (type === 'multipart/form-data') throw new HttpError(415, 'a GET request has no body: send uploads as a multipart POST');
    // Yoga parses these with JSON.parse and reports a failure as a fault of its own.
    const params = new URL(request.url).searchParams;
    for (const name of ['variables', 'extensions']) {
      const value = params.get(name);
      if (value !== null && value !== '' && !isJson(value)) throw new HttpError(400, `the ${name} parameter must be JSON`);
    }
    return request;
  }
  if (request.method !== 'POST') return request; // Yoga answers 405 with Allow.
  if (!postedTypes.includes(type)) {
    throw new HttpError(415, 'content type must be application/json (or multipart/form-data for uploads)');
  }
  if (isMultipart(request)) return cappedRequest(request, limits.maxUploadBytes);
  const body = await readCappedBody(request, limits.maxJsonBytes, `request body is larger than ${Math.floor(limits.maxJsonBytes / 1024)} KB`);
  return new Request(request.url, { method: 'POST', headers: request.headers, body: body as unknown as BodyInit });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Yoga's `maskError`: what a client may see of an error. Errors of the request (Yoga's own HTTP
 * and parameter errors, graphql-js syntax, validation and variable errors, our limit refusals)
 * pass as they are. An expected failure inside execution — an AppError of a service, a
 * PothosValidationError of an argument or cursor — keeps its message and gets its code and HTTP
 * status; it is the same error object, so Yoga does not log it as an unexpected one. Anything
 * else is a fault: "Unexpected error." (Yoga logs the original, see yogaLogger).
 */
function classifyError(error: unknown, message: string): Error {
  const cause = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (error instanceof GraphQLError && (cause instanceof AppError || cause instanceof PothosValidationError)) {
    const [code, status] = cause instanceof AppError ? [cause.code, cause.status] : ['BAD_USER_INPUT', 400];
    // Yoga answers with the status and headers of the error (Retry-After for a rate limit).
    const headers = cause instanceof AppError && Object.keys(cause.headers).length > 0 ? { headers: cause.headers } : {};
    Object.assign(error.extensions, { code, http: { status, spec: false, ...headers } });
    return error;
  }
  if (isRequestError(error)) {
    // A malformed request and a refused limit are 400 whatever the Accept header (Yoga marks
    // parse-time errors as answered with 200 to application/json clients, like syntax errors).
    const http = error.extensions.http as { spec?: boolean } | undefined;
    if (http && alwaysBadRequest.has(String(error.extensions.code))) http.spec = false;
    return error;
  }
  return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

const alwaysBadRequest = new Set<string>(['BAD_REQUEST', ...Object.values(limitCodes)]);

/** A GraphQLError that does not wrap a thrown exception (Yoga's isOriginalGraphQLError). */
function isRequestError(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError == null || isRequestError(error.originalError);
}

/**
 * Yoga's logger on ours. Yoga logs at `error` only what maskError replaced (a real fault): that
 * is logged with the original error's stack.
 */
function yogaLogger(logger: Logger): YogaLogger {
  const text = (args: unknown[]) => args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
  return {
    debug: (...args) => (logger.debugEnabled ? logger.debug(text(args)) : undefined),
    info: (...args) => logger.info(text(args)),
    warn: (...args) => logger.warn(text(args)),
    error: (...args) => {
      const [first] = args;
      if (first instanceof Error) {
        const cause = first instanceof GraphQLError && first.originalError ? first.originalError : first;
        logger.error('GraphQL operation failed', cause);
      } else logger.error(text(args));
    },
  };
}

/** One info line per answer that carries a client's mistake (never a stack: nothing failed here). */
function logRefusals(logger: Logger): Plugin {
  return {
    onResultProcess({ result }) {
      const results = Array.isArray(result) ? result : [result];
      const mistakes = results
        .flatMap((item) => ('errors' in item && item.errors ? item.errors : []))
        .filter((error) => error.extensions?.code !== 'INTERNAL_SERVER_ERROR')
        .map((error) => `${String(error.extensions?.code ?? 'GRAPHQL_ERROR')}: ${error.message}`);
      if (mistakes.length > 0) logger.info(`GraphQL request answered with errors: ${mistakes.slice(0, 3).join('; ').slice(0, 500)}`);
    },
  };
}
