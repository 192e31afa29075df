import type { ComponentType } from 'preact';
import { pathMatches } from './router.ts';

/** Who may open a page: anyone, a signed-in account, or an administrator. */
export type Access = 'public' | 'account' | 'admin';

export interface RouteDefinition {
  /** The path; a `:name` segment matches any one segment (`/shows/:id`), read by the page from the location. */
  path: string;
  /** In the navigation, when set: `main` the library's pages, `settings` the account's. */
  nav?: string;
  group?: 'main' | 'settings';
  access: Access;
  /** Each page is its own chunk, fetched on first visit (bench/web-size.ts measures them). */
  load: () => Promise<{ default: ComponentType }>;
}

export const routes: RouteDefinition[] = [
  { path: '/', nav: 'Home', group: 'main', access: 'account', load: () => import('./pages/home.tsx') },
  { path: '/search', nav: 'Search', group: 'main', access: 'account', load: () => import('./pages/search.tsx') },
  { path: '/shows/:id', access: 'account', load: () => import('./pages/show.tsx') },
  { path: '/movies', nav: 'Movies', group: 'main', access: 'account', load: () => import('./pages/titles.tsx') },
  { path: '/games', nav: 'Games', group: 'main', access: 'account', load: () => import('./pages/titles.tsx') },
  { path: '/history', nav: 'History', group: 'main', access: 'account', load: () => import('./pages/history.tsx') },
  { path: '/sign-in', access: 'public', load: () => import('./pages/sign-in.tsx') },
  { path: '/setup', access: 'public', load: () => import('./pages/setup.tsx') },
  { path: '/calendar', nav: 'Calendar', group: 'main', access: 'account', load: () => import('./pages/calendar.tsx') },
  { path: '/statistics', nav: 'Statistics', group: 'main', access: 'account', load: () => import('./pages/statistics.tsx') },
  { path: '/settings/account', nav: 'Account', group: 'settings', access: 'account', load: () => import('./pages/account.tsx') },
  { path: '/settings/developer', nav: 'Developer', group: 'settings', access: 'account', load: () => import('./pages/developer.tsx') },
  { path: '/import-export', nav: 'Import & export', group: 'settings', access: 'account', load: () => import('./pages/import-export.tsx') },
  { path: '/connections', nav: 'Connections', group: 'settings', access: 'account', load: () => import('./pages/connections.tsx') },
  { path: '/admin', nav: 'Administration', group: 'settings', access: 'admin', load: () => import('./pages/admin.tsx') },
];

/** Where signing in and setting up lead: the home page. */
export const homePath = '/';

export function findRoute(path: string): RouteDefinition | undefined {
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return routes.find((route) => pathMatches(route.path, normalized));
}
