import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { defineConfig } from 'prisma/config';

/**
 * Prisma CLI configuration for the derived PostgreSQL schema (scripts/derive-postgres-schema.ts),
 * to look at a PostgreSQL database with the CLI through the pg driver adapter, e.g.
 *   DATABASE_URL=postgres://… npx prisma migrate status --config prisma/postgres/prisma.config.ts
 * The server applies migrations itself (src/db/migrate.ts); never run `prisma migrate dev`.
 * Paths are relative to this file (the CLI tries to download engines when it cannot find them).
 */
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: path.join(import.meta.dirname, 'schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, 'migrations') },
  async adapter() {
    const connectionString = process.env.PRISMA_CLI_POSTGRES_URL ?? process.env.DATABASE_URL;
    if (!connectionString?.startsWith('postgres')) throw new Error('set DATABASE_URL (or PRISMA_CLI_POSTGRES_URL) to a postgres:// URL');
    return new PrismaPg(introspectablePool(connectionString));
  },
});

/**
 * System catalog types the pg adapter (6.19) cannot map (it fails with "Column type 'name' could
 * not be deserialized"), which introspection (`prisma db pull`) reads: pg returns them as strings,
 * so they are passed on as text (or text[]).
 */
const catalogTypesAsText: Record<number, number> = { 18: 25, 19: 25, 22: 25, 24: 25, 30: 25, 194: 25, 2205: 25, 2206: 25, 1002: 1009, 1003: 1009 };

function introspectablePool(connectionString: string): pg.Pool {
  // allowExitOnIdle: the CLI does not close the adapter, and idle connections would keep it running 10 s.
  const pool = new pg.Pool({ connectionString, allowExitOnIdle: true });
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
  (pool as unknown as { query: typeof query }).query = async (...args) => {
    const result = await query(...args);
    for (const field of result.fields ?? []) field.dataTypeID = catalogTypesAsText[field.dataTypeID] ?? field.dataTypeID;
    return result;
  };
  return pool;
}
