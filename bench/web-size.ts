import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * `npm run bench:web`: the JavaScript a first visit downloads, gzipped, against the budget
 * of 150 KB. A first visit fetches the entry chunk and its static imports (the modulepreloads
 * index.html names), then the chunk of the page it lands on with that chunk's own imports; so
 * each route's first load is the entry's files plus its page's, counted once each.
 * Reads dist/web (built by `npm run build`); `--build` (or a missing dist/web) builds it first.
 */
export const budgetBytes = 150 * 1024;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

export interface RouteSize {
  /** The page's source module (web/src/pages/…), or "(entry only)". */
  route: string;
  files: string[];
  gzippedBytes: number;
}

/** Per page: the files its first load fetches and their gzipped size, largest first. */
export function measureFirstLoads(dir: string): RouteSize[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const withImports = (key: string, into: Set<string>): Set<string> => {
    const chunk = manifest[key];
    if (!chunk || into.has(chunk.file)) return into;
    into.add(chunk.file);
    chunk.imports?.forEach((imported) => withImports(imported, into));
    return into;
  };
  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entryKey) throw new Error(`no entry chunk in ${dir}/.vite/manifest.json`);
  const entryFiles = withImports(entryKey, new Set());
  const gzipped = (file: string) => gzipSync(readFileSync(path.join(dir, file)), { level: 9 }).byteLength;
  const measure = (route: string, files: Set<string>): RouteSize => {
    const list = [...files].filter((file) => file.endsWith('.js'));
    return { route, files: list, gzippedBytes: list.reduce((sum, file) => sum + gzipped(file), 0) };
  };
  const pages = (manifest[entryKey]!.dynamicImports ?? []).map((key) => measure(key, withImports(key, new Set(entryFiles))));
  return [measure('(entry only)', entryFiles), ...pages].sort((a, b) => b.gzippedBytes - a.gzippedBytes);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = path.join(root, 'dist/web');
  if (process.argv.includes('--build') || !existsSync(path.join(dir, '.vite/manifest.json'))) {
    const { buildWebApp } = await import('../scripts/build-web.mjs');
    await buildWebApp(dir);
  }
  const sizes = measureFirstLoads(dir);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log('First-load JavaScript, gzipped (entry + modulepreloads + the page chunk):');
  for (const size of sizes) console.log(`  ${kb(size.gzippedBytes).padStart(9)}  ${size.route}  (${size.files.length} files)`);
  const largest = sizes[0]!;
  const pass = largest.gzippedBytes <= budgetBytes;
  console.log(`${pass ? 'PASS' : 'FAIL'}: largest first load ${kb(largest.gzippedBytes)} (${largest.route}); budget ${kb(budgetBytes)}`);
  process.exitCode = pass ? 0 : 1;
}
