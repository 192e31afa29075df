import { randomUUID } from 'node:crypto';

/** The header a request's id arrives in (from a reverse proxy or a client) and leaves in. */
export const requestIdHeader = 'x-request-id';

/** An id taken as it is: 1–128 characters that cannot break a log line or a header. */
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's `X-Request-Id` when it is sane, else a new random one (a UUID). */
export function requestIdOf(request: Request): string {
  return requestIdFrom(request.headers.get(requestIdHeader));
}

/** `given` (an `X-Request-Id` value) when it is sane, else a new random id (a UUID). */
export function requestIdFrom(given: string | string[] | null | undefined): string {
  return typeof given === 'string' && saneRequestId.test(given) ? given : randomUUID();
}

/**
 * `response` with the request id in its headers. A response whose headers cannot be changed
 * (Response.redirect's, for one) is copied first.
 */
export function withRequestId(response: Response, requestId: string): Response {
  try {
    response.headers.set(requestIdHeader, requestId);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set(requestIdHeader, requestId);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
