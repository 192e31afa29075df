#!/usr/bin/env node
// Entry point for global installs (`npm install -g`): the sources are TypeScript, run through
// tsx's loader, so register it before loading anything else (a static import would be hoisted).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
