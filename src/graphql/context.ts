import type { SignInLimiter } from '../accounts/sign-in-limit.ts';
import type { Config } from '../config.ts';
import type { AuthenticatedAccount } from '../accounts/tokens.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import type { JobQueue } from '../notifications/scheduler.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { WebhookTarget } from '../notifications/test-notification.ts';

/**
 * What every GraphQL operation runs with; the edge (HTTP or REST facade) authenticates first.
 * `account` is always there for authenticated requests. For an anonymous one (only the public
 * operations run, src/graphql/graphql-access.ts) it is a stand-in every read of which throws
 * UnauthenticatedError, so a private resolver can never run without an account, even if a public
 * root field were to reach one.
 */
export interface GraphQLContext {
  account: AuthenticatedAccount;
  /** `metrics`: what the app counts; absent where nothing is counted (commands, service tests). */
  services: { catalog: CatalogService; jobs: JobQueue; webhooks: WebhookTarget; metrics?: Metrics };
  /** Where writes come from, for the watch history: `api` (REST) or `graphql`. */
  source: 'api' | 'graphql';
  /** The web app's side of a /graphql request (sign-in, sessions); absent for the REST facade. */
  web?: WebRequestContext;
}

/** How a /graphql request was authenticated, and what the sign-in operations need of it. */
export interface WebRequestContext {
  via: 'token' | 'session' | 'anonymous';
  /** The request's session row; set by signIn/completeSetup/signUp for the rest of the request. */
  sessionId: number | undefined;
  /** The account of that session (set with it). */
  sessionAccountId: number | undefined;
  /** The original request (its headers name the cookie, give the User-Agent). */
  request: Request;
  /** publicOrigin(request): links are built on it. */
  origin: string;
  /** The client's address (sign-in limit, session list). */
  clientAddress: string | undefined;
  settings: Config['web'];
  /** Adds a Set-Cookie header to the response. */
  setCookie(value: string): void;
  signInLimiter: SignInLimiter;
}
