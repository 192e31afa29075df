import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding Airdate's package.json (and prisma/, schema.graphql). Found by walking up
 * from this module rather than by a fixed `../..`, because the same code runs from two places:
 * `src/paths.ts` under tsx (tests, the command line) and the one-file build `dist/main.js`
 * (`npm start`, see scripts/build.mjs).
 */
export const projectRoot: string = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'prisma'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no Airdate package.json with a prisma folder above ${start}`);
  }
}
