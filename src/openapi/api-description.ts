import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Response } from '@whatwg-node/fetch';
import { HttpError } from '../http/responses.ts';
import { sendStatic, staticFile, staticFiles } from '../http/static-file.ts';
import { matchesEtag } from '../http/feed-bodies.ts';
import { projectRoot } from '../paths.ts';
import type { RestRoute } from '../http/rest-route.ts';
import { buildOpenApiDocument } from './openapi-document.ts';

/**
 * `GET /api/openapi.json` (the OpenAPI document, built once on its first request: a server start
 * pays nothing for it) and `GET /api/docs` (Swagger UI on that document). Self-hosted servers are
 * often offline or firewalled, so the page loads nothing from elsewhere: swagger-ui-dist's files
 * are served from node_modules under /api/docs/, and its CSP allows only this origin.
 */
export interface ApiDescription {
  /** The route template of `path` when it is one of these (for the access line), else undefined. */
  route(path: string): string | undefined;
  /** Answers a GET or HEAD of a path `route` knows. */
  respond(request: Request, path: string): Promise<Response>;
}

export const openApiPath = '/api/openapi.json';
export const docsPath = '/api/docs';

/**
 * The Swagger UI files the page loads (the bundle is 1.7 MB, 0.46 MB gzipped), and the starter
 * script of ours (no inline script under the CSP).
 */
const assets = new Map([
  ['swagger-ui.css', { type: 'text/css; charset=utf-8', compressible: true }],
  ['swagger-ui-bundle.js', { type: 'text/javascript; charset=utf-8', compressible: true }],
  ['favicon-32x32.png', { type: 'image/png', compressible: false }],
]);
const starterName = 'start.js';
const starter = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${openApiPath}', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });
});
`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Airdate REST API</title>
<link rel="icon" type="image/png" href="${docsPath}/favicon-32x32.png">
<link rel="stylesheet" href="${docsPath}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docsPath}/swagger-ui-bundle.js"></script>
<script src="${docsPath}/${starterName}"></script>
</body>
</html>
`;

/** Only this origin's files; images may be data: URIs (Swagger UI's icons); the document is fetched from here. */
const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export function createApiDescription(routes: readonly RestRoute[]): ApiDescription {
  const swaggerDir = () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  /** The document (under the name of its path) and Swagger UI's files, each read and gzipped once. */
  const file = staticFiles(async (name) => {
    if (name === openApiPath) {
      const { version } = JSON.parse(await readFile(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
      return staticFile(Buffer.from(JSON.stringify(buildOpenApiDocument(version, routes))), 'application/json; charset=utf-8', true);
    }
    const asset = assets.get(name);
    return asset && staticFile(await readFile(path.join(swaggerDir(), name)), asset.type, asset.compressible);
  });
  /** The document's ETag: its digest, made with it. */
  let documentTag: string | undefined;

  return {
    route(pathname) {
      if (pathname === openApiPath || pathname === docsPath) return pathname;
      return pathname.startsWith(`${docsPath}/`) ? `${docsPath}/*` : undefined;
    },
    async respond(request, pathname) {
      if (pathname === openApiPath) {
        const document = (await file(openApiPath))!;
        documentTag ??= `"openapi-${createHash('sha256').update(document.body).digest('base64url').slice(0, 22)}"`;
        if (matchesEtag(request.headers.get('if-none-match'), documentTag)) return new Response(null, { status: 304, headers: { etag: documentTag } });
        return sendStatic(request, document, { 'cache-control': 'no-cache', etag: documentTag });
      }
      if (pathname === docsPath) return new Response(page, { status: 200, headers: pageHeaders });
      const name = pathname.slice(docsPath.length + 1);
      if (name === starterName) return new Response(starter, { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
      const asset = assets.has(name) ? await file(name) : undefined;
      if (asset === undefined) throw new HttpError(404, `no such file: ${docsPath}/${name.slice(0, 200)}`);
      // Cached for a day: swagger-ui-dist's files change only with a new release of the server.
      return sendStatic(request, asset, { 'cache-control': 'public, max-age=86400' });
    },
  };
}
