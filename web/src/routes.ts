import type { ComponentType } from 'preact';

/** Who may open a page: anyone, a signed-in account, or an administrator. */
export type Access = 'public' | 'account' | 'admin';

export interface RouteDefinition {
  path: string;
  /** In the navigation, when set. */
  nav?: string;
  access: Access;
  /** Each page is its own chunk, fetched on first visit (bench/web-size.ts measures them). */
  load: () => Promise<{ default: ComponentType }>;
}

export const routes: RouteDefinition[] = [
  { path: '/sign-in', access: 'public', load: () => import('./pages/sign-in.tsx') },
  { path: '/setup', access: 'public', load: () => import('./pages/setup.tsx') },
  { path: '/calendar', nav: 'Calendar', access: 'account', load: () => import('./pages/calendar.tsx') },
  { path: '/statistics', nav: 'Statistics', access: 'account', load: () => import('./pages/statistics.tsx') },
  { path: '/settings/developer', nav: 'Developer', access: 'account', load: () => import('./pages/developer.tsx') },
  { path: '/settings/account', nav: 'Account', access: 'account', load: () => import('./pages/account.tsx') },
  { path: '/connections', nav: 'Connections', access: 'account', load: () => import('./pages/connections.tsx') },
  { path: '/import-export', nav: 'Import & export', access: 'account', load: () => import('./pages/import-export.tsx') },
  { path: '/admin', nav: 'Administration', access: 'admin', load: () => import('./pages/admin.tsx') },
];

/** Where `/` leads until the library pages exist. */
export const homePath = '/settings/developer';

export function findRoute(path: string): RouteDefinition | undefined {
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return routes.find((route) => route.path === normalized);
}
