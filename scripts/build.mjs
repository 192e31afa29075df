// `npm run build` (also run by `npm install` and before `npm start`): bundles the server's own
// sources into one ES module, dist/main.js, which plain `node` runs. Dependencies stay in
// node_modules (imported as they are); only TypeScript is compiled away. The server does not
// run under tsx in production: tsx's loader and its per-module transforms cost ~45 MB of RSS
// (measured by `npm run bench:import`: idle 201 → 156 MB), for nothing once the code is built.
// Type checking is `npm run typecheck`'s job; esbuild only strips types.
// Modules the server loads only once it listens (the job system, through a dynamic import in
// src/app.ts) go to chunk files beside main.js (code splitting), with the packages they import:
// a start does not load Agenda before it serves.
// Without an argument it also builds the web app into dist/web (scripts/build-web.mjs), after
// regenerating web/graphql-env.d.ts from schema.graphql; with an output file (the end-to-end tests'
// own builds) only the server is built.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { requireSupportedNode } from '../bin/supported-runtime.js';

// `npm install` and `npm start` both build first: an unsupported Node stops here, with a reason.
requireSupportedNode('airdate build');

const root = fileURLToPath(new URL('..', import.meta.url));
const serverOnly = process.argv[2];
// A path inside the project: the build finds prisma/ by walking up (src/paths.ts).
const outfile = path.resolve(root, serverOnly ?? 'dist/main.js');
const outdir = path.dirname(outfile);
const chunkPattern = /^chunk-[\w-]+\.js(\.map)?$/;

// Chunks of an earlier build (their names carry a hash of their content).
for (const entry of existsSync(outdir) ? readdirSync(outdir, { withFileTypes: true }) : []) {
  if (entry.isFile() && chunkPattern.test(entry.name)) rmSync(path.join(outdir, entry.name));
}

await build({
  absWorkingDir: root,
  // The import's reading worker (src/imports/read-off-loop.ts) runs a module of its own, beside main.js.
  entryPoints: { [path.basename(outfile, '.js')]: 'src/main.ts', 'import-worker': 'src/imports/import-worker.ts' },
  outdir,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

if (!serverOnly) {
  await import('./generate-graphql-env.mjs');
  const { buildWebApp } = await import('./build-web.mjs');
  await buildWebApp();
}
