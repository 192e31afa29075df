import type { Config } from '../config.ts';
import type { AuthenticatedAccount } from '../graphql/context.ts';
import { withLogContext, type LogContext, type Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { createCompression } from './compression.ts';
import { checkHost, clientAddress } from './public-origin.ts';
import { requestIdOf, withRequestId } from './request-id.ts';
import { errorStatus } from './error-status.ts';
import { errorResponse, HttpError } from './responses.ts';

/** What the server knows of a request beyond the request itself. */
export interface RequestContext {
  /** The peer's address as the socket saw it (src/http/node-server.ts), for rate limits and the session list. */
  clientAddress?: string | undefined;
  /**
   * The account the request's token was already found to belong to, for the placement its route
   * takes (src/early-answers.ts, which checked it before handing the request on): not checked twice.
   */
  preauthenticated?: AuthenticatedAccount | undefined;
  /** The request's id when it was already chosen (early-answers.ts), so the lines it logged and the answer carry one id. */
  requestId?: string | undefined;
}

/** What routing found out about a request, for its access line and its count. */
export interface Exchange {
  /** The route template it matched (bounded: a metric label), e.g. `/api/machine/summary`. */
  route: string;
  /** The account it acted for, once authenticated. */
  accountId: number | undefined;
  /** RequestContext's `preauthenticated`, for the router. */
  preauthenticated?: AuthenticatedAccount | undefined;
}

/** The route of a request no route took (a 404, a URL that cannot be read). */
export const unmatchedRoute = 'unmatched';

/** Answers a request whose URL was read and whose host is allowed; notes its route and account in `exchange`. */
export type Router = (request: Request, url: URL, address: string | undefined, exchange: Exchange) => Promise<Response>;

export interface EdgeProps {
  logger: Logger;
  metrics: Metrics;
  web: Config['web'];
  compress: ReturnType<typeof createCompression>;
  route: Router;
}

/**
 * The edge every request passes: its id (kept from `X-Request-Id` or made) on the response and on
 * every line logged and job queued while it is answered, the allowed-host check, errors turned
 * into their statuses (an unexpected one logged and masked), the headers every answer carries,
 * compression, one access line and the request's count. Never throws.
 */
export function createEdge(props: EdgeProps): (request: Request, context?: RequestContext) => Promise<Response> {
  const { logger, metrics, web, compress, route } = props;

  /** Answers one request (everything but its id, its access line and its count). */
  async function answer(request: Request, context: RequestContext, exchange: Exchange): Promise<Response> {
    let response: Response;
    try {
      const url = requestUrl(request);
      // A host the server does not answer to (DNS rebinding) is refused before anything else.
      checkHost(request, web, url);
      response = await route(request, url, clientAddress(request, web, context.clientAddress), exchange);
    } catch (error) {
      // Its status, by the one rule (error-status.ts): the REST operations' errors, the routes'
      // own, the refusals of the router. A closed connection (the client left, or the server
      // refused the rest of a malformed body) cancelled the work: nobody reads this answer.
      const answer = errorStatus(error, { aborted: request.signal.aborted });
      if (answer.kind === 'fault') logger.error({ err: error }, `${request.method} ${exchange.route} failed`);
      if (answer.kind === 'aborted') logger.info(`${request.method} ${exchange.route}: ${answer.message}`);
      response = errorResponse(answer.status, answer.message, answer.headers);
    }
    // An answer that says nothing of its caching is kept by no cache: /graphql, the writes, the
    // imports, the errors. Those that may be kept say so themselves: the web app's files, the API
    // description, the feeds and the calendar (`private, no-cache`, for their ETags).
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
    // No answer is ever read as another type than it says (a JSON answer as a script, say).
    response.headers.set('x-content-type-options', 'nosniff');
    // gzip or br when asked, for every JSON and iCalendar answer (src/http/compression.ts).
    return compress(request, response);
  }

  return (request, context = {}) => {
    const started = performance.now();
    const reqId = context.requestId ?? requestIdOf(request);
    const logContext: LogContext = { reqId };
    const exchange: Exchange = { route: unmatchedRoute, accountId: undefined, preauthenticated: context.preauthenticated };
    // Every line logged while answering, and every job queued, carries the request's id.
    return withLogContext(logContext, async () => {
      const response = withRequestId(await answer(request, context, exchange), reqId);
      const seconds = (performance.now() - started) / 1000;
      metrics.httpRequest({ method: request.method, route: exchange.route, status: response.status, seconds });
      // The access line: the route template, never the URL (a calendar's ?token= lives there).
      logger.info(
        { method: request.method, route: exchange.route, status: response.status, ms: Math.round(seconds * 10_000) / 10, accountId: exchange.accountId },
        'request',
      );
      return response;
    });
  };
}

/** 405 naming the methods a path takes, in `Allow` and the message (GET brings HEAD along). */
export function methodNotAllowed(request: Request, methods: string[]): HttpError {
  const allow = methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
  return new HttpError(405, `method ${request.method} is not allowed here; use ${allow}`, { allow });
}

/** A GET's response, as a HEAD's when the request is one: the same status and headers, no body. */
export function headAware(request: Request, response: Response): Response {
  return request.method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

/**
 * The request's URL. The Node server (http/node-server.ts) only passes requests whose target and
 * Host make one, but `fetch` is also called directly (tests, other adapters): a URL that cannot be
 * read is the client's fault, a 400, not a crash.
 */
function requestUrl(request: Request): URL {
  try {
    return new URL(request.url);
  } catch {
    throw new HttpError(400, 'the request URL cannot be read (check the request target and the Host header)');
  }
}
