import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, openDatabase } from '../../src/db/client.ts';
import { migratePostgres, migrateSqlite, postgresMigrationsDir, readMigrations, sqliteMigrationsDir, type Migration } from '../../src/db/migrate.ts';
import { catalogLengths } from '../../src/limits.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { showToken } from '../../src/accounts/tokens.ts';
import { shortenText } from '../../src/value-bounds.ts';
import { createPostgresDatabase, testDatabaseKind } from '../support/database.ts';
import { call, graphql } from '../support/http.ts';
import { upload } from '../support/upload.ts';

/**
 * The one-time repair (migration 20261122000000_catalog_value_bounds) of catalog rows stored before
 * every way in was bounded: a database holding them is migrated, and then serves every account
 * again. SQLite could store a season past 32 bits (PostgreSQL's int4 cannot), so that part runs on
 * SQLite only; the texts, posters and dates are repaired on both, exactly as shortenText would.
 */

const repair = '20261122000000_catalog_value_bounds';
const before = (migrations: Migration[]) => migrations.slice(0, migrations.findIndex((migration) => migration.name === repair));
/**
 * Every migration but the repair: the schema today's server needs (later migrations add columns it
 * reads), with the rows as the old server left them. The repair changes no schema, so it can run last.
 */
const allButRepair = (migrations: Migration[]) => migrations.filter((migration) => migration.name !== repair);

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-repair-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const at = '2026-01-01T00:00:00.000+00:00';
const hugeTitle = `Huge ${'x'.repeat(1_000_000)}`;
const emojiTitle = '🎬'.repeat(600);
const cjkTitle = '語'.repeat(501);
const longOverview = 'o'.repeat(20_000);

/** Rows as an old server could have stored them, by table; ids fixed so the checks can name them. */
function oldRows(withOutOfRangeEpisodes: boolean): [string, Record<string, unknown>][] {
  const episode = (id: number, season: number, number: number, extra: Record<string, unknown> = {}) =>
    ['Episode', { id, showId: 2, season, number, title: `E${id}`, airDate: '2026-01-05', updatedAt: at, ...extra }] as [string, Record<string, unknown>];
  const watched = (id: number, accountId: number, episodeId: number): [string, Record<string, unknown>][] => [
    ['WatchState', { id, accountId, kind: 'episode', episodeId, watched: true, changedAt: at }],
    ['WatchEvent', { id, accountId, kind: 'episode', episodeId, watched: true, at }],
    ['Notification', { id, accountId, itemKey: `episode:${episodeId}`, kind: 'episode', webhookId: `msg_${id}`, payload: '{}', releaseDate: '2026-01-05' }],
    ['DeliveryAttempt', { id, notificationId: id, number: 1, at, url: 'https://hooks.example/', durationMs: 5, outcome: 'success' }],
  ];
  return [
    ['Account', { id: 1, name: 'importer', updatedAt: at }],
    ['Account', { id: 2, name: 'follower', updatedAt: at }],
    ['Show', { id: 1, tmdbId: 101, title: hugeTitle, overview: longOverview, poster: 'javascript:alert(1)', updatedAt: at }],
    ['Show', { id: 2, tmdbId: 102, title: 'Fine Show', poster: 'https://img.example/fine.jpg', updatedAt: at }],
    ['Movie', { id: 1, tmdbId: 201, title: cjkTitle, poster: `https://img.example/${'p'.repeat(1_100)}`, releaseDate: '9999-12-31', updatedAt: at }],
    ['Game', { id: 1, igdbId: 301, title: 'Fine Game', releaseDate: '1799-12-31', poster: 'HTTPS://IMG.EXAMPLE/G.JPG', updatedAt: at }],
    episode(1, 1, 1),
    episode(2, 1, 2, { title: emojiTitle, airDate: '0001-01-01' }),
    ...(withOutOfRangeEpisodes ? [episode(3, 2147483648, 1), episode(4, 1, 2147483648), episode(5, -1, 1), episode(6, 1.5, 3)] : []),
    ['LibraryItem', { id: 1, accountId: 1, kind: 'show', showId: 1, followed: true, updatedAt: at }],
    ['LibraryItem', { id: 2, accountId: 1, kind: 'movie', movieId: 1, followed: true, updatedAt: at }],
    ['LibraryItem', { id: 3, accountId: 2, kind: 'show', showId: 2, followed: true, updatedAt: at }],
    ...watched(1, 2, 1),
    ...(withOutOfRangeEpisodes ? watched(3, 1, 3) : []),
    ['ServerState', { id: 1, catalogVersion: 5 }],
  ];
}

