import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * `npm test` runs the whole suite twice: on SQLite, then on PostgreSQL (each test file gets its
 * own new database on the server in AIRDATE_TEST_POSTGRES_URL; see test/support/database.ts).
 * Without that variable the PostgreSQL run is one skipped test saying so, and with CI=true it is
 * one failing test: CI must never skip PostgreSQL silently.
 */
const postgresUrl = process.env.AIRDATE_TEST_POSTGRES_URL?.trim() || undefined;
const requirePostgres = process.env.CI === 'true' || process.env.CI === '1';
/** Files for one database only: `*.postgres.test.ts` needs the server, `*.sqlite.test.ts` a SQLite file. */
const onlyFor = { sqlite: 'test/**/*.postgres.test.ts', postgres: 'test/**/*.sqlite.test.ts' };
/** Printed last when the PostgreSQL run is skipped, so nobody mistakes a SQLite-only run for a full one. */
const skipNote = 'PostgreSQL tests skipped: AIRDATE_TEST_POSTGRES_URL is not set (see docs/postgres.md)';

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for Pothos and Yoga; Vite would pick the ES build for
    // our files. Two copies of graphql cannot share a schema, so everything gets the one Node uses.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    reporters: postgresUrl || requirePostgres ? ['default'] : ['default', { onTestRunEnd: () => void process.stdout.write(`${skipNote}\n`) }],
    // Each test file runs in its own process with its own database (see test/support/database.ts).
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: [onlyFor.sqlite],
          env: { AIRDATE_TEST_DATABASE: 'sqlite' },
          sequence: { groupOrder: 1 },
        },
      },
      postgresUrl
        ? {
            extends: true,
            test: {
              name: 'postgres',
              include: ['test/**/*.test.ts'],
              exclude: [onlyFor.postgres],
              env: { AIRDATE_TEST_DATABASE: 'postgres', AIRDATE_TEST_POSTGRES_URL: postgresUrl },
              sequence: { groupOrder: 2 },
            },
          }
        : {
            extends: true,
            test: {
              name: 'postgres',
              include: ['test/support/postgres-unavailable.check.ts'],
              env: { AIRDATE_TEST_POSTGRES_REQUIRED: requirePostgres ? '1' : '' },
              sequence: { groupOrder: 2 },
            },
          },
    ],
  },
});
