import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateCredentials } from './accounts/authenticate.ts';
import type { Config } from './config.ts';
import type { AuthenticatedAccount } from './graphql/context.ts';
import type { RequestContext } from './http/edge.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import { checkHost, type HeaderSource } from './http/public-origin.ts';
import { requestIdFrom, requestIdHeader } from './http/request-id.ts';
import { errorStatus, type ErrorStatus } from './http/error-status.ts';
import type { Revalidate, TokenPlacement } from './http/rest-route.ts';
import { withLogContext, type Logger } from './log.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { BoundRoutes } from './router.ts';

/**
 * Conditional GETs of the feeds and the calendar, and their 401s, answered on Node's own request
 * and response (src/http/node-server.ts `answerEarly`), before the fetch adapter builds a Request
 * and a Response: a client polling with `If-None-Match` costs the token check and a lookup, and
 * pays for no objects (issue 27: the adapter was a fifth of a 304).
 *
 * It answers only what the ordinary way (edge.ts, router.ts, the route's handler) would answer
 * the same, and only once everything that way checks has been checked here in the same order: a
 * GET or HEAD of exactly a path whose handler can revalidate (`RestHandler.revalidate`), carrying
 * a token (header, or `?token=` where the route takes it), to an allowed host. It answers
 * - the 401 of a token that is refused (malformed, unknown, in the wrong place);
 * - the 304 when `If-None-Match` names the ETag the route holds for that account and URL, after
 *   the account's rate limit (its 429 too).
 * with the same status and headers (`Cache-Control`, `ETag`, `nosniff`, `X-Request-Id`, `Vary` on
 * a JSON body), its access line and its count. Anything else (no token, a host refused, a
 * malformed parameter, an ETag that does not match, a failure) goes the ordinary way, which
 * answers it as always; the account found is handed on, so the token is not checked twice.
 */

export interface EarlyAnswersProps {
  web: Config['web'];
  logger: Logger;
  metrics: Metrics;
  routes: BoundRoutes;
  accountRate: RateLimiter;
}

/** A path answered early: the placement of its token and its handler's revalidation. */
interface EarlyPath {
  placement: Exclude<TokenPlacement, 'own-token'>;
  revalidate: Revalidate;
}

export type AnswerEarly = (request: IncomingMessage, response: ServerResponse) => Promise<RequestContext | null> | undefined;

export function createEarlyAnswers(props: EarlyAnswersProps): AnswerEarly {
  const { web, logger, metrics, accountRate } = props;
  const paths = new Map<string, EarlyPath>();
  for (const [path, bound] of props.routes) {
    const get = bound.routes.GET;
    const revalidate = get?.handler.revalidate;
    if (!get || !revalidate || get.route.auth === 'own-token') continue;
    paths.set(path, { placement: get.route.auth, revalidate });
  }

  /** Writes an answer, then its count and access line, as edge.ts does. */
  const finish = (request: IncomingMessage, response: ServerResponse, route: string, started: number, accountId: number | undefined, status: number, headers: Record<string, string>, body?: string) => {
    response.writeHead(status, headers);
    response.end(body);
    const seconds = (performance.now() - started) / 1000;
    metrics.httpRequest({ method: request.method!, route, status, seconds });
    logger.info({ method: request.method, route, status, ms: Math.round(seconds * 10_000) / 10, accountId }, 'request');
  };

  /** An error answered as edge.ts answers it: its status and headers (error-status.ts), JSON `{"error"}`, no-store, nosniff, Vary (compression.ts names it on every JSON answer). */
  const refuse = (request: IncomingMessage, response: ServerResponse, route: string, started: number, accountId: number | undefined, answer: ErrorStatus, reqId: string) => {
    const body = JSON.stringify({ error: answer.message });
    const headers = {
      ...answer.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
      [requestIdHeader]: reqId,
    };
    finish(request, response, route, started, accountId, answer.status, headers, body);
  };

  async function answer(request: IncomingMessage, response: ServerResponse, path: string, search: string, early: EarlyPath, reqId: string, started: number): Promise<RequestContext | null> {
    const url = new URL(`http://${request.headers.host}${path}${search}`);
    const source: HeaderSource = { url: url.href, headers: { get: (name) => header(request, name) } };
    try {
      checkHost(source, web, url);
    } catch {
      return {}; // Refused the ordinary way (its 400).
    }
    let account: AuthenticatedAccount;
    try {
      account = await authenticateCredentials(header(request, 'authorization'), url.searchParams.get('token'), early.placement);
    } catch (error) {
      const answer = errorStatus(error);
      if (answer.kind !== 'expected') return {}; // The database failed: the ordinary way answers (and logs) it.
      refuse(request, response, path, started, undefined, answer, reqId);
      return null;
    }
    const handOn = { preauthenticated: account };
    const ifNoneMatch = header(request, 'if-none-match');
    if (ifNoneMatch === null) return handOn;
    let headers: Record<string, string> | undefined;
    try {
      headers = early.revalidate(url.searchParams, account, ifNoneMatch);
    } catch {
      return handOn; // A malformed parameter: its 400 the ordinary way.
    }
    if (headers === undefined) return handOn;
    try {
      await accountRate.take(String(account.id));
    } catch (error) {
      const answer = errorStatus(error);
      if (answer.kind !== 'expected') throw error;
      refuse(request, response, path, started, account.id, answer, reqId);
      return null;
    }
    finish(request, response, path, started, account.id, 304, { ...headers, 'x-content-type-options': 'nosniff', [requestIdHeader]: reqId });
    return null;
  }

  return (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    // node-server.ts has made the target a path (and query) and checked Host.
    const target = request.url!;
    const question = target.indexOf('?');
    const path = question === -1 ? target : target.slice(0, question);
    const early = paths.get(path);
    if (early === undefined) return undefined;
    const search = question === -1 ? '' : target.slice(question);
    // Only a request that carries a token: one without may be answered by a session (or its 401) the ordinary way.
    if (request.headers.authorization === undefined && !/[?&]token=/.test(search)) return undefined;
    const started = performance.now();
    const reqId = requestIdFrom(request.headers[requestIdHeader]);
    return withLogContext({ reqId }, () =>
      answer(request, response, path, search, early, reqId, started).catch((error: unknown) => {
        // An unexpected failure after the rate limit counted the request: answered as edge.ts does, not again.
        logger.error({ err: error }, `${request.method} ${path} failed`);
        refuse(request, response, path, started, undefined, errorStatus(error), reqId);
        return null;
      }),
    ).then((learned) => (learned === null ? null : { ...learned, requestId: reqId }));
  };
}

/** A header of Node's request as a fetch Request's `headers.get` reads it (the adapter builds those from the same object). */
function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}
