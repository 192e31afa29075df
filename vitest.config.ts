import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
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
/**
 * Test files that touch no database (no database, process, browser or job helpers, no app, no
 * client): the feed rules, parsers, the calendar writer, password hashing, webhook signing… They
 * test the same thing on either database, so the PostgreSQL run leaves them out (they run once).
 */
const usesDatabase = /support\/(database|processes|server-processes|browser|jobs|oidc-sign-in|home-assistant)\.ts|src\/db\/|createApp|openDatabase/;
const databaseFree = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !usesDatabase.test(readFileSync(`test/${file}`, 'utf8')))
  .map((file) => `test/${file}`);

/**
 * Test files run at once. Much of a file's time is spent waiting — on fsyncs, PostgreSQL commits,
 * child processes, a browser — not computing: on two cores, two workers left the CPU half idle
 * (load average ~1.5), four overloaded it (~9, and the slowest tests passed their timeouts).
 * One more than the cores, three at least; AIRDATE_TEST_WORKERS sets it.
 */
const workers = Number(process.env.AIRDATE_TEST_WORKERS) || Math.max(3, availableParallelism() + 1);

/**
 * Each test file runs in a new process that loads the server's dependencies again (graphql-yoga,
 * Pothos, Prisma's runtime, pino…). Node's compile cache (Node 22.1+) keeps V8's compiled code of
 * those modules on disk for the next process; the worker processes inherit the variable. It saves
 * ~3 % of a file's start (most of it is our own modules, evaluated by vitest, which it does not
 * reach). Set it yourself to put the cache elsewhere.
 */
process.env.NODE_COMPILE_CACHE ??= path.join(tmpdir(), 'airdate-test-compile-cache');

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
    maxWorkers: workers,
    minWorkers: 1,
    // Every REST response the suite sees is checked against the OpenAPI document (README "API description").
    setupFiles: ['test/support/openapi-setup.ts'],
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
              exclude: [onlyFor.postgres, ...databaseFree],
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
