import path from 'node:path';
import type { DestinationStream } from 'pino';
import { AppError } from './errors.ts';
import type { Config } from './config.ts';
import { closeDatabase, db, openDatabase, postgresCountersPool } from './db/client.ts';
import { initSecretKey } from './keys/secret-key.ts';
import { createOidcRoutes, oidcCallbackPath, oidcStartPath } from './accounts/single-sign-on/oidc-routes.ts';
import { authenticateRequest } from './accounts/authenticate.ts';
import { restRoutes } from './routes.ts';
import type { RestHandler, RestMethod, RestRoute, RouteDependencies, TokenPlacement } from './http/rest-route.ts';
import { createApiDescription } from './openapi/api-description.ts';
import { errorResponse, HttpError, json } from './http/responses.ts';
import { quotedPath } from './http/request-target.ts';
import { createLogger, withLogContext, type LogContext, type Logger } from './log.ts';
import { createMetrics, noMetrics } from './metrics/metrics.ts';
import { snapshotGauges } from './feeds/snapshot-cache.ts';
import { createMetricsHandler, metricsPath } from './metrics/metrics-endpoint.ts';
import { requestIdOf, withRequestId } from './http/request-id.ts';
import { createGraphQLEndpoint } from './graphql/graphql-endpoint.ts';
import { createGraphiQL, graphiqlAssetsPath } from './graphql/graphiql.ts';
import { refuseCrossSite } from './graphql/graphql-access.ts';
import { checkHost, clientAddress } from './http/public-origin.ts';
import { initSessions, sessionCookieValue, sessionFromRequest } from './accounts/sessions.ts';
import { createSignInLimiter } from './accounts/sign-in-limit.ts';
import { schema } from './schema.ts';
import { createCatalogProviders } from './catalog/providers.ts';
import { createCatalogService } from './catalog/catalog-service.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createLazyScheduler } from './notifications/lazy-scheduler.ts';
import type { Scheduler } from './notifications/scheduler.ts';
import { rateLimitWindowSeconds } from './limits.ts';
import { createWebApp } from './http/web-app.ts';
import { createCompression } from './http/compression.ts';
import { projectRoot } from './paths.ts';

/** The whole server, built without listening: tests call `fetch` in-process. */
export interface App {
  /**
   * Answers one request; never throws. `clientAddress`: the peer's address as the socket saw it
   * (src/http/node-server.ts), for the sign-in rate limit and the session list.
   */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /**
   * The start-up work that need not delay listening, begun by createApp: the offline catalog
   * read, checked and stored, the job store connected. Resolves once
   * done (`/readyz` answers 503 until then); rejects when it fails (an invalid catalog file), and
   * the server then stops.
   */
  started: Promise<void>;
  /** Waits for the start-up work to settle, stops the job system (draining running jobs), then closes the database. */
  close(): Promise<void>;
  logger: Logger;
  /** `GET /metrics` on the metrics port (AIRDATE_METRICS_PORT; `fetch` answers the main port's, which needs AIRDATE_METRICS_TOKEN). */
  serveMetrics(request: Request): Promise<Response>;
  /** The job system: every role queues jobs; `main.ts` starts running them in worker roles. */
  jobs: Scheduler;
}

/** What the server knows of a request beyond the request itself. */
export interface RequestContext {
  clientAddress?: string | undefined;
}

/** A REST path with the routes that answer it, by method, and their handlers. */
interface BoundPath {
  routes: Partial<Record<RestMethod, { route: RestRoute; handler: RestHandler }>>;
}

/** What createApp takes besides the config (tests point these at folders of their own). */
export interface AppOptions {
  /** The built web app; dist/web of the project by default (scripts/build-web.mjs). */
  webAppDir?: string;
  /** Where log lines go instead of stderr (tests read them). */
  logDestination?: DestinationStream;
}

