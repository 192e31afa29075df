import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import { httpLimits, type HttpLimits } from '../limits.ts';
import type { Logger } from '../log.ts';
import type { RequestContext } from './edge.ts';
import { parserErrorStatus } from './error-status.ts';
import { checkRequestTarget, quotedPath } from './request-target.ts';
import { requestIdFrom, requestIdHeader } from './request-id.ts';

/** What the Node server serves: the app's `fetch` (which never throws) and its logger. */
export interface ServedApp {
  fetch(request: Request, context: RequestContext): Promise<Response>;
  logger: Logger;
  /**
   * Answers the requests it can on Node's own request and response, before the fetch adapter
   * builds a Request and a Response for them (src/early-answers.ts): undefined when the request is
   * none of those it looks at; else a promise of null once it has answered, or of what it learned
   * (the context to hand on) when `fetch` is to answer after all. Never rejects.
   */
  answerEarly?(request: IncomingMessage, response: ServerResponse): Promise<RequestContext | null> | undefined;
}

/**
 * The Node HTTP server for `app` under `limits` (tests shorten the timeouts), not yet listening: what `serve` listens with (src/main.ts) and
 * what the edge tests drive over raw sockets. Everything that happens before the app sees a
 * request is answered here, each with a JSON `{"error"}` body and an `info` log line, never a 5xx:
 * - request targets and Host headers the app cannot build a URL from (`*`, another scheme, a
 *   broken or repeated Host: 400; absolute-form `http://host/path` is served by its path), see
 *   request-target.ts;
 * - requests Node's parser refuses (`clientError`: headers past `httpLimits.requestHeaderBytes`
 *   431, too slow 408, chunk extensions too large 413, anything malformed 400), answered in
 *   order after the answers to complete requests before it on the connection, unless an answer
 *   to the request itself has begun; the connection is then closed;
 * - `CONNECT` (this is not a proxy: 400) and an `Expect` other than `100-continue` (417), which
 *   Node would otherwise answer with an empty body or a dropped connection.
 */
export function createHttpServer(app: ServedApp, limits: HttpLimits = httpLimits): Server {
  const { logger } = app;
  // The adapter's server context carries Node's request: the socket's peer address is the client's
  // (or the reverse proxy's, which public-origin.ts then reads past when trusted).
  const adapter = createServerAdapter<{ req: IncomingMessage }>((request, context) =>
    app.fetch(request, { ...handedOn.get(context.req), clientAddress: context.req.socket.remoteAddress }),
  );
  /** What answerEarly learned of a request it handed on to `fetch`. */
  const handedOn = new WeakMap<IncomingMessage, RequestContext>();
  /** Requests under way per connection (received, or being received, and not yet answered). */
  const exchanges = new WeakMap<Duplex, Set<Exchange>>();
  const track = (request: IncomingMessage, response: ServerResponse) => {
    const underWay = exchanges.get(request.socket) ?? new Set();
    exchanges.set(request.socket, underWay);
    const exchange = { request, response };
    underWay.add(exchange);
    response.once('close', () => underWay.delete(exchange));
  };

  const server = createServer(
    // Host is checked in checkRequestTarget, so a missing one gets a JSON 400 like every refusal.
    {
      requireHostHeader: false,
      maxHeaderSize: limits.requestHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.timeoutCheckMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
    },
    (request, response) => {
      track(request, response);
      const check = checkRequestTarget({ method: request.method ?? '', target: request.url ?? '', rawHeaders: request.rawHeaders, httpVersion: request.httpVersion });
      if (!check.ok) {
        const reqId = requestIdFrom(request.headers[requestIdHeader]);
        logger.info({ reqId }, `refused ${describe(request)}: ${check.error}`);
        sendError(response, check.status, check.error, reqId);
        return;
      }
      // The adapter builds the request's URL from these two; both are now well-formed.
      request.url = check.path;
      request.headers.host = check.host;
      const early = app.answerEarly?.(request, response);
      if (early === undefined) return void adapter.requestListener(request, response);
      void early.then((learned) => {
        if (learned === null) return;
        handedOn.set(request, learned);
        void adapter.requestListener(request, response);
      });
    },
  );

  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    track(request, response);
    const error = 'the only expectation served is "Expect: 100-continue"';
    const reqId = requestIdFrom(request.headers[requestIdHeader]);
    logger.info({ reqId }, `refused ${describe(request)}: ${error}`);
    sendError(response, 417, error, reqId);
  });

  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const error = 'CONNECT is not served: Airdate is not a proxy';
    const reqId = requestIdFrom(undefined);
    logger.info({ reqId }, `refused CONNECT: ${error}`);
    answerOnSocket(socket, 400, error, limits.refusedLingerMs, reqId);
  });

  /** Connections already answered: the parser reports its error again for every further chunk. */
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    if (answered.has(socket)) return;
    const { status, message } = parserErrorStatus(error, limits);
    const drop = () => {
      logger.info(`dropped a connection Node's HTTP parser could not go on with (${error.code ?? 'no code'}): ${message}`);
      socket.destroy();
    };
    if (error.code === 'ECONNRESET' || !socket.writable) return drop();
    const underWay = [...(exchanges.get(socket) ?? [])];
    const receiving = underWay.find((exchange) => !exchange.request.complete);
    // The error is in the body of a request being received: its answer is this refusal, unless
    // that answer has begun (a second one would corrupt it for the client). What the app still
    // writes for it finds the connection ended and is dropped.
    if (receiving?.response.headersSent) return drop();
    answered.add(socket);
    const reqId = requestIdFrom(undefined);
    logger.info({ reqId }, `refused a request Node's HTTP parser could not take (${error.code ?? 'no code'}): ${status} ${message}`);
    const answer = () => answerOnSocket(socket, status, message, limits.refusedLingerMs, reqId);
    if (receiving || underWay.length === 0) return answer();
    // The error is in a request pipelined after complete ones still being answered: those
    // answers go first, in order, then this one.
    void Promise.all(underWay.map((exchange) => new Promise((closed) => exchange.response.once('close', closed)))).then(() => {
      if (socket.writable) answer();
      else socket.destroy();
    });
  });
  return server;
}

/** A request on a connection and the response to it. */
interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
}

const jsonType = 'application/json; charset=utf-8';

/**
 * A refusal of a request Node parsed but the app will not see. The connection is closed after it:
 * the client is broken, and a body it may still be sending would otherwise be read to the end
 * to keep the connection alive.
 */
function sendError(response: ServerResponse, status: number, message: string, requestId: string): void {
  const body = JSON.stringify({ error: message });
  response.writeHead(status, { 'content-type': jsonType, 'content-length': Buffer.byteLength(body), connection: 'close', [requestIdHeader]: requestId });
  response.end(body);
}

/**
 * Writes a whole response (with the request id its log line carries) on a connection Node's HTTP
 * layer no longer manages and closes it. It is ended (FIN after the answer) rather than destroyed,
 * and destroyed only after a short linger: closing with the rest of the client's request unread
 * would reset the connection, and the client could lose the answer.
 */
function answerOnSocket(socket: Duplex, status: number, message: string, lingerMs: number, reqId: string): void {
  const body = JSON.stringify({ error: message });
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${jsonType}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${requestIdHeader}: ${reqId}\r\nconnection: close\r\n\r\n`;
  socket.end(head + body);
  setTimeout(() => socket.destroy(), lingerMs).unref();
}

/** Method and path of a request for a log line: no query (it may hold `?token=`), bounded length. */
function describe(request: IncomingMessage): string {
  return `${request.method} ${quotedPath((request.url ?? '').split('?')[0]!)}`;
}
