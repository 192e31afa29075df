/**
 * Lets the event loop turn: resolves in the loop's next check phase, after pending I/O has been
 * polled, so other requests' sockets and timers run in between. Long synchronous work (rendering
 * a big calendar, applying an import on SQLite, whose queries are synchronous) awaits this
 * between bounded slices instead of holding every other request up.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
