import path from 'node:path';
import { AppError } from './errors.ts';
import type { Config } from './config.ts';
import { closeDatabase, db, openDatabase, postgresCountersPool } from './db/client.ts';
import { initSecretKey } from './auth/secret-key.ts';
import { createOidcRoutes } from './http/oidc-routes.ts';
import { authenticateRequest, redactedPath, type TokenPlacement } from './http/authenticate.ts';
import { errorResponse, HttpError, json } from './http/responses.ts';
import { quotedPath } from './http/request-target.ts';
import { createLogger, type Logger } from './log.ts';
import { createMachineHandlers, type MachineHandler } from './rest/machine-routes.ts';
import { createImportHandler } from './rest/import-route.ts';
import { createGraphQLEndpoint } from './http/graphql-endpoint.ts';
import { clientAddress } from './http/public-origin.ts';
import { initSessions, sessionCookieValue, sessionFromRequest } from './auth/sessions.ts';
import { createSignInLimiter } from './auth/sign-in-limit.ts';
import { availableImportSources } from './import/import-sources.ts';
import { createCalendarHandler } from './rest/calendar-route.ts';
import { createExportHandler } from './rest/export-route.ts';
import { schema } from './schema/index.ts';
import { createCatalogProviders } from './catalog/providers.ts';
import { createCatalogService } from './services/catalog.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createScheduler, type Scheduler } from './jobs/scheduler.ts';
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
  /** Stops the job system (draining running jobs), then closes the database. */
  close(): Promise<void>;
  logger: Logger;
  /** The job system: every role queues jobs; `main.ts` starts running them in worker roles. */
  jobs: Scheduler;
}

/** What the server knows of a request beyond the request itself. */
export interface RequestContext {
  clientAddress?: string | undefined;
}

interface Route {
  /** Where the token may come from. */
  auth: TokenPlacement;
  /** Also accepts the web app's session cookie (a GET only: a link the browser follows). */
  session?: true;
  methods: Partial<Record<'GET' | 'POST', MachineHandler>>;
}

/** What createApp takes besides the config (tests point these at folders of their own). */
export interface AppOptions {
  /** The built web app; dist/web of the project by default (scripts/build-web.mjs). */
  webAppDir?: string;
}

