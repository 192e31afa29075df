import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Response } from '@whatwg-node/fetch';
import { HttpError, jsonText } from '../../http/responses.ts';
import { projectRoot } from '../../paths.ts';
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

/** The Swagger UI files the page loads, and the starter script of ours (no inline script under the CSP). */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
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

export function createApiDescription(): ApiDescription {
  let document: Promise<string> | undefined;
  const files = new Map<string, Promise<Buffer>>();
  const swaggerDir = () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

  const documentText = () =>
    (document ??= readFile(path.join(projectRoot, 'package.json'), 'utf8').then((text) => JSON.stringify(buildOpenApiDocument((JSON.parse(text) as { version: string }).version))));

  const asset = (name: string): Promise<Buffer> => {
    let file = files.get(name);
    if (file === undefined) {
      file = readFile(path.join(swaggerDir(), name));
      files.set(name, file);
      file.catch(() => files.delete(name));
    }
    return file;
  };

  return {
    route(pathname) {
      if (pathname === openApiPath || pathname === docsPath) return pathname;
      return pathname.startsWith(`${docsPath}/`) ? `${docsPath}/*` : undefined;
    },
    async respond(_request, pathname) {
      if (pathname === openApiPath) return jsonText(200, await documentText(), { 'cache-control': 'no-cache' });
      if (pathname === docsPath) return new Response(page, { status: 200, headers: pageHeaders });
      const name = pathname.slice(docsPath.length + 1);
      if (name === starterName) return new Response(starter, { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
      const type = assets[name];
      if (type === undefined) throw new HttpError(404, `no such file: ${docsPath}/${name.slice(0, 200)}`);
      const body = await asset(name);
      return new Response(body as unknown as BodyInit, {
        status: 200,
        // Named after swagger-ui-dist's version, which only changes with a new release of the server.
        headers: { 'content-type': type, 'content-length': String(body.byteLength), 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' },
      });
    },
  };
}
