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
 *
 * The echo of this tab's own write is not told again: the write told the pages already, with what
 * it changed (library.ts). A mark answers the feed version it made (`feedVersion`); an event is
 * an echo when every version it moved past was made by this tab and the catalog did not move. An
 * event that comes while a write of this tab is still on its way waits for its answer.
 */
const LibraryChanged = graphql(`
  subscription LibraryChanged {
    libraryChanged {
      feedVersion
      catalogVersion
    }
  }
`);

interface Versions {
  feedVersion: number;
  catalogVersion: number;
}
/** Feed versions this tab's writes made, not yet seen on the stream. */
const ownVersions = new Set<number>();
/** The versions of the stream's last event (unknown before the first). */
let lastSeen: Versions | undefined;
let writesUnderWay = 0;
/** The latest event that came while a write was under way. */
let held: Versions | undefined;

/**
 * Called by a write of this tab before it is sent; the returned function after its answer, with
 * the feed version it made (null: it changed nothing, or failed).
 */
export function ownWriteStarted(): (feedVersion: number | null) => void {
  writesUnderWay += 1;
  let ended = false;
  return (feedVersion) => {
    if (ended) return;
    ended = true;
    writesUnderWay -= 1;
    if (feedVersion !== null) ownVersions.add(feedVersion);
    if (writesUnderWay === 0 && held) {
      const event = held;
      held = undefined;
      onEvent(event);
    }
  };
}

/** Whether an event is the echo of this tab's own writes only (and forgets the versions it covers). */
function isOwnEcho(event: Versions): boolean {
  const from = lastSeen?.feedVersion ?? event.feedVersion - 1;
  let own = lastSeen === undefined || lastSeen.catalogVersion === event.catalogVersion;
  for (let version = from + 1; version <= event.feedVersion; version += 1) if (!ownVersions.has(version)) own = false;
  for (const version of ownVersions) if (version <= event.feedVersion) ownVersions.delete(version);
  lastSeen = event;
  return own;
}

function onEvent(event: Versions): void {
  if (writesUnderWay > 0) {
    held = event;
    return;
  }
  if (!isOwnEcho(event)) notifyLibraryChanged();
}

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
    // Events may have been missed while the stream was away: whatever comes next is not known to be an echo.
    lastSeen = undefined;
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
    const versions = (payload?.data as { libraryChanged?: Versions } | undefined)?.libraryChanged;
    if (versions) onEvent(versions);
    else if (payload?.data) notifyLibraryChanged();
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
