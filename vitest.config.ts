import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for Pothos and Yoga; Vite would pick the ES build for
    // our files. Two copies of graphql cannot share a schema, so everything gets the one Node uses.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file runs in its own process with its own database (see test/support/database.ts).
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
