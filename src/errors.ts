/** The stable codes of expected failures; src/http/error-status.ts gives each its HTTP status. */
export const errorCodes = ['BAD_INPUT', 'UNAUTHENTICATED', 'WRONG_CREDENTIALS', 'FORBIDDEN', 'SESSION_REQUIRED', 'NOT_FOUND', 'CONFLICT', 'TOO_LARGE', 'RATE_LIMITED', 'BUSY'] as const;
export type ErrorCode = (typeof errorCodes)[number];

/**
 * Expected failures: typed, with a stable code. The GraphQL schema exposes some as data (the
 * Pothos errors plugin); thrown, each answers its code's status over REST and GraphQL alike
 * (src/http/error-status.ts, the one place errors become statuses). Anything else is unexpected:
 * masked, and logged.
 */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** When the same request may be sent again, in whole seconds (a Retry-After header); undefined: not said. */
  readonly retryAfterSeconds: number | undefined = undefined;
}

/** Wrong, missing or out-of-range input (HTTP 400). */
export class InputError extends AppError {
  override name = 'InputError';
  readonly code = 'BAD_INPUT' as const;
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}

/** The item or account does not exist (HTTP 404). */
export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  readonly code = 'NOT_FOUND' as const;
}

/** The request conflicts with what is stored, such as a taken account name (HTTP 409). */
export class ConflictError extends AppError {
  override name = 'ConflictError';
  readonly code = 'CONFLICT' as const;
}

/** An upload past a size bound: body size, zip entry count, uncompressed size or nesting (HTTP 413). */
export class TooLargeError extends AppError {
  override name = 'TooLargeError';
  readonly code = 'TOO_LARGE' as const;
}

/**
 * Too many requests for one key (an account, later a sign-in name) in the current window of a
 * rate limit (HTTP 429, with Retry-After in whole seconds).
 */
export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  readonly code = 'RATE_LIMITED' as const;
  constructor(override readonly retryAfterSeconds: number) {
    super(`too many requests; try again in ${retryAfterSeconds} s`);
  }
}

/**
 * The server cannot take this piece of work now (the password hashing queue is full): HTTP 503,
 * with Retry-After in whole seconds. Nothing was done; the same request may be sent again.
 */
export class ServiceBusyError extends AppError {
  override name = 'ServiceBusyError';
  readonly code = 'BUSY' as const;
  constructor(override readonly retryAfterSeconds: number) {
    super(`the server is busy; try again in ${retryAfterSeconds} s`);
  }
}

/** Sign-in with a wrong name or password; the same error for both, so names cannot be probed (HTTP 401). */
export class WrongCredentialsError extends AppError {
  override name = 'WrongCredentialsError';
  readonly code = 'WRONG_CREDENTIALS' as const;
  constructor() {
    super('wrong name or password');
  }
}

/** An operation that needs an account was reached without one (HTTP 401). */
export class UnauthenticatedError extends AppError {
  override name = 'UnauthenticatedError';
  readonly code = 'UNAUTHENTICATED' as const;
}

/** The account may not do this: not an administrator, or a rule such as "never zero admins" (HTTP 403). */
export class ForbiddenError extends AppError {
  override name = 'ForbiddenError';
  readonly code = 'FORBIDDEN' as const;
}

/**
 * An operation of the web app's signed-in person (sessions, password, administration) was sent
 * with an API token: a leaked token must not take over the account (HTTP 403).
 */
export class SessionRequiredError extends AppError {
  override name = 'SessionRequiredError';
  readonly code = 'SESSION_REQUIRED' as const;
  constructor() {
    super('this operation needs a signed-in session, not an API token');
  }
}

/**
 * An expected failure a GraphQL operation answered as data (a mutation's `InputError`,
 * `NotFoundError`… with its `code`), raised again by the REST facade, which has no data to answer
 * with: the same code, the same message, so the same status.
 */
export class AnsweredError extends AppError {
  override name = 'AnsweredError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The message of anything thrown (an Error's message, else its text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
