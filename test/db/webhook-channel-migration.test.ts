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
import { showToken } from '../../src/accounts/tokens.ts';
import { createPostgresDatabase, testDatabaseKind } from '../support/database.ts';
import { graphql } from '../support/http.ts';

/**
 * Migrations 20261128194900_webhook_channel and …_account_webhook_moved: the account's signed
 * webhook (its URL, its turned-off state after a 410, its delivery log) becomes a notification
 * channel, and the server seals the URL the migration could only copy in the clear.
 */

const moved = '20261128194900_webhook_channel';
const before = (migrations: Migration[]) => migrations.slice(0, migrations.findIndex((migration) => migration.name === moved));

const folder = mkdtempSync(path.join(tmpdir(), 'airdate-webhook-channel-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const at = '2026-11-20T10:00:00.000+00:00';
const activeUrl = 'https://ha.example.lan/api/webhook/secret-hook-id-4417';
const goneUrl = 'https://gone.example.com/hook';

/** Accounts as the server before channels stored them: one webhook on, one turned off by a 410, one without. */
const oldRows: [string, Record<string, unknown>][] = [
  ['Account', { id: 1, name: 'active', webhookUrl: activeUrl, updatedAt: at }],
  ['Account', { id: 2, name: 'gone', webhookUrl: goneUrl, webhookDisabledAt: at, webhookDisabledReason: 'the receiver answered 410 Gone on 2026-11-20T10:00:00.000Z', updatedAt: at }],
  ['Account', { id: 3, name: 'none', updatedAt: at }],
  ['Notification', { id: 1, accountId: 1, itemKey: 'movie:7', kind: 'movie', webhookId: 'msg_1', payload: '{"type":"movie"}', releaseDate: '2026-11-20', status: 'delivered' }],
  ['Notification', { id: 2, accountId: 2, itemKey: 'movie:7', kind: 'movie', webhookId: 'msg_2', payload: '{"type":"movie"}', releaseDate: '2026-11-20', status: 'failed' }],
  ['DeliveryAttempt', { id: 1, notificationId: 1, number: 1, at, url: activeUrl, durationMs: 5, outcome: 'success' }],
];

function inserts() {
  return oldRows.map(([table, row]) => ({
    sql: `INSERT INTO "${table}" (${Object.keys(row).map((column) => `"${column}"`).join(', ')}) VALUES (${Object.keys(row).map(() => '?').join(', ')})`,
    values: Object.values(row),
  }));
}

type Read = (sql: string) => Promise<Record<string, unknown>[]>;

async function expectMoved(read: Read) {
  const channels = await read(`SELECT "accountId", "kind", "targetEnc", "enabled", "disabledReason" FROM "NotificationChannel" ORDER BY "accountId"`);
  expect(channels.map((row) => ({ ...row, enabled: Boolean(row.enabled) }))).toEqual([
    { accountId: 1, kind: 'webhook', targetEnc: `plain:${activeUrl}`, enabled: true, disabledReason: null },
    { accountId: 2, kind: 'webhook', targetEnc: `plain:${goneUrl}`, enabled: false, disabledReason: 'the receiver answered 410 Gone on 2026-11-20T10:00:00.000Z' },
  ]);
  const notifications = await read(`SELECT n."id", c."accountId" FROM "Notification" n JOIN "NotificationChannel" c ON c."id" = n."channelId" ORDER BY n."id"`);
  expect(notifications).toEqual([{ id: 1, accountId: 1 }, { id: 2, accountId: 2 }]);
}

const viewer = '{ viewer { webhookUrl webhookDisabledAt notificationChannels { kind destination enabled deliveries { databaseId deliveries { outcome } } } } }';

/** The migrated database served: each webhook as the account's setting and as a channel with its log; every URL sealed. */
async function expectServed(env: Record<string, string>, read: Read) {
  const config = loadConfig({ AIRDATE_LOG_LEVEL: 'silent', ...env });
  await openDatabase(config, { migrate: true });
  const app = await createApp(config);
  try {
    // Sealed as the server starts, before anything reads them.
    const stored = await read(`SELECT "targetEnc" FROM "NotificationChannel"`);
    expect(stored).toHaveLength(2);
    for (const row of stored) {
      expect(row.targetEnc).toMatch(/^v1\./);
      expect(row.targetEnc).not.toContain('secret-hook-id');
    }
    const active = await graphql(app, await showToken({ accountId: 1 }), viewer);
    expect(active.json.data.viewer).toEqual({
      webhookUrl: activeUrl,
      webhookDisabledAt: null,
      notificationChannels: [{ kind: 'webhook', destination: 'Signed webhook to https://ha.example.lan/…', enabled: true, deliveries: [{ databaseId: 1, deliveries: [{ outcome: 'success' }] }] }],
    });
    const gone = await graphql(app, await showToken({ accountId: 2 }), viewer);
    expect(gone.json.data.viewer).toMatchObject({ webhookUrl: goneUrl, webhookDisabledAt: '2026-11-20T10:00:00.000Z', notificationChannels: [{ enabled: false, deliveries: [{ databaseId: 2 }] }] });
    expect((await graphql(app, await showToken({ accountId: 3 }), viewer)).json.data.viewer).toEqual({ webhookUrl: null, webhookDisabledAt: null, notificationChannels: [] });
  } finally {
    await app.jobs.stop(2_000);
    await closeDatabase();
  }
}

describe.runIf(testDatabaseKind() === 'sqlite')('the webhook moved into a channel, on SQLite', () => {
  it('makes a webhook channel of each account’s webhook, keeps its log and its turned-off state, and the server seals the URL', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(path.join(folder, 'sqlite-'));
    const file = path.join(dataDir, 'airdate.db');
    const migrations = readMigrations(sqliteMigrationsDir);
    migrateSqlite(file, before(migrations));
    const seeded = new Database(file);
    for (const { sql, values } of inserts()) seeded.prepare(sql).run(...values);
    seeded.close();
    expect(migrateSqlite(file, migrations)).toContain(moved);
    // A connection per read: the server writes the file in between.
    const read: Read = async (sql) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    };
    await expectMoved(read);
    await expectServed({ AIRDATE_DATA_DIR: dataDir }, read);
  });
});

describe.runIf(testDatabaseKind() === 'postgres')('the webhook moved into a channel, on PostgreSQL', () => {
  it('makes a webhook channel of each account’s webhook, keeps its log and its turned-off state, and the server seals the URL', { timeout: 90_000 }, async () => {
    const database = await createPostgresDatabase();
    const client = new pg.Client({ connectionString: database.url });
    try {
      await migratePostgres(database.url, before(readMigrations(postgresMigrationsDir)));
      await client.connect();
      for (const { sql, values } of inserts()) {
        let index = 0;
        await client.query(sql.replace(/\?/g, () => `$${++index}`), values);
      }
      for (const table of ['Account', 'Notification', 'DeliveryAttempt']) {
        await client.query(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT max("id") FROM "${table}"))`);
      }
      expect(await migratePostgres(database.url, readMigrations(postgresMigrationsDir))).toContain(moved);
      const read: Read = async (sql) => (await client.query(sql)).rows;
      await expectMoved(read);
      await expectServed({ AIRDATE_DATA_DIR: mkdtempSync(path.join(folder, 'pg-')), DATABASE_URL: database.url }, read);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
