import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layout's rule (docs/development.md): a feature lives in one folder; the base imports no
 * feature; a feature imports the base and the features below it, never one above; nothing imports
 * the composition layer but the composition layer; no file takes part in an import cycle, type-only
 * imports included. The order of the features is this list, bottom first; a few pairs that would
 * run downwards are refused all the same (`forbiddenImports`).
 */
const features = ['catalog', 'accounts', 'feeds', 'library', 'calendar', 'statistics', 'export', 'imports', 'media-servers', 'notifications', 'sync', 'home-assistant'] as const;
/**
 * Pairs of features where the first may not import the second although it sits above it, each
 * with its reason (docs/development.md).
 */
const forbiddenImports: readonly { from: (typeof features)[number]; to: (typeof features)[number]; why: string }[] = [
  { from: 'notifications', to: 'imports', why: 'the sync (sync/) retries pending imports; notifications check releases and deliver' },
  { from: 'notifications', to: 'media-servers', why: 'the sync (sync/) retries unmatched media server deliveries; notifications check releases and deliver' },
];
/** The composition layer: wiring only. */
const composition = new Set(['main.ts', 'app.ts', 'router.ts', 'early-answers.ts', 'schema.ts', 'routes.ts', 'jobs.ts', 'print-schema.ts']);
const compositionFolders = ['cli/'];

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every relative import of every source file under `folder`, as paths relative to it. */
function importGraph(folder: string, extensions: RegExp): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => extensions.test(file) && !file.startsWith('generated/'));
  for (const file of files) {
    const text = readFileSync(path.join(root, folder, file), 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!));
      if (!target.startsWith('generated/') && !target.endsWith('.css')) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** 0: the base; 1…n: the features in order; Infinity: the composition layer. */
function layerOf(file: string): number {
  if (composition.has(file) || compositionFolders.some((folder) => file.startsWith(folder))) return Infinity;
  const index = (features as readonly string[]).indexOf(file.split('/')[0]!);
  return index === -1 ? 0 : index + 1;
}
const layerName = (layer: number) => (layer === 0 ? 'the base' : layer === Infinity ? 'the composition layer' : `feature ${features[layer - 1]}`);

/** The imports of `graph` that a forbidden pair refuses, each with its reason. */
function forbiddenImportsIn(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const pair = forbiddenImports.find((forbidden) => file.startsWith(`${forbidden.from}/`) && target.startsWith(`${forbidden.to}/`));
      if (pair) found.push(`${file} imports ${target}: ${pair.why}`);
    }
  }
  return found;
}

/** The import cycles of a graph (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the layout (docs/development.md)', () => {
  const source = importGraph('src', /\.ts$/);

  it('finds the source files and their imports (the check reads what it should)', () => {
    expect(source.get('app.ts')?.length).toBeGreaterThan(5);
    for (const feature of features) expect([...source.keys()].some((file) => file.startsWith(`${feature}/`)), feature).toBe(true);
  });

  it('has no import that runs up: the base imports no feature, a feature none above it, nothing the composition layer', () => {
    const upward: string[] = [];
    for (const [file, targets] of source) {
      for (const target of targets) {
        const from = layerOf(file);
        const to = layerOf(target);
        if (to > from) upward.push(`${file} (${layerName(from)}) imports ${target} (${layerName(to)})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import between features that the list of forbidden pairs refuses', () => {
    expect(forbiddenImportsIn(source)).toEqual([]);
  });

  it('has no import cycle in the server or the web app, type-only imports included', () => {
    expect(cycles(source)).toEqual([]);
    expect(cycles(importGraph('web/src', /\.tsx?$/))).toEqual([]);
  });

  it('bumps the feed, calendar and catalog versions only through src/db/stale-versions.ts (one rule of what a write makes stale)', () => {
    const bump = /"?(?:feed|calendar|catalog)Version"?\s*(?:=\s*"?(?:feed|calendar|catalog)Version"?\s*\+|:\s*\{\s*increment)/;
    const bumping = [...source.keys()].filter((file) => file !== 'db/stale-versions.ts' && bump.test(readFileSync(path.join(root, 'src', file), 'utf8')));
    expect(bumping).toEqual([]);
    expect(bump.test('"feedVersion" = "feedVersion" + 1')).toBe(true);
    expect(bump.test('{ calendarVersion: { increment: 1 } }')).toBe(true);
  });

  it('the check itself sees an upward import and a cycle', () => {
    expect(layerOf('catalog/provider.ts')).toBeLessThan(layerOf('notifications/releases.ts'));
    expect(layerOf('db/client.ts')).toBe(0);
    expect(layerOf('cli/run-command.ts')).toBe(Infinity);
    expect(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']], ['c.ts', ['a.ts']]]))).toEqual([['a.ts', 'b.ts']]);
    expect(forbiddenImportsIn(new Map([['notifications/channels/x.ts', ['media-servers/deliveries.ts', 'library/library.ts']], ['sync/sync-jobs.ts', ['imports/pending-imports.ts']]]))).toEqual([
      'notifications/channels/x.ts imports media-servers/deliveries.ts: the sync (sync/) retries unmatched media server deliveries; notifications check releases and deliver',
    ]);
  });
});
