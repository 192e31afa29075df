import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Response } from '@whatwg-node/fetch';
import { HttpError } from '../http/responses.ts';
import { sendStatic, staticFile, type StaticFile } from '../http/static-file.ts';

/**
 * The GraphiQL page (`GET /graphql` from a browser) and its files under `/graphiql/<version>/`,
 * all served by this server: Yoga's own page loads its scripts and Monaco's workers from a
 * third-party CDN, unchecked, on the app's origin (and fails without internet access). The
 * files are the ones `@graphql-yoga/render-graphiql` ships (the same GraphiQL build, as strings),
 * loaded on the first visit. The page runs under a Content-Security-Policy that lets nothing but
 * this origin's own files run or be fetched, and no page frame it.
 */
export interface GraphiQL {
  page(request: Request): Promise<Response>;
  /** A file under graphiqlAssetsPath (`path` starts with it); 404 for a name or version it does not have. */
  asset(request: Request, path: string): Promise<Response>;
}

/** Where the page's files are served; each build's files under a version of their own. */
export const graphiqlAssetsPath = '/graphiql/';

/**
 * What the page may load and do. Styles allow 'unsafe-inline': GraphiQL's editors (Monaco) and
 * React set style attributes and insert `<style>` elements as they run; no script but this
 * origin's files can run, so nothing can inject one.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const pageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': contentSecurityPolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/**
 * Ours, run after the page's body: tells Monaco where its workers are (files of this origin, not
 * blobs of fetched text), then loads GraphiQL and renders it with the page's options (a JSON
 * block: no inline script runs).
 */
const startScript = `(function () {
  var base = document.currentScript.src.replace(/start\\.js$/, '');
  var workers = { editorWorkerService: base + 'editor.worker.js', json: base + 'json.worker.js', graphql: base + 'graphql.worker.js' };
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (moduleId, label) { return workers[label]; } };
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  var script = document.createElement('script');
  script.src = base + 'yoga-graphiql.js';
  script.onload = function () { YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options); };
  document.body.appendChild(script);
})();
`;

interface Files {
  version: string;
  files: Map<string, StaticFile>;
}

/** GraphiQL with `options` (renderYogaGraphiQL's: title, endpoint, the headers editor's text…). */
export function createGraphiQL(options: { title: string; endpoint: string; headers: string }): GraphiQL {
  let loaded: Promise<Files> | undefined;
  const load = (): Promise<Files> => {
    loaded ??= loadFiles().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
  // `<` escaped: the options cannot end the JSON block.
  const optionsJson = JSON.stringify(options).replace(/</g, '\\u003c');

  return {
    async page(request) {
      const { version } = await load();
      const base = `${graphiqlAssetsPath}${version}/`;
      const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="${base}favicon.ico">
<link rel="stylesheet" href="${base}graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script type="application/json" id="graphiql-options">${optionsJson}</script>
<script src="${base}start.js"></script>
</body>
</html>
`;
      return new Response(request.method === 'HEAD' ? null : html, { status: 200, headers: pageHeaders });
    },
    async asset(request, path) {
      const { version, files } = await load();
      const [given, name, ...rest] = path.slice(graphiqlAssetsPath.length).split('/');
      const file = given === version && name !== undefined && rest.length === 0 ? files.get(name) : undefined;
      if (!file) throw new HttpError(404, `no such file: ${path.slice(0, 200)}`);
      return sendStatic(request, file, { 'cache-control': 'public, max-age=31536000, immutable' });
    },
  };
}

/**
 * The package's files, each kept gzipped too, under a version naming their content. They come as
 * JSON string literals, one `exports.<name> = "…";` line each, in the package's CommonJS module:
 * read as data rather than run, so that the 9 MB of source and its strings (~38 MB when the module
 * is imported, and an ES module can never be let go of) are garbage once the files are copied.
 */
async function loadFiles(): Promise<Files> {
  const file = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql/graphiql');
  const built = new Map<string, string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const match = /^exports\.(\w+) = (".*");$/.exec(line);
    if (match) built.set(match[1]!, JSON.parse(match[2]!) as string);
  }
  const text = (name: string): string => {
    const found = built.get(name);
    if (found === undefined) throw new Error(`${file} holds no ${name}: @graphql-yoga/render-graphiql changed its layout`);
    return found;
  };
  const javascript = 'text/javascript; charset=utf-8';
  const sources: [string, string | Buffer, string][] = [
    ['yoga-graphiql.js', text('js'), javascript],
    ['graphiql.css', text('css'), 'text/css; charset=utf-8'],
    ['editor.worker.js', text('editorWorkerService'), javascript],
    ['json.worker.js', text('jsonWorker'), javascript],
    ['graphql.worker.js', text('graphqlWorker'), javascript],
    ['start.js', startScript, javascript],
    ['favicon.ico', Buffer.from(text('favicon').replace(/^data:[^,]*;base64,/, ''), 'base64'), 'image/x-icon'],
  ];
  const hash = createHash('sha256');
  for (const [, content] of sources) hash.update(content);
  const files = new Map<string, StaticFile>();
  for (const [name, content, type] of sources) files.set(name, await staticFile(Buffer.from(content), type, !name.endsWith('.ico')));
  return { version: hash.digest('base64url').slice(0, 16), files };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
