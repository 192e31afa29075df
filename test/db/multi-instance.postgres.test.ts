import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationError, migratePostgres, postgresMigrationsDir, readMigrations, type Migration } from '../../src/db/migrate.ts';
import { createPostgresDatabase } from '../support/database.ts';
import { runCli, startServer, type ServerProcess } from '../support/processes.ts';

// Several `serve` processes on one PostgreSQL database (decisions.md, "Storage, jobs and scale").

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function freshDatabase(): Promise<string> {
  const database = await createPostgresDatabase();
  cleanups.push(database.drop);
  return database.url;
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

function migration(name: string, sql: string): Migration {
  return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
}

describe('migratePostgres', () => {
  it('applies each migration once when several migrators race', async () => {
    const url = await freshDatabase();
    const names = readMigrations(postgresMigrationsDir).map((migration) => migration.name);
    const results = await Promise.all(Array.from({ length: 4 }, () => migratePostgres(url)));
    // One of them applied everything; the others waited for the lock and found nothing to do.
    expect(results.filter((applied) => applied.length > 0)).toEqual([names]);
    const rows = await query<{ name: string; steps: number; finished: boolean }>(
      url,
      `SELECT migration_name AS name, applied_steps_count AS steps, finished_at IS NOT NULL AS finished FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toEqual(names.map((name) => ({ name, steps: 1, finished: true })));
  });

  it('rolls a failing migration back whole and records nothing for it', async () => {
    const url = await freshDatabase();
    const first = migration('1_first', 'CREATE TABLE "Kept" ("id" INTEGER PRIMARY KEY);');
    const failing = migration('2_failing', 'CREATE TABLE "Half" ("id" INTEGER PRIMARY KEY); SELECT 1 / 0;');
    await expect(migratePostgres(url, [first, failing])).rejects.toThrow(/migration 2_failing failed: division by zero/);
    expect(await query(url, `SELECT to_regclass('"Kept"') IS NOT NULL AS kept, to_regclass('"Half"') IS NOT NULL AS half`)).toEqual([{ kept: true, half: false }]);
    expect(await query(url, `SELECT migration_name AS name FROM "_prisma_migrations"`)).toEqual([{ name: '1_first' }]);
  });

  it('refuses a migration that was edited after it was applied, and one it does not know', async () => {
    const url = await freshDatabase();
    const first = migration('1_first', 'CREATE TABLE "T" ("id" INTEGER PRIMARY KEY);');
    await migratePostgres(url, [first]);
    const edited = migration('1_first', 'CREATE TABLE "T" ("id" BIGINT PRIMARY KEY);');
    await expect(migratePostgres(url, [edited])).rejects.toThrow(new MigrationError('migration 1_first was changed after it was applied'));
    await expect(migratePostgres(url, [])).rejects.toThrow(/migrations this version does not know \(1_first\)/);
  });
});

describe('several serve processes on one database', () => {
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('start together (migrating once) and serve the same accounts; a regenerated token fails on all at once', { timeout: 90_000 }, async () => {
    const url = await freshDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airdate-multi-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    // One secret key for every instance, as a deployment behind a load balancer would configure.
    const env = { DATABASE_URL: url, AIRDATE_DATA_DIR: dataDir, AIRDATE_SECRET_KEY: 'a'.repeat(64), AIRDATE_LOG_LEVEL: 'warn' };
    servers.push(...(await Promise.all([startServer(env), startServer(env), startServer(env)])));
    const migrated = await query<{ name: string }>(url, `SELECT migration_name AS name FROM "_prisma_migrations"`);
    expect(migrated.map((row) => row.name)).toEqual(readMigrations(postgresMigrationsDir).map((migration) => migration.name));

    expect((await runCli(['user', 'create', 'shared'], env)).code).toBe(0);
    const token = (await runCli(['token', 'show', 'shared'], env)).stdout.trim();
    const summary = (server: ServerProcess, bearer: string) =>
      fetch(`${server.baseUrl}/api/machine/summary`, { headers: { authorization: `Bearer ${bearer}` } }).then((response) => response.status);
    expect(await Promise.all(servers.map((server) => summary(server, token)))).toEqual([200, 200, 200]);

    const regenerated = await fetch(`${servers[0]!.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { regenerateToken }' }),
    }).then((response) => response.json() as Promise<{ data: { regenerateToken: string } }>);
    const fresh = regenerated.data.regenerateToken;
    expect(await Promise.all(servers.map((server) => summary(server, token)))).toEqual([401, 401, 401]);
    expect(await Promise.all(servers.map((server) => summary(server, fresh)))).toEqual([200, 200, 200]);
  });
});
