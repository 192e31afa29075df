import { useEffect, useState } from 'preact/hooks';

/**
 * The app's own router: history.pushState plus one listener list. Pages are plain links
 * (`<a href="/settings/account">`); a click on a same-origin link is turned into a navigation
 * here, so links stay links (open in a new tab, keyboard, screen readers) with no Link component.
 */
const listeners = new Set<() => void>();

export interface Location {
  path: string;
  search: URLSearchParams;
  hash: string;
}

function readLocation(): Location {
  return { path: window.location.pathname, search: new URLSearchParams(window.location.search), hash: window.location.hash };
}

/** Goes to `to` (a same-origin path with optional query), adding a history entry unless `replace`. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((listener) => listener());
}

/** The current location; re-renders the caller on every navigation. */
export function useLocation(): Location {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const update = () => setLocation(readLocation());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/** Paths the server answers itself (downloads, SSO redirects): a click on them is a real page load. */
const serverPaths = /^\/(api|auth|graphql|healthz|readyz|assets)(\/|$)/;

/** Turns clicks on in-app links into navigations without a page load. */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a');
    if (!link || link.target || link.hasAttribute('download') || link.origin !== window.location.origin) return;
    if (serverPaths.test(link.pathname)) return;
    event.preventDefault();
    navigate(link.pathname + link.search + link.hash);
  });
}

/**
 * Where a sign-in may send the person back to: a path of this app only. Anything else (another
 * origin, `//host`, a backslash trick) becomes `/`.
 */
export function safeReturnTo(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  return value;
}

/** Whether `path` (no trailing slash) fits `pattern`, where a `:name` segment stands for any one non-empty segment. */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const have = path.split('/');
  return want.length === have.length && want.every((segment, index) => (segment.startsWith(':') ? have[index] !== '' : segment === have[index]));
}
