import type { ComponentType } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { whenUnauthenticated } from './client.ts';
import { errorText, PageTitle } from './components.tsx';
import { navigate, useLocation } from './router.ts';
import { startLiveUpdates, stopLiveUpdates } from './live-updates.ts';
import { findRoute, homePath, routes, type RouteDefinition } from './routes.ts';
import { loadSession, SessionContext, type AuthInfo, type Session, type Viewer } from './session.ts';
import { SignOutButton } from './sign-out.tsx';

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
    if (location.path === '/') navigate(viewer ? homePath : '/sign-in', { replace: true });
    else if (blocked) navigate(`/sign-in?returnTo=${encodeURIComponent(window.location.pathname + window.location.search)}`, { replace: true });
  }, [viewer, location.path, blocked]);

  let page;
  if (failure) page = <Failure text={failure} />;
  else if (viewer === undefined || blocked || location.path === '/') page = <p class="loading">Loading…</p>;
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
        {viewer && (
          <nav aria-label="Main">
            <ul>
              {routes
                .filter((item) => item.nav && (item.access !== 'admin' || viewer.role === 'ADMIN'))
                .map((item) => (
                  <li key={item.path}>
                    <a href={item.path} aria-current={route?.path === item.path ? 'page' : undefined}>
                      {item.nav}
                    </a>
                  </li>
                ))}
            </ul>
            <span class="who">{viewer.name}</span>
            <SignOutButton />
          </nav>
        )}
      </header>
      <main id="content">{page}</main>
    </SessionContext.Provider>
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
