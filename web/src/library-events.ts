/**
 * "The library changed": one signal the pages listen to, raised by the live-updates stream
 * (live-updates.ts, when the server says the account's library changed elsewhere) and by anything
 * in this tab that wants every page's library data read again. Each listener reloads its own data.
 */
const listeners = new Set<() => void>();

/** Calls `listener` on every change; returns the function that stops it. */
export function onLibraryChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Tells every listener that the library changed. */
export function notifyLibraryChanged(): void {
  for (const listener of [...listeners]) listener();
}