/** INSERTs for `rows` with `?` placeholders, booleans as the database stores them. */
function inserts(rows: [string, Record<string, unknown>][], booleans: (value: boolean) => unknown) {
  return rows.map(([table, row]) => ({
    sql: `INSERT INTO "${table}" (${Object.keys(row).map((column) => `"${column}"`).join(', ')}) VALUES (${Object.keys(row).map(() => '?').join(', ')})`,
    values: Object.values(row).map((value) => (typeof value === 'boolean' ? booleans(value) : value)),
  }));
}

type Read = (sql: string) => Promise<Record<string, unknown>[]>;

/** What the repair must have left, read back through `read`. */
async function expectRepaired(read: Read) {
  const [show] = await read(`SELECT "title", "overview", "poster", "updatedAt" FROM "Show" WHERE "id" = 1`);
  // The SQL shortening and the one the runtime checks use give the same text.
  expect(show).toMatchObject({ title: shortenText(hugeTitle, catalogLengths.title), overview: shortenText(longOverview, catalogLengths.overview), poster: null });
  expect([...(show!.title as string)]).toHaveLength(catalogLengths.title);
  expect(String(show!.updatedAt)).not.toContain('2026-01-01');
  expect(await read(`SELECT "title", "poster", "updatedAt" FROM "Show" WHERE "id" = 2`)).toEqual([expect.objectContaining({ title: 'Fine Show', poster: 'https://img.example/fine.jpg' })]);
  expect(await read(`SELECT "title", "poster", "releaseDate" FROM "Movie" WHERE "id" = 1`)).toEqual([{ title: `${'語'.repeat(499)}…`, poster: null, releaseDate: null }]);
  // An upper-case scheme is still http(s): the poster stays; a date before 1800 goes.
  expect(await read(`SELECT "poster", "releaseDate" FROM "Game" WHERE "id" = 1`)).toEqual([{ poster: 'HTTPS://IMG.EXAMPLE/G.JPG', releaseDate: null }]);
  expect(await read(`SELECT "id", "title", "airDate" FROM "Episode" ORDER BY "id"`)).toEqual([
    { id: 1, title: 'E1', airDate: '2026-01-05' },
    { id: 2, title: shortenText(emojiTitle, catalogLengths.title), airDate: null },
  ]);
  expect(await read(`SELECT "catalogVersion" FROM "ServerState"`)).toEqual([{ catalogVersion: 6 }]);
}

const searchFine = '{ searchCatalog(query: "Fine Show") { ... on Show { title episodes { season number } } } }';

/** Runs `work` on an app over the database of `env`, migrated first or not. */
async function withApp(env: Record<string, string>, migrate: boolean, work: (app: Awaited<ReturnType<typeof createApp>>) => Promise<void>) {
  const config = loadConfig({ AIRDATE_LOG_LEVEL: 'silent', ...env });
  await openDatabase(config, { migrate });
  const app = await createApp(config);
  try {
    await work(app);
  } finally {
    await app.jobs.stop(2_000);
    await closeDatabase();
  }
}

/** The repaired database serves both accounts: feeds, search, and an export that imports again. */
async function expectServed(env: Record<string, string>) {
  await withApp(env, true, async (app) => {
    for (const accountId of [1, 2]) {
      const token = await showToken({ accountId });
      for (const route of ['/api/machine/summary', '/api/machine/widget', '/api/calendar.ics']) expect((await call(app, 'GET', route, { token })).status, route).toBe(200);
      const searched = await graphql(app, token, searchFine);
      expect(searched.json).toEqual({ data: { searchCatalog: [{ title: 'Fine Show', episodes: [{ season: 1, number: 1 }, { season: 1, number: 2 }] }] } });
    }
    // The importer's library (the shortened show, the movie) exports and imports again within bounds.
    const exported = await call(app, 'GET', '/api/export', { token: await showToken({ accountId: 1 }) });
    const other = await createAccount({ name: 'restorer' });
    const restored = await upload(app, '/api/import/airdate', await showToken({ accountId: other.id }), { 'export.json': new TextEncoder().encode(exported.text) });
    expect(restored).toMatchObject({ status: 200, json: { imported: { shows: 1, movies: 1 } } });
  });
}

