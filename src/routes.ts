import type { TokenPlacement } from './accounts/authenticate.ts';
import { availableImportSources } from './imports/sources/import-sources.ts';

/** A method a REST path answers (GET brings HEAD along). */
export type RestMethod = 'GET' | 'POST';

/** One token-carrying REST path: app.ts routes by this table, the OpenAPI document describes it. */
export interface RestRoute {
  path: string;
  /** The path as the OpenAPI document writes it (`/api/import/{source}` for every import path). */
  template: string;
  /** Where the token may come from. */
  auth: TokenPlacement;
  /** Also accepts the web app's session cookie (a GET only: a link the browser follows). */
  session?: true;
  methods: readonly RestMethod[];
}

const machine = (name: string, method: RestMethod): RestRoute => ({
  path: `/api/machine/${name}`,
  template: `/api/machine/${name}`,
  auth: 'header-or-query',
  methods: [method],
});

/** Every token-carrying REST path; a new one added here without a handler or a description stops the app or the document. */
export const restRoutes: readonly RestRoute[] = [
  machine('summary', 'GET'),
  machine('releases', 'GET'),
  machine('airing', 'GET'),
  machine('widget', 'GET'),
  machine('watched', 'POST'),
  machine('follow', 'POST'),
  machine('sync', 'POST'),
  // One path per source with a parser; any other source is a 404.
  ...availableImportSources.map((source): RestRoute => ({ path: `/api/import/${source}`, template: '/api/import/{source}', auth: 'header-only', methods: ['POST'] })),
  { path: '/api/calendar.ics', template: '/api/calendar.ics', auth: 'header-or-query', methods: ['GET'] },
  { path: '/api/export', template: '/api/export', auth: 'header-only', session: true, methods: ['GET'] },
];

/** Paths answered without a token: health, and the API's own description. GET (and HEAD) only. */
export const openPaths = ['/healthz', '/readyz', '/api/openapi.json', '/api/docs'] as const;
