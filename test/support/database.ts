import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';

/**
 * Which database this test run uses. `npm test` runs the suite twice (vitest.config.ts): once on
 * SQLite and once with AIRDATE_TEST_DATABASE=postgres on the server in AIRDATE_TEST_POSTGRES_URL.
 */
export function testDatabaseKind(): 'sqlite' | 'postgres' {
  return process.env.AIRDATE_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
}

/** The PostgreSQL server tests may create databases on, or undefined when there is none. */
export function testPostgresUrl(): string | undefined {
  const url = process.env.AIRDATE_TEST_POSTGRES_URL?.trim();
  return url === undefined || url === '' ? undefined : url;
}

function requirePostgresUrl(): string {
  const url = testPostgresUrl();
  if (!url) throw new Error('AIRDATE_TEST_DATABASE=postgres needs AIRDATE_TEST_POSTGRES_URL (a postgres:// URL of a server where tests may create databases)');
  return url;
}

/** Runs `work` with a connection to the test server's own database (the one in its URL). */
async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: requirePostgresUrl(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty, uniquely named database on the test server and returns its URL; `drop` removes
 * it (closing any connection left open). Names start with the server URL's database name, so a CI
 * run can remove whatever a crashed test left behind (see .ci/run).
 */
export async function createPostgresDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const server = new URL(requirePostgresUrl());
  const prefix = (decodeURIComponent(server.pathname.slice(1)) || 'airdate').replace(/[^a-z0-9_]/gi, '_').toLowerCase().slice(0, 30);
  const name = `${prefix}_t${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(async (client) => void (await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}

/** Databases made by `freshDatabaseEnv` in this test file, dropped after its tests. */
const dropAfterFile: (() => Promise<void>)[] = [];
// Registered when a test file imports this module, so it also covers databases made inside tests
// (where afterAll cannot be called); it runs after the file's own afterAll hooks (stack order).
afterAll(async () => {
  for (const drop of dropAfterFile.splice(0)) await drop();
});

/**
 * Environment for a new, empty database of the kind under test, removed after the calling file's
 * tests: nothing for SQLite (the database lives in the data folder), DATABASE_URL for PostgreSQL.
 * May be called at the top of a test file or inside a test.
 */
export async function freshDatabaseEnv(): Promise<Record<string, string>> {
  if (testDatabaseKind() === 'sqlite') return {};
  const database = await createPostgresDatabase();
  dropAfterFile.push(database.drop);
  return { DATABASE_URL: database.url };
}

/**
 * Gives the calling test file its own data folder and migrated database (a SQLite file in the
 * folder, or a new PostgreSQL database when AIRDATE_TEST_DATABASE=postgres), opened as the process
 * database (`db()`), removed after the file's tests. Tests then work in fresh accounts (see
 * factories.ts) instead of truncating tables.
 */
export async function useTestDatabase(env: Record<string, string> = {}): Promise<Config> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-test-'));
  const databaseEnv = await freshDatabaseEnv();
  const config = loadConfig({ AIRDATE_DATA_DIR: dataDir, AIRDATE_LOG_LEVEL: 'silent', ...databaseEnv, ...env });
  await openDatabase(config, { migrate: true });
  // Runs before the database is dropped (vitest runs afterAll hooks in reverse order).
  afterAll(async () => {
    await closeDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return config;
}

/** A test database and the whole app built on it, for in-process HTTP tests (`app.fetch`). */
export async function useTestApp(env: Record<string, string> = {}, options: AppOptions = {}): Promise<{ app: App; config: Config }> {
  const config = await useTestDatabase(env);
  const app = await createApp(config, options);
  // As the server does once it listens: the offline catalog stored, the job store connected.
  await app.started;
  // Registered after useTestDatabase's hook, so it runs first: jobs stop before the database closes.
  afterAll(() => app.jobs.stop(2_000));
  return { app, config };
}
