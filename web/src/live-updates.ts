import { print } from '@0no-co/graphql.web';
import { graphql } from './graphql.ts';
import { notifyLibraryChanged } from './library-events.ts';

/**
 * The tab's one live update stream: the libraryChanged subscription over server-sent events (an
 * EventSource on /graphql, same origin, with the session cookie). Each event, and each reconnection
 * after the stream was lost (changes may have been missed meanwhile), raises the tab's "library
 * changed" signal (library-events.ts), on which pages read their data again.
 *
 * A refusal (the account's bound of streams reached by other tabs, signed out) closes the
 * EventSource; it is tried again after `retryMs`, not in a loop.
 */
const LibraryChanged = graphql(`
  subscription LibraryChanged {
    libraryChanged {
      feedVersion
    }
  }
`);

const retryMs = 60_000;
let source: EventSource | undefined;
let retry: ReturnType<typeof setTimeout> | undefined;

/** Opens the stream unless it is open (called when a person is signed in). */
export function startLiveUpdates(): void {
  if (source || retry || typeof EventSource === 'undefined') return;
  const url = `/graphql?operationName=LibraryChanged&query=${encodeURIComponent(print(LibraryChanged))}`;
  const stream = new EventSource(url);
  source = stream;
  let opened = false;
  stream.addEventListener('open', () => {
    if (opened) notifyLibraryChanged();
    opened = true;
  });
  stream.addEventListener('next', (event) => {
    let payload: { data?: unknown; errors?: unknown[] } | undefined;
    try {
      payload = JSON.parse((event as MessageEvent<string>).data) as typeof payload;
    } catch {
      payload = undefined;
    }
    if (payload?.data) notifyLibraryChanged();
    else if (payload?.errors) pause();
  });
  // The browser reconnects by itself after a dropped connection; a refused one ends CLOSED.
  stream.addEventListener('error', () => {
    if (stream.readyState === EventSource.CLOSED) pause();
  });
}

/** Closes the stream (signed out). */
export function stopLiveUpdates(): void {
  source?.close();
  source = undefined;
  if (retry) clearTimeout(retry);
  retry = undefined;
}

function pause(): void {
  stopLiveUpdates();
  retry = setTimeout(() => {
    retry = undefined;
    startLiveUpdates();
  }, retryMs);
}

/** Whether the stream is open now (for tests and the page's own checks). */
export function liveUpdatesOpen(): boolean {
  return source?.readyState === EventSource.OPEN;
}
