import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';

/**
 * Prisma CLI configuration. The JS schema engine runs through a driver adapter, so no native
 * engine binary is downloaded. The CLI is used for `generate` and `migrate diff` at development
 * time; the server applies migrations itself (src/db/migrate.ts).
 */
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  async adapter() {
    // The CLI needs some database to talk to even for datamodel-only diffs; data/ may not exist yet.
    mkdirSync('data', { recursive: true });
    return new PrismaBetterSQLite3({ url: process.env.PRISMA_CLI_SQLITE_URL ?? 'file:./data/prisma-cli.db' });
  },
});
