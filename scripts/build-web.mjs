// Builds the web app (web/) into dist/web with Vite: hashed file names under assets/ (served with
// long immutable caching by src/http/web-app.ts), index.html (the shell every app route answers)
// and .vite/manifest.json (what bench/web-size.ts reads to tell which files the first load fetches).
// JSX goes through esbuild with Preact's automatic runtime: @preact/preset-vite would add
// prefresh and devtools wiring that a production build does not use.
// Usage: node scripts/build-web.mjs [output folder]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds web/ into `outDir` (emptied first). */
export async function buildWebApp(outDir = path.join(root, 'dist/web')) {
  await build({
    root: path.join(root, 'web'),
    configFile: false,
    base: '/',
    logLevel: 'warn',
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    build: {
      outDir: path.resolve(outDir),
      emptyOutDir: true,
      manifest: true,
      target: 'es2022',
      // Every browser the app supports has <link rel=modulepreload>; the polyfill is dead weight.
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildWebApp(process.argv[2]);
