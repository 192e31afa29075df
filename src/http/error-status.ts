import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { AppError, type ErrorCode } from '../errors.ts';
import type { HttpLimits } from '../limits.ts';
import { HttpError } from './responses.ts';

/**
 * Errors become HTTP statuses here, and nowhere else (test/development/error-statuses.test.ts
 * holds it): the edge answers every route's error with it (the REST facade, the own-token routes,
 * the pages), the /graphql endpoint gives an error inside an operation its status and code with it
 * (graphql-endpoint.ts), the early answers (early-answers.ts) and the metrics port answer theirs
 * with it, and Node's parser's refusals take their status from it (node-server.ts). So the same
 * error thrown by a service answers the same status, with the same Retry-After, over REST and
 * GraphQL.
 *
 * An expected error keeps its message (it was written for the client). Anything else is a fault:
 * its message never leaves the server — it can hold SQL, a file path, a stored value of another
 * account or a secret — it is logged with its stack, and the client is told only that the server
 * failed (500).
 */

/** The status of each expected error code (errors.ts). */
const statusByCode: Record<ErrorCode, number> = {
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
};

/** The status of a fault. */
export const faultStatus = 500;

/** What a client is told of a fault over REST (GraphQL says Yoga's "Unexpected error."). */
const faultMessage = 'internal server error';

/** How an error is answered. */
export interface ErrorStatus {
  status: number;
  /** Headers that go with the status: Retry-After (whole seconds) for a rate limit or a busy server. */
  headers: Record<string, string>;
  /** What the client is told: the error's own message when it was expected, never a fault's. */
  message: string;
  /** The GraphQL error code: an AppError's own, BAD_USER_INPUT for an argument, INTERNAL_SERVER_ERROR for a fault. */
  code: string;
  /** `expected`: the client's mistake or a refusal; `aborted`: the client went away first; `fault`: log it, with its stack. */
  kind: 'expected' | 'aborted' | 'fault';
}

/**
 * How `error` is answered. A GraphQLError that wraps a thrown error is judged by what was thrown;
 * one that wraps nothing is a mistake in the request (a variable of the wrong type: 400).
 * `aborted`: the request's connection has closed (its signal), so an AbortError is the client
 * leaving, not a fault.
 */
export function errorStatus(error: unknown, options: { aborted?: boolean } = {}): ErrorStatus {
  let cause = error;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  if (cause instanceof HttpError) return { status: cause.status, headers: cause.headers, message: cause.message, code: codeOfStatus(cause.status), kind: 'expected' };
  if (cause instanceof AppError) {
    const headers: Record<string, string> = cause.retryAfterSeconds === undefined ? {} : { 'retry-after': String(cause.retryAfterSeconds) };
    return { status: statusByCode[cause.code], headers, message: cause.message, code: cause.code, kind: 'expected' };
  }
  if (cause instanceof PothosValidationError) return { status: 400, headers: {}, message: cause.message, code: 'BAD_USER_INPUT', kind: 'expected' };
  if (cause instanceof GraphQLError) return { status: 400, headers: {}, message: cause.message, code: String(cause.extensions.code ?? 'BAD_USER_INPUT'), kind: 'expected' };
  if (options.aborted && (cause as Error | undefined)?.name === 'AbortError') {
    return { status: 400, headers: {}, message: 'the connection closed before the request was answered', code: 'BAD_REQUEST', kind: 'aborted' };
  }
  return { status: faultStatus, headers: {}, message: faultMessage, code: 'INTERNAL_SERVER_ERROR', kind: 'fault' };
}

/** The code of an HttpError's status (a 401 is UNAUTHENTICATED, as the web app reads it), BAD_REQUEST for the rest. */
function codeOfStatus(status: number): string {
  const code = (Object.keys(statusByCode) as ErrorCode[]).find((candidate) => statusByCode[candidate] === status);
  return code ?? 'BAD_REQUEST';
}

/** A refusal of Node's HTTP parser (an error it emits on the socket), with the bounds it broke. */
export interface ParserError {
  code?: string | undefined;
  /** llhttp's reason: the rule broken ("Invalid method encountered"), never the bytes sent. */
  reason?: string | undefined;
}

/** The status and message of a request Node's HTTP parser refused (node-server.ts answers it on the socket). */
export function parserErrorStatus(error: ParserError, limits: Pick<HttpLimits, 'requestHeaderBytes' | 'requestTimeoutMs' | 'headersTimeoutMs'>): { status: number; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `request line and headers are over ${limits.requestHeaderBytes} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: `the request was not received within ${limits.requestTimeoutMs / 1000} s (its headers within ${limits.headersTimeoutMs / 1000} s)` };
    default:
      return { status: 400, message: `malformed HTTP request${error.reason ? `: ${error.reason}` : ''}` };
  }
}
