import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import pino, { type DestinationStream } from 'pino';
import type { LogFormat, LogLevel } from './config.ts';

/** The server's logger: pino's, so `logger.warn({ err }, 'message')` and child loggers work as pino documents. */
export type Logger = pino.Logger;

/** What code that only reports problems needs of a logger (tests pass `{ warn: (message) => … }`). */
export interface Warner {
  warn(message: string): void;
}

/** What every log line written while serving a request, or running a job, carries. */
export interface LogContext {
  /** The request's id (X-Request-Id), or the id of the request that queued the job. */
  reqId?: string | undefined;
  /** The job's name, while a job runs. */
  job?: string;
}

/**
 * The context of the request or job under way. Every line logged inside `withLogContext` gets
 * its fields, whichever module logs it (Yoga's error lines, the rate limit's store warnings, a
 * catalog's failure): no logger has to be handed down through the services.
 */
const logContext = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `context` added to every log line it causes (also across awaits). */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return logContext.run(context, work);
}

/** The request id of the request (or job) under way, to hand on to the jobs it queues. */
export function currentRequestId(): string | undefined {
  return logContext.getStore()?.reqId;
}

export interface LoggerOptions {
  level: LogLevel;
  /** `json`: one JSON object a line; `pretty`: readable lines; `auto`: pretty when stderr is a terminal. */
  format: LogFormat;
  /** Where lines go; stderr (synchronously) by default. Tests pass a stream they read. */
  destination?: DestinationStream;
}

/**
 * Field paths pino replaces with "[redacted]" wherever they appear in a line's object: a secret
 * handed to the logger by mistake is not written. The first defence is not logging them at all
 * (the access line has the route template, never the URL with its query).
 */
const redactedPaths = [
  'password',
  'token',
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.token',
  '*.authorization',
  '*.cookie',
];

/** pino-pretty, loaded only for a server that prints readable lines (it costs a start ~10 ms of CPU). */
function prettyPrinter(): typeof import('pino-pretty') {
  return createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
}

/**
 * A pino logger at `level`, writing JSON lines to stderr — or readable ones when stderr is a
 * terminal (`format: auto`) or `pretty` is asked for. Writes are synchronous (a line is out before
 * the process can exit) and in the server's own thread: JSON costs a few microseconds a line;
 * pretty-printing costs more and is only chosen for a person at a terminal.
 */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === 'pretty' || (options.format === 'auto' && process.stderr.isTTY === true);
  const destination =
    options.destination ??
    (pretty
      ? prettyPrinter()({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Level names rather than numbers: a reader of raw lines (or a log shipper's filter) sees "warn".
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => logContext.getStore() ?? {},
      redact: { paths: redactedPaths, censor: '[redacted]' },
    },
    destination,
  );
}
