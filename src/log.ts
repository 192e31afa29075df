import type { LogLevel } from './config.ts';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  /** Whether debug lines are written (lets hot paths skip building them). */
  readonly debugEnabled: boolean;
  debug(message: string, detail?: unknown): void;
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

/** A line logger to stderr that drops messages below `level`. Never give it a `?token=` URL. */
export function createLogger(level: LogLevel): Logger {
  const at = (name: Exclude<LogLevel, 'silent'>) => (message: string, detail?: unknown) => {
    if (order[name] < order[level]) return;
    const suffix = detail === undefined ? '' : ` ${detail instanceof Error ? (detail.stack ?? detail.message) : JSON.stringify(detail)}`;
    process.stderr.write(`${new Date().toISOString()} ${name} ${message}${suffix}\n`);
  };
  return { debugEnabled: order.debug >= order[level], debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
