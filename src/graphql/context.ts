import type { Config } from '../config.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * What a request proved it acts for its account with: a session of the web app (its row id) or
 * the API token (its digest: a regenerated token keeps its row but not its digest). What lasts
 * beyond the request (a live update stream) ends when it does (src/library/live-updates.ts).
 */
export type Credential = { kind: 'session'; sessionId: number } | { kind: 'token'; digest: string };

/** The account a request acts for, with the versions feed caches are keyed by (accounts/tokens.ts and sessions.ts read it). */
export interface AuthenticatedAccount {
  id: number;
  name: string;
  timezone: string;
  /** Bumped by every change to the account's library or settings. */
  feedVersion: number;
  /** Bumped by the changes its calendar depends on (follows, archives, settings, imports), not by watched toggles. */
  calendarVersion: number;
  /** Bumped by every catalog change; 0 before the server state row exists. */
  catalogVersion: number;
  /** What GET /api/machine/summary answers (`full` or `home-assistant`), read with the token. */
  summaryProfile: string;
  /** The session or token the request came with; absent where nothing was presented (commands, jobs). */
  credential?: Credential;
}

/**
 * The app's services every operation can reach. Each feature adds its own to this interface where
 * it defines the service (`declare module '../graphql/context.ts'`: catalog, jobs, webhooks), so
 * this base module names no feature; app.ts builds the object.
 */
export interface GraphQLServices {
  /** What the app counts; absent where nothing is counted (commands, service tests). */
  metrics?: Metrics;
}

/** What the web app's requests carry besides their session; features add theirs (the sign-in limiter) as to GraphQLServices. */
export interface WebRequestServices {}

/**
 * What every GraphQL operation runs with; the edge (HTTP or REST facade) authenticates first.
 * `account` is always there for authenticated requests. For an anonymous one (only the public
 * operations run, src/graphql/graphql-access.ts) it is a stand-in every read of which throws
 * UnauthenticatedError, so a private resolver can never run without an account, even if a public
 * root field were to reach one.
 */
export interface GraphQLContext {
  account: AuthenticatedAccount;
  services: GraphQLServices;
  /** Where writes come from, for the watch history: `api` (REST) or `graphql`. */
  source: 'api' | 'graphql';
  /** The web app's side of a /graphql request (sign-in, sessions); absent for the REST facade. */
  web?: WebRequestContext;
}

/** How a /graphql request was authenticated, and what the sign-in operations need of it. */
export interface WebRequestContext extends WebRequestServices {
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
}
