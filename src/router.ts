import type { createOidcRoutes } from './accounts/single-sign-on/oidc-routes.ts';
import { oidcCallbackPath, oidcStartPath } from './accounts/single-sign-on/oidc-routes.ts';
import { authenticateRequest } from './accounts/authenticate.ts';
import { sessionCookieValue, sessionFromRequest } from './accounts/sessions.ts';
import type { Config } from './config.ts';
import type { GraphQLServices } from './graphql/context.ts';
import { graphiqlAssetsPath, type GraphiQL } from './graphql/graphiql.ts';
import { refuseCrossSite } from './graphql/graphql-access.ts';
import { noAccount, type GraphQLEndpoint } from './graphql/graphql-endpoint.ts';
import { headAware, methodNotAllowed, unmatchedRoute, type Exchange, type Router } from './http/edge.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import { quotedPath } from './http/request-target.ts';
import { HttpError, json } from './http/responses.ts';
import type { RestHandler, RestMethod, RestRoute, RouteDependencies, TokenPlacement } from './http/rest-route.ts';
import type { WebApp } from './http/web-app.ts';
import { metricsPath } from './metrics/metrics-endpoint.ts';
import type { ApiDescription } from './openapi/api-description.ts';

/** The parts of the app a request can reach, built by app.ts. */
export interface RouterParts {
  web: Config['web'];
  services: GraphQLServices;
  /** The REST routes' handlers by path (bindRoutes). */
  routes: BoundRoutes;
  graphqlEndpoint: GraphQLEndpoint;
  graphiql: GraphiQL;
  oidc: ReturnType<typeof createOidcRoutes>;
  apiDescription: ApiDescription;
  webApp: WebApp;
  /** `GET /metrics` on the main port, when it is answered there. */
  metrics: ((request: Request) => Promise<Response>) | undefined;
  /** Every token or session counted against its account's rate (AIRDATE_REQUESTS_PER_MINUTE). */
  accountRate: RateLimiter;
  /** `/readyz`'s answer. */
  readiness(): Promise<Response>;
}

/** A REST path with the routes that answer it, by method, and their handlers. */
export interface BoundPath {
  routes: Partial<Record<RestMethod, { route: RestRoute; handler: RestHandler }>>;
}

/** The route of the web app's pages and root files. */
const webAppRoute = '/*';

/**
 * Which part answers a request, and who it is for: `/graphql` (token first, unchanged for
 * machines, then the session cookie, else anonymous: public operations only), `/metrics`, single
 * sign-on, GraphiQL's files, health, the API description, the REST routes (token, or the session
 * where a route takes one), else the web app's files and pages, else the server's JSON 404.
 */
export function createRouter(parts: RouterParts): Router {
  const { web, services, graphqlEndpoint, graphiql, oidc, apiDescription, webApp, accountRate } = parts;
  const { routes } = parts;

  /** The request carries an API token (header or query): it is authenticated by that alone. */
  const carriesToken = (request: Request, url: URL) => request.headers.has('authorization') || url.searchParams.has('token');

  /** The one way in for token-carrying requests: authenticated, then counted against the account's rate. */
  const authenticate = async (request: Request, url: URL, placement: Exclude<TokenPlacement, 'own-token'>, exchange: Exchange) => {
    // Already checked for this route's placement before the request was built (src/early-answers.ts).
    const account = exchange.preauthenticated ?? (await authenticateRequest(request, url, placement));
    exchange.accountId = account.id;
    await accountRate.take(String(account.id));
    return account;
  };

  /** The session of a request without a token, counted against its account's rate like a token's. */
  async function session(request: Request, exchange: Exchange) {
    if (sessionCookieValue(request) === undefined) return null;
    const found = await sessionFromRequest(request);
    if (found) {
      exchange.accountId = found.account.id;
      await accountRate.take(String(found.account.id));
    }
    return found;
  }

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

  return async (request, url, address, exchange) => {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    if (path === '/graphql') {
      exchange.route = path;
      return graphql(request, url, address, exchange);
    }
    if (path === metricsPath && parts.metrics) {
      exchange.route = path;
      return parts.metrics(request);
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
      return headAware(request, path === '/healthz' ? json(200, { ok: true }) : await parts.readiness());
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
    // A route with a token of its own (a media server's) checks it itself; no API token opens it.
    if (restRoute.auth === 'own-token') return headAware(request, await handler(request, { account: noAccount, services, source: 'api' }));
    const signedIn = restRoute.session && method === 'GET' && !carriesToken(request, url) ? await session(request, exchange) : null;
    if (signedIn) refuseCrossSite(request, web);
    const account = signedIn ? signedIn.account : await authenticate(request, url, restRoute.auth, exchange);
    return headAware(request, await handler(request, { account, services, source: 'api' }));
  };
}

/** Every REST path with its handlers, made once (app.ts): the router and the early answers share them. */
export type BoundRoutes = ReadonlyMap<string, BoundPath>;

/** Each path of `routes` with its handlers, made once; two routes declaring one method of a path stop the start. */
export function bindRoutes(routes: readonly RestRoute[], dependencies: RouteDependencies): BoundRoutes {
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
