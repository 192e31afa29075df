import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { jobStoreContract } from './job-store-contract.ts';

/**
 * The job store contract on MongoDB (@agendajs/mongo-backend), when AIRDATE_TEST_MONGODB_URL
 * names a server where tests may create databases; otherwise its tests are reported as skipped.
 * Each run uses its own database (the SQLite and PostgreSQL projects may both run this file at
 * once), dropped afterwards.
 */
const serverUrl = process.env.AIRDATE_TEST_MONGODB_URL?.trim() || undefined;
const skipReason = 'skipped: AIRDATE_TEST_MONGODB_URL is not set';
if (!serverUrl) console.log(`MongoDB job store tests ${skipReason}`);

/** `url` with its database replaced by `name` (keeps hosts, credentials and options; works for seed lists). */
function withDatabase(url: string, name: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/.exec(url);
  if (!match) throw new Error('AIRDATE_TEST_MONGODB_URL must be a mongodb:// or mongodb+srv:// URL');
  return `${match[1]}/${name}${match[3] ?? ''}`;
}

const databaseName = `airdate_jobs_t${process.pid}_${randomBytes(4).toString('hex')}`;
const mongodbUrl = serverUrl ? withDatabase(serverUrl, databaseName) : undefined;

afterAll(async () => {
  if (!mongodbUrl) return;
  const client = await MongoClient.connect(mongodbUrl);
  try {
    await client.db().dropDatabase();
  } finally {
    await client.close();
  }
});

describe.skipIf(!mongodbUrl)(`MongoDB job store${mongodbUrl ? '' : ` (${skipReason})`}`, () => {
  jobStoreContract(() => ({ mongodbUrl, childEnv: {} }));
});

// Runs without a server: the MongoDB path is chosen by AIRDATE_MONGODB_URL and reports an
// unreachable server as Agenda 'error' events while it keeps trying, instead of crashing.
describe('MongoDB job store without a server', () => {
  it('loads the MongoDB backend on demand and reports an unreachable server as an error event', async () => {
    const { createAgenda } = await import('../../src/jobs/create-agenda.ts');
    const agenda = createAgenda({ mongodbUrl: 'mongodb://127.0.0.1:9/airdate?serverSelectionTimeoutMS=200', pollMs: 100 });
    const error = await new Promise<Error>((resolve) => agenda.once('error', resolve));
    expect(error.message).toMatch(/cannot reach MongoDB for jobs \(trying again in \d+ ms\)/);
  });
});