/**
 * Builds the server for `config`: opens (and migrates) the database, loads the secret key and
 * the offline catalog, and wires GraphQL, the REST facade and the web app onto one schema.
 */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = createLogger(config.logLevel);
  await openDatabase(config, { migrate: true });
  initSecretKey(config);
  initSessions(config.web);
  const catalog = createCatalogService(await createCatalogProviders(config, logger), logger);
  const jobs = await createScheduler(config, { catalog, logger });
  const services = { catalog, jobs, webhooks: { policy: config.webhooks.policy, timeoutMs: config.webhooks.timeoutMs } };

  const signInLimiter = createSignInLimiter({ pool: postgresCountersPool(), logger });
  const graphqlEndpoint = createGraphQLEndpoint({ config, logger, services, signInLimiter });

  // Shared by every process on a PostgreSQL database; per process on SQLite.
  const limiter = createRateLimiter(
    { name: 'requests', points: config.limits.requestsPerMinute, windowSeconds: rateLimitWindowSeconds.requests },
    { pool: postgresCountersPool(), logger },
  );
  /** The one way in for token-carrying requests: authenticated, then counted against the account's rate. */
  const authenticate = async (request: Request, url: URL, placement: TokenPlacement) => {
    const account = await authenticateRequest(request, url, placement);
    await limiter.take(String(account.id));
    return account;
  };

  const webApp = createWebApp(options.webAppDir ?? path.join(projectRoot, 'dist/web'));
  const oidc = createOidcRoutes({ web: config.web, logger });
  oidc.warmUp();

  const compress = createCompression();
  const machine = createMachineHandlers({ schema, logger, maxJsonBytes: config.limits.maxJsonBytes });
  const routes = new Map<string, Route>([
    ['/api/machine/summary', { auth: 'header-or-query', methods: { GET: machine.summary } }],
    ['/api/machine/releases', { auth: 'header-or-query', methods: { GET: machine.releases } }],
    ['/api/machine/airing', { auth: 'header-or-query', methods: { GET: machine.airing } }],
    ['/api/machine/widget', { auth: 'header-or-query', methods: { GET: machine.widget } }],
    ['/api/machine/watched', { auth: 'header-or-query', methods: { POST: machine.watched } }],
    ['/api/machine/follow', { auth: 'header-or-query', methods: { POST: machine.follow } }],
    ['/api/machine/sync', { auth: 'header-or-query', methods: { POST: machine.sync } }],
    ...importRoutes(createImportHandler({ schema, logger, maxUploadBytes: config.limits.maxUploadBytes })),
    ['/api/calendar.ics', { auth: 'header-or-query', methods: { GET: createCalendarHandler({ schema, logger }) } }],
    ['/api/export', { auth: 'header-only', session: true, methods: { GET: createExportHandler({ schema, logger }) } }],
  ]);

  /** The request carries an API token (header or query): it is authenticated by that alone. */
  const carriesToken = (request: Request, url: URL) => request.headers.has('authorization') || url.searchParams.has('token');

  /** The session of a request without a token, counted against its account's rate like a token's. */
  async function session(request: Request) {
    if (sessionCookieValue(request) === undefined) return null;
    const found = await sessionFromRequest(request);
    if (found) await limiter.take(String(found.account.id));
    return found;
  }

  async function route(request: Request, url: URL, address: string | undefined): Promise<Response> {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/graphql') return graphql(request, url, address);
    const signOn = oidc.handle(request, url, path, address);
    if (signOn) return signOn;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (path === '/healthz' || path === '/readyz') {
      if (method !== 'GET') throw methodNotAllowed(request, ['GET']);
      return headAware(request, path === '/healthz' ? json(200, { ok: true }) : await readiness(logger, jobs));
    }
    const found = routes.get(path);
    if (!found) {
      // Not a server path: the web app's files and pages, else the server's JSON 404.
      const page = await webApp.respond(request, url);
      if (page) return page;
      throw new HttpError(404, `no such endpoint: ${request.method} ${quotedPath(url.pathname)}`);
    }
    const handler = found.methods[method as keyof Route['methods']];
    if (!handler) throw methodNotAllowed(request, Object.keys(found.methods));
    const signedIn = found.session && method === 'GET' && !carriesToken(request, url) ? await session(request) : null;
    const account = signedIn ? signedIn.account : await authenticate(request, url, found.auth);
    return headAware(request, await handler(request, { account, services, source: 'api' }));
  }

  /** Token first (unchanged for machines), then the session cookie, else anonymous (public operations only). */
  async function graphql(request: Request, url: URL, address: string | undefined): Promise<Response> {
    const wantsPage = request.method === 'GET' && !url.searchParams.has('query') && (request.headers.get('accept') ?? '').includes('text/html');
    if (wantsPage) return graphqlEndpoint.page(request);
    if (carriesToken(request, url)) {
      return graphqlEndpoint.operation(request, { via: 'token', account: await authenticate(request, url, 'header-only') }, address);
    }
    const signedIn = await session(request);
    const access = signedIn ? { via: 'session' as const, account: signedIn.account, sessionId: signedIn.sessionId } : { via: 'anonymous' as const };
    return graphqlEndpoint.operation(request, access, address);
  }

  return {
    logger,
    jobs,
    async fetch(request, context = {}) {
      const started = performance.now();
      let url: URL | undefined;
      let response: Response;
      try {
        url = requestUrl(request);
        response = await route(request, url, clientAddress(request, config.web, context.clientAddress));
      } catch (error) {
        if (error instanceof HttpError) {
          response = errorResponse(error.status, error.message, error.headers);
        } else if (error instanceof AppError) {
          // An expected failure a route's own code ran into (a service's validation): its status.
          response = errorResponse(error.status, error.message, error.headers);
        } else if (request.signal.aborted && (error as Error | undefined)?.name === 'AbortError') {
          // The connection closed before the answer (the client left, or the server refused the
          // rest of a malformed body): work for it was cancelled, nobody reads this.
          logger.info(`${request.method} ${url ? redactedPath(url) : '(no URL)'}: the connection closed before the request was answered`);
          response = errorResponse(400, 'the connection closed before the request was answered');
        } else {
          logger.error(`${request.method} ${url ? redactedPath(url) : '(no URL)'} failed`, error);
          response = errorResponse(500, 'internal server error');
        }
      }
      // gzip or br when asked, for every JSON and iCalendar answer (src/http/compression.ts).
      response = await compress(request, response);
      if (logger.debugEnabled) logger.debug(`${request.method} ${url ? redactedPath(url) : '(unreadable URL)'} ${response.status} ${(performance.now() - started).toFixed(1)}ms`);
      return response;
    },
    async close() {
      await jobs.stop();
      await closeDatabase();
    },
  };
}

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

/** `POST /api/import/{source}` for every source with a parser; any other source is a 404. */
function importRoutes(handlerFor: ReturnType<typeof createImportHandler>): [string, Route][] {
  return availableImportSources.map((source) => [`/api/import/${source}`, { auth: 'header-only', methods: { POST: handlerFor(source) } }]);
}

async function readiness(logger: Logger, jobs: Scheduler): Promise<Response> {
  try {
    await db().$queryRaw`SELECT 1`;
  } catch (error) {
    logger.warn('readiness check failed: database', error);
    return json(503, { error: 'database unreachable' });
  }
  try {
    await jobs.ping();
  } catch (error) {
    logger.warn('readiness check failed: job store', error);
    return json(503, { error: 'job store unreachable' });
  }
  return json(200, { ok: true, database: 'ok', scheduler: 'ok' });
}
