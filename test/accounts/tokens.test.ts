import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initSecretKey } from '../../src/keys/secret-key.ts';
import { sha256Hex } from '../../src/keys/crypto.ts';
import { generateToken, isWellFormedToken } from '../../src/keys/token-format.ts';
import { closeDatabase, db, openDatabase, queryCounter, settleUnawaitedWrites } from '../../src/db/client.ts';
import { NotFoundError } from '../../src/errors.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import {
  authenticateToken,
  regenerateToken,
  showToken,
  showWebhookSecret,
} from '../../src/accounts/tokens.ts';
import { useTestDatabase } from '../support/database.ts';

const config = await useTestDatabase();
initSecretKey(config);

/**
 * The SQL statements `work` sends, counted where the driver adapter hands each one to the driver:
 * better-sqlite3's prepare, or pg's Client#query (pooled connections are pg Clients). The adapter
 * may bundle its own copy of the driver, so the driver is resolved from the adapter.
 */
async function makeAccount() {
  return createAccount({ name: `user-${randomUUID().slice(0, 8)}` });
}

afterEach(async () => {
  vi.useRealTimers();
  await settleUnawaitedWrites();
});

describe('showToken', () => {
  it('creates a well-formed token on first view and shows the same one afterwards', async () => {
    const account = await makeAccount();
    expect(await db().apiToken.count({ where: { accountId: account.id } })).toBe(0);
    const token = await showToken({ accountId: account.id });
    expect(isWellFormedToken(token)).toBe(true);
    expect(await showToken({ accountId: account.id })).toBe(token);
    expect(await db().apiToken.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('gives concurrent first views one token', async () => {
    const account = await makeAccount();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => showToken({ accountId: account.id })));
    expect(new Set(tokens).size).toBe(1);
    expect(await db().apiToken.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('gives different accounts different tokens', async () => {
    const [first, second] = [await makeAccount(), await makeAccount()];
    expect(await showToken({ accountId: first.id })).not.toBe(await showToken({ accountId: second.id }));
  });

  it('refuses an unknown account', async () => {
    await expect(showToken({ accountId: 999_999 })).rejects.toThrow(NotFoundError);
  });

  it('stores no plaintext token: not in the row, not in the database files', async () => {
    const account = await makeAccount();
    const token = await showToken({ accountId: account.id });
    const randomPart = token.slice(4, 36);
    const rows = await db().$queryRaw<Record<string, unknown>[]>`SELECT * FROM "ApiToken" WHERE "accountId" = ${account.id}`;
    expect(rows).toHaveLength(1);
    const rowText = JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    expect(rowText).not.toContain(randomPart);
    expect(rowText).not.toContain('adt_');
    for (const suffix of ['', '-wal']) {
      let bytes: string;
      try {
        bytes = readFileSync(`${config.database.kind === 'sqlite' ? config.database.file : ''}${suffix}`, 'latin1');
      } catch {
        continue;
      }
      expect(bytes.includes(randomPart), `airdate.db${suffix}`).toBe(false);
    }
  });
});

describe('regenerateToken', () => {
  it('returns a new token; the old one fails at once and the new one works', async () => {
    const account = await makeAccount();
    const old = await showToken({ accountId: account.id });
    expect(await authenticateToken(old)).not.toBeNull();
    const fresh = await regenerateToken({ accountId: account.id });
    expect(fresh).not.toBe(old);
    expect(isWellFormedToken(fresh)).toBe(true);
    expect(await authenticateToken(old)).toBeNull();
    expect(await authenticateToken(fresh)).toMatchObject({ id: account.id });
    expect(await showToken({ accountId: account.id })).toBe(fresh);
    const row = await db().apiToken.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(row.rotatedAt).toBeInstanceOf(Date);
  });

  it('creates the first token when none was viewed yet', async () => {
    const account = await makeAccount();
    const token = await regenerateToken({ accountId: account.id });
    expect(await showToken({ accountId: account.id })).toBe(token);
  });

  it('refuses an unknown account', async () => {
    await expect(regenerateToken({ accountId: 999_999 })).rejects.toThrow(NotFoundError);
  });
});

describe('authenticateToken', () => {
  it('returns the account with its feed, calendar and catalog versions, and the token it came with by its digest', async () => {
    const account = await makeAccount();
    await db().account.update({ where: { id: account.id }, data: { feedVersion: 7, calendarVersion: 3, timezone: 'Europe/Berlin' } });
    const token = await showToken({ accountId: account.id });
    // No ServerState row yet counts as catalog version 0.
    await db().serverState.deleteMany();
    expect(await authenticateToken(token)).toEqual({
      id: account.id,
      name: account.name,
      timezone: 'Europe/Berlin',
      feedVersion: 7,
      calendarVersion: 3,
      catalogVersion: 0,
      summaryProfile: 'full',
      credential: { kind: 'token', digest: sha256Hex(token) },
    });
    await db().serverState.create({ data: { id: 1, catalogVersion: 42 } });
    expect((await authenticateToken(token))?.catalogVersion).toBe(42);
  });

  it('rejects malformed tokens without querying the database', async () => {
    const account = await makeAccount();
    const token = await showToken({ accountId: account.id });
    const broken = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11);
    // With the database closed, any query would throw instead of returning null.
    await closeDatabase();
    try {
      for (const candidate of ['', 'garbage', `Bearer ${token}`, token.toUpperCase(), broken, `${token} `]) {
        expect(await authenticateToken(candidate), candidate).toBeNull();
      }
      await expect(authenticateToken(token)).rejects.toThrow(/not open/);
    } finally {
      await openDatabase(config);
    }
    expect(await authenticateToken(token)).toMatchObject({ id: account.id });
  });

  it('rejects a well-formed token nobody holds', async () => {
    expect(await authenticateToken(generateToken())).toBeNull();
  });

  it('writes lastUsedAt on first use, then at most once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2030-01-01T10:00:00.000Z');
    vi.setSystemTime(start);
    const account = await makeAccount();
    const token = await showToken({ accountId: account.id });
    const lastUsedAt = async () => {
      await settleUnawaitedWrites();
      return (await db().apiToken.findUniqueOrThrow({ where: { accountId: account.id } })).lastUsedAt?.toISOString();
    };
    expect(await lastUsedAt()).toBeUndefined();

    await authenticateToken(token);
    expect(await lastUsedAt()).toBe('2030-01-01T10:00:00.000Z');

    vi.setSystemTime(new Date(start.getTime() + 59_000));
    await authenticateToken(token);
    expect(await lastUsedAt()).toBe('2030-01-01T10:00:00.000Z');

    vi.setSystemTime(new Date(start.getTime() + 60_000));
    await authenticateToken(token);
    expect(await lastUsedAt()).toBe('2030-01-01T10:01:00.000Z');
  });

  it('runs exactly one SQL statement per request once lastUsedAt is fresh', async () => {
    const account = await makeAccount();
    const token = await showToken({ accountId: account.id });
    await authenticateToken(token); // writes lastUsedAt
    await settleUnawaitedWrites();
    // queryCounter counts every statement: Prisma's and the driver-level reader's.
    const before = queryCounter();
    expect(await authenticateToken(token)).toMatchObject({ id: account.id });
    await settleUnawaitedWrites();
    expect(queryCounter() - before).toBe(1);
  });

  it('keeps a check only while nothing was committed: a commit of another connection (another process) is seen by the next check', async () => {
    const account = await makeAccount();
    const token = await showToken({ accountId: account.id });
    await authenticateToken(token); // writes lastUsedAt
    await settleUnawaitedWrites();
    await authenticateToken(token);
    const before = queryCounter();
    expect(await authenticateToken(token)).toMatchObject({ id: account.id });
    // SQLite: answered from the kept check (its data_version unchanged); PostgreSQL: read again.
    expect(queryCounter() - before).toBe(config.database.kind === 'sqlite' ? 0 : 1);
    // Commits made where this process's connections cannot see them being made.
    const other = await otherConnection();
    try {
      await other.run(`UPDATE "Account" SET "feedVersion" = "feedVersion" + 1 WHERE "id" = ${account.id}`);
      expect(await authenticateToken(token)).toMatchObject({ feedVersion: account.feedVersion + 1 });
      expect(Object.isFrozen(await authenticateToken(token))).toBe(true);
      // The token regenerated elsewhere (its digest replaced): refused at once.
      await other.run(`UPDATE "ApiToken" SET "digest" = 'replaced-${account.id}' WHERE "accountId" = ${account.id}`);
      expect(await authenticateToken(token)).toBeNull();
      // And back (an unknown digest is kept as refused until the next commit).
      const before = queryCounter();
      expect(await authenticateToken(token)).toBeNull();
      expect(queryCounter() - before).toBe(config.database.kind === 'sqlite' ? 0 : 1);
      await other.run(`UPDATE "ApiToken" SET "digest" = '${createHash('sha256').update(token).digest('hex')}' WHERE "accountId" = ${account.id}`);
      expect(await authenticateToken(token)).toMatchObject({ id: account.id });
    } finally {
      await other.close();
    }
  });
});

/** A connection of its own to the test database, as another server process would hold. */
async function otherConnection(): Promise<{ run(sql: string): Promise<void>; close(): Promise<void> }> {
  if (config.database.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const connection = new Database(config.database.file);
    connection.pragma('busy_timeout = 10000');
    return { run: async (sql) => void connection.exec(sql), close: async () => void connection.close() };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: config.database.url });
  await client.connect();
  return { run: async (sql) => void (await client.query(sql)), close: () => client.end() };
}

describe('showWebhookSecret', () => {
  it('creates a whsec_ secret on first view, stores it encrypted and shows it again', async () => {
    const account = await makeAccount();
    const secret = await showWebhookSecret({ accountId: account.id });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await showWebhookSecret({ accountId: account.id })).toBe(secret);
    const stored = await db().account.findUniqueOrThrow({ where: { id: account.id } });
    expect(stored.webhookSecretEnc).toMatch(/^v1\./);
    expect(stored.webhookSecretEnc).not.toContain(secret.slice(6));
  });

  it('gives concurrent first views one secret', async () => {
    const account = await makeAccount();
    const secrets = await Promise.all(Array.from({ length: 8 }, () => showWebhookSecret({ accountId: account.id })));
    expect(new Set(secrets).size).toBe(1);
  });

  it('refuses an unknown account', async () => {
    await expect(showWebhookSecret({ accountId: 999_999 })).rejects.toThrow(NotFoundError);
  });
});
