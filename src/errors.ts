/**
 * Expected failures: typed, with a stable code and the HTTP status the REST facade answers with.
 * The GraphQL schema exposes them through the Pothos errors plugin; anything else is unexpected,
 * masked by Yoga and logged.
 */
export abstract class AppError extends Error {
  abstract readonly code: keyof typeof httpStatusByCode;
  get status(): number {
    return httpStatusByCode[this.code];
  }
  /** Response headers that go with the status (Retry-After for a rate limit); none by default. */
  get headers(): Record<string, string> {
    return {};
  }
}

/** HTTP status of each expected error code; the REST facade maps GraphQL error results with it. */
export const httpStatusByCode = {
  BAD_INPUT: 400,
  UNAUTHENTICATED: 401,
  WRONG_CREDENTIALS: 401,
  FORBIDDEN: 403,
  SESSION_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TOO_LARGE: 413,
  RATE_LIMITED: 429,
  BUSY: 503,
} as const;

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
  constructor(readonly retryAfterSeconds: number) {
    super(`too many requests; try again in ${retryAfterSeconds} s`);
  }
  override get headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/**
 * The server cannot take this piece of work now (the password hashing queue is full): HTTP 503,
 * with Retry-After in whole seconds. Nothing was done; the same request may be sent again.
 */
export class ServiceBusyError extends AppError {
  override name = 'ServiceBusyError';
  readonly code = 'BUSY' as const;
  constructor(readonly retryAfterSeconds: number) {
    super(`the server is busy; try again in ${retryAfterSeconds} s`);
  }
  override get headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterSeconds) };
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

/** The message of anything thrown (an Error's message, else its text). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
