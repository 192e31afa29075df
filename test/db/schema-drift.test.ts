import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  derive,
  migrateDiff,
  migrationNames,
  migrationState,
  paths,
  prisma,
  sourceMatchesLastMigration,
  stateFile,
  toPostgres,
  withScratch,
} from '../../scripts/derive-postgres-schema.ts';
import { migratePostgres, migrateSqlite, postgresMigrationsDir, readMigrations, sqliteMigrationsDir, type Migration } from '../../src/db/migrate.ts';
import { createPostgresDatabase, testDatabaseKind } from '../support/database.ts';

/**
 * The one schema source (prisma/schema.prisma), the SQLite migrations written from it, and the
 * PostgreSQL schema and migrations derived from both (scripts/derive-postgres-schema.ts) must stay
 * in step. The checks that need no server run with the SQLite suite; applying the PostgreSQL
 * migrations runs with the PostgreSQL suite.
 */

const scratch = mkdtempSync(path.join(tmpdir(), 'airdate-drift-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let serial = 0;
const scratchFile = (name: string) => path.join(scratch, `${++serial}-${name}`);

/** Every file under `dir`, by path relative to it. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const child = path.join(relative, name);
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else files.set(child, readFileSync(path.join(dir, child), 'utf8'));
    }
  };
  walk('');
  return files;
}

/**
 * What `prisma db pull` reads from a database, as a datamodel file. A datasource-only schema is
 * given so that nothing of the source leaks into the result (plain introspection).
 */
async function introspect(kind: 'sqlite' | 'postgres', url: string): Promise<string> {
  const provider = kind === 'sqlite' ? 'sqlite' : 'postgresql';
  const bare = scratchFile('bare.prisma');
  writeFileSync(bare, `datasource db {\n  provider = "${provider}"\n  url      = "${kind === 'sqlite' ? 'file:./unused.db' : 'postgresql://unused/unused'}"\n}\n`);
  const args = ['db', 'pull', '--print', '--schema', bare];
  const { stdout } =
    kind === 'sqlite'
      ? await prisma(args, { PRISMA_CLI_SQLITE_URL: url })
      : await prisma([...args, '--config', path.join('prisma', 'postgres', 'prisma.config.ts')], { PRISMA_CLI_POSTGRES_URL: url });
  // The CLI prints a warning about the datasource url before the schema.
  const start = stdout.search(/^datasource /m);
  expect(start, stdout).toBeGreaterThanOrEqual(0);
  const pulled = scratchFile('pulled.prisma');
  writeFileSync(pulled, stdout.slice(start));
  return pulled;
}

/** The SQL that would turn the database described by `actual` into `expected`; '' when they are the same. */
async function difference(actual: string, expected: string): Promise<string> {
  const { sql, empty } = await migrateDiff(actual, expected);
  return empty ? '' : sql;
}

/**
 * Applies `migrations` one at a time to a new SQLite database and returns, per migration, what
 * separates the database from that migration's schema state ('' when nothing).
 */
async function sqliteStateDifferences(migrations: Migration[]): Promise<Record<string, string>> {
  const file = scratchFile('applied.db');
  const differences: Record<string, string> = {};
  for (let index = 0; index < migrations.length; index += 1) {
    const { name } = migrations[index]!;
    migrateSqlite(file, migrations.slice(0, index + 1));
    const state = path.join(sqliteMigrationsDir, name, stateFile);
    differences[name] = await difference(await introspect('sqlite', `file:${file}`), state);
  }
  return differences;
}

// Each check runs the Prisma CLI once per migration (seconds each), so they get more time than
// the suite's default: on a loaded machine three migrations already took over 20 s.
describe.runIf(testDatabaseKind() === 'sqlite').concurrent('schema source, SQLite migrations and the derived PostgreSQL files', { timeout: 300_000 }, () => {
  it('prisma/postgres is exactly what `npm run db:derive` writes', async () => {
    await withScratch(async (dir) => {
      await derive(dir);
      const fresh = tree(dir);
      const committed = tree(paths.postgresDir);
      committed.delete('prisma.config.ts'); // hand-written, not derived
      expect([...committed.keys()], 'files in prisma/postgres (run npm run db:derive)').toEqual([...fresh.keys()]);
      for (const [file, text] of fresh) expect(committed.get(file), `prisma/postgres/${file} is stale: run npm run db:derive`).toBe(text);
    });
  });

  it('both migration folders hold the same migrations, and each SQLite one keeps its schema state', () => {
    const sqlite = migrationNames(paths.sqliteMigrations);
    expect(sqlite.length).toBeGreaterThan(0);
    expect(migrationNames(path.join(paths.postgresDir, 'migrations'))).toEqual(sqlite);
    for (const name of sqlite) expect(() => migrationState(name)).not.toThrow();
    expect(readMigrations(postgresMigrationsDir).map((migration) => migration.name)).toEqual(readMigrations(sqliteMigrationsDir).map((migration) => migration.name));
  });

  it('the source has no database changes that no migration covers (else: npm run db:migration -- <name>)', async () => {
    expect(await sourceMatchesLastMigration()).toBe(true);
  });

  it('applying the SQLite migrations one by one to an empty database gives each migration’s schema state', async () => {
    const migrations = readMigrations(sqliteMigrationsDir);
    const differences = await sqliteStateDifferences(migrations);
    expect(differences).toEqual(Object.fromEntries(migrations.map((migration) => [migration.name, ''])));
  });

  it('catches a SQLite migration that does not give its state', async () => {
    const [first] = readMigrations(sqliteMigrationsDir);
    const index = /CREATE (UNIQUE )?INDEX [^;]*;/.exec(first!.sql)!;
    const broken = { ...first!, sql: first!.sql.replace(index[0], '') };
    const differences = await sqliteStateDifferences([broken]);
    expect(differences[first!.name]).toContain('CREATE');
  });
});

describe.runIf(testDatabaseKind() === 'postgres')('the derived PostgreSQL migrations on a real server', { timeout: 120_000 }, () => {
  it('applying them one by one to an empty database gives each migration’s schema state, the last being the derived schema', async () => {
    const database = await createPostgresDatabase();
    try {
      const migrations = readMigrations(postgresMigrationsDir);
      const differences: Record<string, string> = {};
      for (let index = 0; index < migrations.length; index += 1) {
        const { name } = migrations[index]!;
        await migratePostgres(database.url, migrations.slice(0, index + 1));
        const state = scratchFile('state.prisma');
        writeFileSync(state, toPostgres(migrationState(name), { header: '// state' }));
        differences[name] = await difference(await introspect('postgres', database.url), state);
      }
      expect(differences).toEqual(Object.fromEntries(migrations.map((migration) => [migration.name, ''])));
      const derived = path.join(paths.postgresDir, 'schema.prisma');
      expect(await difference(await introspect('postgres', database.url), derived)).toBe('');
    } finally {
      await database.drop();
    }
  });
});
