import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file runs in its own process with its own database (see test/support/database.ts).
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
