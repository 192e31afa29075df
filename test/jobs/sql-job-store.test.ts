import { describe } from 'vitest';
import type { Config } from '../../src/config.ts';
import { useTestDatabase } from '../support/database.ts';
import { jobStoreContract } from './job-store-contract.ts';

/**
 * The job store contract on the application's database: SQLite in the "sqlite" project,
 * PostgreSQL in the "postgres" one (useTestDatabase picks), workers in this process and another.
 */
const config: Config = await useTestDatabase();

describe(`SQL job store on ${config.database.kind}`, () => {
  jobStoreContract(() => ({
    childEnv: { AIRDATE_DATA_DIR: config.dataDir, ...(config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url } : {}) },
  }));
});
