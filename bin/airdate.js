#!/usr/bin/env node
// Entry point for global installs (`npm install -g`), whose install step builds dist/main.js
// (scripts/build.mjs). Without a build (a checkout nobody installed), the TypeScript sources run
// through tsx's loader, registered before anything is loaded (a static import would be hoisted).
import { existsSync } from 'node:fs';
import { requireSupportedNode } from './supported-runtime.js';

requireSupportedNode('airdate');

const built = new URL('../dist/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