describe.runIf(testDatabaseKind() === 'sqlite')('the catalog repair on SQLite', () => {
  it('removes episodes past 32 bits with everything that refers to them, shortens texts, drops bad posters and dates, and the server serves every account', async () => {
    const dataDir = mkdtempSync(path.join(folder, 'sqlite-'));
    const file = path.join(dataDir, 'airdate.db');
    const migrations = readMigrations(sqliteMigrationsDir);
    migrateSqlite(file, allButRepair(migrations));
    const seeded = new Database(file);
    for (const { sql, values } of inserts(oldRows(true), (value) => (value ? 1 : 0))) seeded.prepare(sql).run(...values);
    expect(seeded.prepare(`SELECT count(*) AS n FROM "Episode" WHERE "season" > 2147483647`).get()).toEqual({ n: 1 });
    seeded.close();
    // As the issue found it: a search for the show fails for everyone while the row is there.
    await withApp({ AIRDATE_DATA_DIR: dataDir }, false, async (app) => {
      const failed = await graphql(app, await showToken({ accountId: 2 }), searchFine);
      expect(failed.json.data).toBeNull();
      // GraphQL's Int cannot carry 2147483648: a fault the server masks ("Unexpected error.").
      expect(failed.json.errors).toHaveLength(1);
    });

    // The repair runs.
    expect(migrateSqlite(file, migrations)).toEqual([repair]);
    const db = new Database(file, { readonly: true });
    const read: Read = async (sql) => db.prepare(sql).all() as Record<string, unknown>[];
    try {
      await expectRepaired(read);
      // The follower's own watch, notification and delivery are kept; the ones of removed episodes are gone.
      for (const table of ['WatchState', 'WatchEvent', 'Notification', 'DeliveryAttempt']) expect(await read(`SELECT "id" FROM "${table}"`), table).toEqual([{ id: 1 }]);
      expect(await read(`SELECT "updatedAt" FROM "Show" WHERE "id" = 2`)).toEqual([{ updatedAt: at }]);
      // Written in the form Prisma writes (ISO with +00:00), so the feed loader reads it as any other.
      expect(String((await read(`SELECT "updatedAt" FROM "Show" WHERE "id" = 1`))[0]!.updatedAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    } finally {
      db.close();
    }
    await expectServed({ AIRDATE_DATA_DIR: dataDir });
  });
});

describe.runIf(testDatabaseKind() === 'postgres')('the catalog repair on PostgreSQL', () => {
  it('shortens texts and drops bad posters and dates, and the server serves every account', async () => {
    const database = await createPostgresDatabase();
    try {
      await migratePostgres(database.url, before(readMigrations(postgresMigrationsDir)));
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        for (const { sql, values } of inserts(oldRows(false), (value) => value)) {
          let index = 0;
          await client.query(sql.replace(/\?/g, () => `$${++index}`), values);
        }
        // Ids were given explicitly: move the sequences past them as the server's own inserts would.
        for (const table of ['Account', 'Show', 'Episode', 'Movie', 'Game', 'LibraryItem', 'WatchState', 'WatchEvent', 'Notification', 'DeliveryAttempt']) {
          await client.query(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT max("id") FROM "${table}"))`);
        }
        expect(await migratePostgres(database.url, readMigrations(postgresMigrationsDir))).toContain(repair);
        await expectRepaired(async (sql) => (await client.query(sql)).rows);
        expect((await client.query(`SELECT "updatedAt" FROM "Show" WHERE "id" = 2`)).rows[0].updatedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
      } finally {
        await client.end();
      }
      await expectServed({ AIRDATE_DATA_DIR: mkdtempSync(path.join(folder, 'pg-')), DATABASE_URL: database.url });
    } finally {
      await database.drop();
    }
  });
});
