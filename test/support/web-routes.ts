import { readFileSync } from 'node:fs';

/**
 * The web app's pages as web/src/routes.ts lists them (path and who may open it), read from the
 * file as text: its page imports are .tsx modules that Node and the tests' compiler do not load.
 * Tests and scripts that go over every page (axe-core, screenshots) take the list from here, so a
 * page added to routes.ts is covered without touching them.
 */
export function webRoutes(): { path: string; access: 'public' | 'account' | 'admin'; nav: string | undefined }[] {
  const text = readFileSync(new URL('../../web/src/routes.ts', import.meta.url), 'utf8');
  const found = [...text.matchAll(/\{ path: '([^']+)',(?: nav: '([^']*)',)?(?: group: '[^']*',)? access: '(public|account|admin)'/g)].map(([, path, nav, access]) => ({
    path: path!,
    nav,
    access: access as 'public' | 'account' | 'admin',
  }));
  // Every route line must be read: a form the pattern does not know would drop pages silently.
  const lines = text.match(/^\s*\{ path: '/gm)?.length ?? 0;
  if (found.length !== lines) throw new Error(`read ${found.length} of the ${lines} routes of web/src/routes.ts; has its form changed?`);
  if (found.length < 6) throw new Error(`read only ${found.length} routes from web/src/routes.ts; has its form changed?`);
  return found;
}

/** A route's path with its parameters filled in (`/shows/:id` with `{ id: 3 }`: `/shows/3`). */
export function fillPath(path: string, values: Record<string, string | number>): string {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`no value for :${name} of ${path}`);
    return String(values[name]);
  });
}
