import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, DatabaseError, openDatabase } from '../../src/db/client.ts';
import { testPostgresUrl } from '../support/database.ts';
import { runCli, type CliResult } from '../support/processes.ts';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `npm run airdate -- <args>` as an operator types it, with DATABASE_URL set. */
function npmAirdate(args: string[], databaseUrl: string): Promise<CliResult> {
  return runCli(args, { DATABASE_URL: databaseUrl, AIRDATE_DATA_DIR: path.join(tmpdir(), 'airdate-never-created') }, { viaNpm: true });
}

/** The test server's URL with another database or user. */
function serverUrl(change: (url: URL) => void): string {
  const url = new URL(testPostgresUrl()!);
  change(url);
  return url.toString();
}

async function openError(databaseUrl: string): Promise<unknown> {
  try {
    await openDatabase(loadConfig({ DATABASE_URL: databaseUrl, AIRDATE_LOG_LEVEL: 'silent' }), { migrate: true });
    await closeDatabase();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('a PostgreSQL server that cannot be used', () => {
  it('`npm run airdate -- migrate` prints one line and exits 1 when nothing listens there', async () => {
    const port = await closedPort();
    const result = await npmAirdate(['migrate'], `postgres://airdate:hunter2@127.0.0.1:${port}/airdate`);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `airdate: cannot connect to PostgreSQL at postgres://airdate@127.0.0.1:${port}/airdate: connection refused (is PostgreSQL running and listening there?)\n`,
    );
  });

  it('says so in one line when the database does not exist or the user is unknown', async () => {
    const missing = await openError(serverUrl((url) => (url.pathname = '/airdate_no_such_database')));
    expect(missing).toBeInstanceOf(DatabaseError);
    expect((missing as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/.*\/airdate_no_such_database: database "airdate_no_such_database" does not exist/);
    const stranger = await openError(serverUrl((url) => (url.username = 'airdate_no_such_role')));
    expect(stranger).toBeInstanceOf(DatabaseError);
    expect((stranger as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/airdate_no_such_role@.*: /);
    for (const error of [missing, stranger]) expect((error as Error).message).not.toContain('\n');
  });

  it('gives up within the connect timeout when the server does not answer', async () => {
    // A listener that accepts connections and never says anything, like a firewall black hole.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const error = await openError(`postgres://airdate@127.0.0.1:${port}/airdate`);
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as Error).message).toMatch(/no answer within 5 s$/);
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      silent.close();
    }
  });
});
