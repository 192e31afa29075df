import { deviceCookie } from './device-cookie.ts';
import { openSession, type SessionMethod } from './sessions.ts';
import { InputError, ConflictError, SessionRequiredError } from '../errors.ts';
import type { GraphQLContext, WebRequestContext } from '../graphql/context.ts';

/**
 * Guards of the web app's operations. Those that act for the signed-in person (password,
 * sessions, administration) need a session: an API token is for machines, and one that leaks
 * must not be able to lock its owner out.
 */

/** The web side of a /graphql request; SessionRequiredError for the REST facade (which has none). */
export function webContext(context: GraphQLContext): WebRequestContext {
  if (!context.web) throw new SessionRequiredError();
  return context.web;
}

/** The request's session and its account; SessionRequiredError for a token or an anonymous request. */
export function requireSession(context: GraphQLContext): { sessionId: number; accountId: number; web: WebRequestContext } {
  const web = webContext(context);
  if (web.via !== 'session' || web.sessionId === undefined || web.sessionAccountId === undefined) throw new SessionRequiredError();
  return { sessionId: web.sessionId, accountId: web.sessionAccountId, web };
}

/**
 * Starts a session for the account and sets its cookie on the response, with a fresh device
 * cookie (device-cookie.ts: this browser now knows the account's password); records the session
 * so `Account.sessions { current }` in the same answer sees it.
 */
export async function signInAs(web: WebRequestContext, accountId: number, method: SessionMethod): Promise<void> {
  const { cookie, sessionId } = await openSession({ accountId, method, request: web.request, clientAddress: web.clientAddress });
  web.setCookie(cookie);
  web.setCookie(deviceCookie(web.request, accountId));
  web.sessionId = sessionId;
  web.sessionAccountId = accountId;
}

/** A taken name is bad input to a person filling a form (400 BAD_INPUT, on the name field). */
export async function nameTakenAsInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConflictError) throw new InputError(error.message, 'name');
    throw error;
  }
}
