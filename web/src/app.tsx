import type { ComponentType } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { whenUnauthenticated } from './client.ts';
import { errorText, PageTitle } from './components.tsx';
import { navigate, useLocation } from './router.ts';
import { startLiveUpdates, stopLiveUpdates } from './live-updates.ts';
import { findRoute, routes, type RouteDefinition } from './routes.ts';
import { loadSession, SessionContext, type AuthInfo, type Session, type Viewer } from './session.ts';
import { SignOutButton } from './sign-out.tsx';
import { Toasts } from './toast.tsx';

/**
 * The app: who is signed in (asked once, then after sign-in and sign-out), the route guard
 * (a page that needs an account sends a signed-out visitor to /sign-in?returnTo=…), the
 * navigation and the current page, loaded as its own chunk.
 */
export function App() {
  const location = useLocation();
  /** undefined while the first answer is pending. */
  const [viewer, setViewer] = useState<Viewer | null | undefined>(undefined);
  const [auth, setAuth] = useState<AuthInfo | null>(null);
  const [failure, setFailure] = useState<string>();
  const refresh = useCallback(async () => {
    try {
      const loaded = await loadSession();
      setAuth(loaded.auth);
      setViewer(loaded.viewer);
      setFailure(undefined);
    } catch (error) {
      setFailure(errorText(error));
    }
  }, []);
  useEffect(() => {
    whenUnauthenticated(() => setViewer(null));
    void refresh();
  }, [refresh]);
  // One live update stream per tab while someone is signed in.
  useEffect(() => {
    if (viewer) startLiveUpdates();
    else if (viewer === null) stopLiveUpdates();
  }, [viewer]);
  const session = useMemo<Session>(() => ({ viewer: viewer ?? null, auth, refresh }), [viewer, auth, refresh]);

  const route = findRoute(location.path);
  const blocked = route && route.access !== 'public' && viewer === null;
  const forbidden = route?.access === 'admin' && viewer && viewer.role !== 'ADMIN';
  useEffect(() => {
    if (viewer === undefined) return;
    if (blocked) navigate(`/sign-in?returnTo=${encodeURIComponent(window.location.pathname + window.location.search)}`, { replace: true });
  }, [viewer, location.path, blocked]);

  let page;
  if (failure) page = <Failure text={failure} />;
  else if (viewer === undefined || blocked) page = <p class="loading">Loading…</p>;
  else if (!route) page = <NotFound />;
  else if (forbidden) page = <Failure title="Administrators only" text="This page is for the server's administrators." />;
  else page = <LazyPage route={route} />;

  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Airdate
        </a>
        {viewer && <Navigation viewer={viewer} current={route} path={location.path} />}
      </header>
      <main id="content">{page}</main>
      <Toasts />
    </SessionContext.Provider>
  );
}

/**
 * The library's pages as the main navigation (one row that scrolls sideways on a phone), and the
 * account's pages, the name and signing out in a menu, so the header stays one line high.
 */
function Navigation({ viewer, current, path }: { viewer: Viewer; current: RouteDefinition | undefined; path: string }) {
  const menu = useRef<HTMLDetailsElement>(null);
  // A navigation closes the menu.
  useEffect(() => menu.current?.removeAttribute('open'), [path]);
  const links = (group: 'main' | 'settings') =>
    routes
      .filter((item) => item.nav && item.group === group && (item.access !== 'admin' || viewer.role === 'ADMIN'))
      .map((item) => (
        <li key={item.path}>
          <a href={item.path} aria-current={current?.path === item.path ? 'page' : undefined}>
            {item.nav}
          </a>
        </li>
      ));
  return (
    <>
      <nav aria-label="Library" class="main-nav">
        <ul>{links('main')}</ul>
      </nav>
      <details class="menu" ref={menu}>
        <summary>
          <span class="visually-hidden">Account menu for </span>
          <span class="who">{viewer.name}</span>
        </summary>
        <nav aria-label="Account">
          <ul>{links('settings')}</ul>
          <SignOutButton />
        </nav>
      </details>
    </>
  );
}

function LazyPage({ route }: { route: RouteDefinition }) {
  const [loaded, setLoaded] = useState<{ path: string; Page: ComponentType } | { path: string; error: string }>();
  useEffect(() => {
    let current = true;
    route.load().then(
      (module) => current && setLoaded({ path: route.path, Page: module.default }),
      (error) => current && setLoaded({ path: route.path, error: `This page could not be loaded (${errorText(error)}); reload to try again.` }),
    );
    return () => void (current = false);
  }, [route]);
  if (!loaded || loaded.path !== route.path) return <p class="loading">Loading…</p>;
  if ('error' in loaded) return <Failure text={loaded.error} />;
  return <loaded.Page />;
}

function NotFound() {
  return (
    <section>
      <PageTitle>Page not found</PageTitle>
      <p>
        There is no page at this address. <a href="/">Go to the start page</a>.
      </p>
    </section>
  );
}

function Failure({ text, title = 'Something went wrong' }: { text: string; title?: string }) {
  return (
    <section>
      <PageTitle>{title}</PageTitle>
      <p role="alert">{text}</p>
    </section>
  );
}
