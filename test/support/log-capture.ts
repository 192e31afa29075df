/** One line a pino logger wrote, parsed. */
export type LogRecord = Record<string, unknown> & { level: string; msg: string; reqId?: string };

/**
 * A log destination that keeps what it is given (createApp's `logDestination`), for tests that
 * read what the server logged.
 */
export function captureLog() {
  const lines: string[] = [];
  return {
    destination: { write: (line: string) => void lines.push(line) },
    /** Everything written, as written. */
    text: () => lines.join(''),
    records: (): LogRecord[] => lines.map((line) => JSON.parse(line) as LogRecord),
  };
}
