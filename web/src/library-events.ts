import { useEffect } from 'preact/hooks';

/**
 * The one place that says "the library changed; pages, read it again". Everything that changes or
 * learns of a change calls `notifyLibraryChanged()`:
 *  - this app's own marks, follows and undos (library.ts), so every open page reloads what it shows;
 *  - the tab coming back into view or regaining focus (below), for changes made elsewhere
 *    (Home Assistant, a media server, another tab) while it was hidden;
 *  - a live stream of server events, when one is open (live-updates.ts), except the echo of this
 *    tab's own writes, which were told here already.
 * Pages subscribe with `useLibraryChanged(reload)`; the reload keeps the old data on screen until
 * the new arrives, so a notification never blanks a page. A change this tab made says what it
 * changed when it knows (`LibraryChange`), so a page holding those items can update them in place
 * and read only what follows from them (a show's next episode) instead of everything.
 */
export interface LibraryChange {
  /** Episodes this tab marked (watched) or unmarked, as the server's answer listed them. */
  episodes?: { ids: number[]; watched: boolean };
}
type Listener = (change?: LibraryChange) => void;
const listeners = new Set<Listener>();

/** Tells every subscribed page that the library changed (and what, when known). */
export function notifyLibraryChanged(change?: LibraryChange): void {
  listeners.forEach((listener) => listener(change));
}

/** Subscribes `listener` until the page unmounts. */
export function onLibraryChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Calls `reload` whenever the library changed (see above) while the calling page is shown. */
export function useLibraryChanged(reload: Listener): void {
  useEffect(() => onLibraryChanged(reload), [reload]);
}

let lastFocusNotice = 0;
/** A hidden tab shown again, or the window focused again: reload, at most once a second. */
function onFocus(): void {
  if (document.visibilityState !== 'visible') return;
  const now = Date.now();
  if (now - lastFocusNotice < 1000) return;
  lastFocusNotice = now;
  notifyLibraryChanged();
}

/** Installs the focus listeners once (main.tsx). */
export function refetchOnFocus(): void {
  document.addEventListener('visibilitychange', onFocus);
  window.addEventListener('focus', onFocus);
}
