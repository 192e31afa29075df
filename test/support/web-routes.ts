import { readFileSync } from 'node:fs';

/**
 * The web app's pages as web/src/routes.ts lists them (path and who may open it), read from the
 * file as text: its page imports are .tsx modules that Node and the tests' compiler do not load.
 * Tests and scripts that go over every page (axe-core, screenshots) take the list from here, so a
 * page added to routes.ts is covered without touching them.
 */
export function webRoutes(): { path: string; access: 'public' | 'account' | 'admin'; nav: string | undefined }[] {
  const text = readFileSync(new URL('../../web/src/routes.ts', import.meta.url), 'utf8');
  const found = [...text.matchAll(/\{ path: '([^']+)',(?: nav: '([^']*)',)? access: '(public|account|admin)'/g)].map(([, path, nav, access]) => ({
    path: path!,
    nav,
    access: access as 'public' | 'account' | 'admin',
  }));
  if (found.length < 6) throw new Error(`read only ${found.length} routes from web/src/routes.ts; has its form changed?`);
  return found;
}