/**
 * Builds the server for `config`: opens (and migrates) the database, loads the secret key, and
 * wires GraphQL, the REST facade and the web app onto one schema. What can follow (the offline
 * catalog, the job store) runs from here on, while the server listens: `started`.
 */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, destination: options.logDestination });
  /**
   * /metrics is answered on the main port unless metrics are off or have a port of their own, and
   * there only with AIRDATE_METRICS_TOKEN: any page of the same site could read them otherwise.
   * Without a token nor a port nobody can read them, so none are collected.
   */
  const metricsOnMainPort = config.metrics.enabled && config.metrics.port === undefined;
  const metricsServed = config.metrics.enabled && (config.metrics.port !== undefined || config.metrics.token !== undefined);
  const metrics = metricsServed ? createMetrics(snapshotGauges) : noMetrics;
  if (metricsOnMainPort && !metricsServed) logger.info(`metrics are not collected: ${metricsNeedToken}`);
  const metricsHandler = createMetricsHandler({ metrics, token: config.metrics.token });
  /** The metrics port checks the Host as the main port does: a DNS-rebinding page must not read it either. */
  const serveMetrics = async (request: Request): Promise<Response> => {
    try {
      checkHost(request, config.web);
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(error.status, error.message);
      throw error;
    }
    return metricsHandler(request);
  };
  await openDatabase(config, { migrate: true });
  initSecretKey(config);
  initSessions(config.web);
  const catalogs = createCatalogProviders(config, logger, metrics);
  const catalog = createCatalogService(catalogs.providers, logger);
  const jobs = createLazyScheduler(config, { catalog, logger, metrics });
  const services = { catalog, jobs, metrics, webhooks: { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs } };

  const signInLimiter = createSignInLimiter({ pool: postgresCountersPool(), logger, metrics });
  const graphqlEndpoint = createGraphQLEndpoint({ config, logger, schema, services, webServices: { signInLimiter } });
  const graphiql = createGraphiQL({ title: 'Airdate GraphQL', endpoint: '/graphql', headers: JSON.stringify({ Authorization: 'Bearer <your API token>' }, null, 2) });

  // Shared by every process on a PostgreSQL database; per process on SQLite.
  const limiter = createRateLimiter(
    { name: 'requests', points: config.limits.requestsPerMinute, windowSeconds: rateLimitWindowSeconds.requests },
    { pool: postgresCountersPool(), logger, metrics },
  );
  /** The one way in for token-carrying requests: authenticated, then counted against the account's rate. */
  const authenticate = async (request: Request, url: URL, placement: TokenPlacement, exchange: Exchange) => {
    const account = await authenticateRequest(request, url, placement);
    exchange.accountId = account.id;
    await limiter.take(String(account.id));
    return account;
  };

  const webApp = createWebApp(options.webAppDir ?? path.join(projectRoot, 'dist/web'));
  const oidc = createOidcRoutes({ web: config.web, logger });
  oidc.warmUp();

  // From the next turn of the event loop: the server (main.ts) listens in this one.
  const startUp = new Promise((resolve) => setImmediate(resolve)).then(() => Promise.all([catalogs.storeOffline(), jobs.ready()])).then(() => undefined);
  /** What /readyz says while the start is not complete (undefined once it is). */
  let notReady: string | undefined = 'starting';
  // Whoever waits for it sees a failure (main.ts stops the server); nobody waiting is no crash.
  startUp.then(
    () => void (notReady = undefined),
    () => void (notReady = 'the start failed'),
  );

  const compress = createCompression();
  const routes = bindRoutes(restRoutes, { schema, logger, limits: config.limits });
  const apiDescription = createApiDescription(restRoutes);

  /** The request carries an API token (header or query): it is authenticated by that alone. */
  const carriesToken = (request: Request, url: URL) => request.headers.has('authorization') || url.searchParams.has('token');

  /** The session of a request without a token, counted against its account's rate like a token's. */
  async function session(request: Request, exchange: Exchange) {
    if (sessionCookieValue(request) === undefined) return null;
    const found = await sessionFromRequest(request);
    if (found) {
      exchange.accountId = found.account.id;
      await limiter.take(String(found.account.id));
    }
    return found;
  }

  /** Answers the request; notes in `exchange` the route template it matched and the account it acts for. */
  async function route(request: Request, url: URL, address: string | undefined, exchange: Exchange): Promise<Response> {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/graphql') {
      exchange.route = path;
      return graphql(request, url, address, exchange);
    }
    if (path === metricsPath && metricsOnMainPort) {
      exchange.route = path;
      if (!metricsServed) throw new HttpError(404, metricsNeedToken);
      return metricsHandler(request);
    }
    if (path === oidcStartPath || path === oidcCallbackPath) exchange.route = path;
    const signOn = oidc.handle(request, url, path, address);
    if (signOn) return signOn;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (path.startsWith(graphiqlAssetsPath)) {
      exchange.route = `${graphiqlAssetsPath}*`;
      if (method !== 'GET') throw methodNotAllowed(request, ['GET']);
      return graphiql.asset(request, path);
    }
    if (path === '/healthz' || path === '/readyz') {
      exchange.route = path;
      if (method !== 'GET') throw methodNotAllowed(request, ['GET']);
      if (path === '/healthz') return headAware(request, json(200, { ok: true }));
      return headAware(request, notReady === undefined ? await readiness(logger, jobs) : json(503, { error: notReady }));
    }
    const description = apiDescription.route(path);
    if (description !== undefined) {
      exchange.route = description;
      if (method !== 'GET') throw methodNotAllowed(request, ['GET']);
      return headAware(request, await apiDescription.respond(request, path));
    }
    const found = routes.get(path);
    if (!found) {
      // Not a server path: the web app's files and pages, else the server's JSON 404.
      if (path === '/assets' || path.startsWith('/assets/')) exchange.route = '/assets/*';
      const page = await webApp.respond(request, url);
      if (page) {
        if (exchange.route === unmatchedRoute) exchange.route = webAppRoute;
        return page;
      }
      throw new HttpError(404, `no such endpoint: ${request.method} ${quotedPath(url.pathname)}`);
    }
    exchange.route = path;
    const bound = found.routes[method as RestMethod];
    if (!bound) throw methodNotAllowed(request, Object.keys(found.routes));
    const { route: restRoute, handler } = bound;
    const signedIn = restRoute.session && method === 'GET' && !carriesToken(request, url) ? await session(request, exchange) : null;
    if (signedIn) refuseCrossSite(request, config.web);
    const account = signedIn ? signedIn.account : await authenticate(request, url, restRoute.auth, exchange);
    return headAware(request, await handler(request, { account, services, source: 'api' }));
  }

  /** Token first (unchanged for machines), then the session cookie, else anonymous (public operations only). */
  async function graphql(request: Request, url: URL, address: string | undefined, exchange: Exchange): Promise<Response> {
    const wantsPage = request.method === 'GET' && !url.searchParams.has('query') && (request.headers.get('accept') ?? '').includes('text/html');
    if (wantsPage) return graphiql.page(request);
    if (carriesToken(request, url)) {
      return graphqlEndpoint.operation(request, { via: 'token', account: await authenticate(request, url, 'header-only', exchange) }, address);
    }
    const signedIn = await session(request, exchange);
    const access = signedIn ? { via: 'session' as const, account: signedIn.account, sessionId: signedIn.sessionId } : { via: 'anonymous' as const };
    return graphqlEndpoint.operation(request, access, address);
  }

  /** Answers one request (everything but its id, its access line and its count). */
  async function answer(request: Request, context: RequestContext, exchange: Exchange): Promise<Response> {
    let response: Response;
    try {
      const url = requestUrl(request);
      // A host the server does not answer to (DNS rebinding) is refused before anything else.
      checkHost(request, config.web, url);
      response = await route(request, url, clientAddress(request, config.web, context.clientAddress), exchange);
    } catch (error) {
      if (error instanceof HttpError) {
        response = errorResponse(error.status, error.message, error.headers);
      } else if (error instanceof AppError) {
        // An expected failure a route's own code ran into (a service's validation): its status.
        response = errorResponse(error.status, error.message, error.headers);
      } else if (request.signal.aborted && (error as Error | undefined)?.name === 'AbortError') {
        // The connection closed before the answer (the client left, or the server refused the
        // rest of a malformed body): work for it was cancelled, nobody reads this.
        logger.info(`${request.method} ${exchange.route}: the connection closed before the request was answered`);
        response = errorResponse(400, 'the connection closed before the request was answered');
      } else {
        logger.error({ err: error }, `${request.method} ${exchange.route} failed`);
        response = errorResponse(500, 'internal server error');
      }
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

  return {
    logger,
    serveMetrics,
    jobs,
    started: startUp,
    fetch(request, context = {}) {
      const started = performance.now();
      const reqId = requestIdOf(request);
      const logContext: LogContext = { reqId };
      const exchange: Exchange = { route: unmatchedRoute, accountId: undefined };
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
    },
    async close() {
      await startUp.catch(() => undefined);
      await jobs.stop();
      await closeDatabase();
    },
  };
}

const metricsNeedToken =
  'metrics are served on the main port only with a token: set AIRDATE_METRICS_TOKEN (a scrape then sends Authorization: Bearer <token>), or AIRDATE_METRICS_PORT for a port of their own';

/** What routing found out about a request, for its access line and its count. */
interface Exchange {
  /** The route template it matched (bounded: a metric label), e.g. `/api/machine/summary`. */
  route: string;
  /** The account it acted for, once authenticated. */
  accountId: number | undefined;
}

/** The route of a request no route took (a 404, a URL that cannot be read). */
const unmatchedRoute = 'unmatched';
/** The route of the web app's pages and root files. */
const webAppRoute = '/*';

/** 405 naming the methods a path takes, in `Allow` and the message (GET brings HEAD along). */
function methodNotAllowed(request: Request, methods: string[]): HttpError {
  const allow = methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
  return new HttpError(405, `method ${request.method} is not allowed here; use ${allow}`, { allow });
}

/** A GET's response, as a HEAD's when the request is one: the same status and headers, no body. */
function headAware(request: Request, response: Response): Response {
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

/** Each path of `routes` with its handlers, made once; two routes declaring one method of a path stop the start. */
function bindRoutes(routes: readonly RestRoute[], dependencies: RouteDependencies): Map<string, BoundPath> {
  const paths = new Map<string, BoundPath>();
  for (const route of routes) {
    for (const path of route.paths) {
      const bound = paths.get(path) ?? { routes: {} };
      if (bound.routes[route.method]) throw new Error(`two routes declare ${route.method} ${path}`);
      bound.routes[route.method] = { route, handler: route.handler(dependencies, path) };
      paths.set(path, bound);
    }
  }
  return paths;
}

async function readiness(logger: Logger, jobs: Scheduler): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
  } catch (error) {
    logger.warn({ err: error }, 'readiness check failed: database');
    return json(503, { error: 'database unreachable' });
  }
  try {
    await jobs.ping();
  } catch (error) {
    logger.warn({ err: error }, 'readiness check failed: job store');
    return json(503, { error: 'job store unreachable' });
  }
  return json(200, { ok: true, database: 'ok', scheduler: 'ok' });
}
