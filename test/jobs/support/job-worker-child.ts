/**
 * A second worker process for the job store contract (job-store-harness.ts starts it with tsx).
 * It opens the store the parent uses (the database from AIRDATE_DATA_DIR / DATABASE_URL, or
 * JOB_WORKER_MONGODB_URL), runs JOB_WORKER_JOB jobs, each taking JOB_WORKER_JOB_MS, printing
 * `ran <data.n>` as each starts, and stops gracefully when its stdin closes. JOB_WORKER_LOCK_MS
 * sets its lock lifetime (the default otherwise).
 */
import { loadConfig } from '../../../src/config.ts';
import { closeDatabase, openDatabase } from '../../../src/db/client.ts';
import { createAgenda } from '../../../src/jobs/create-agenda.ts';

const mongodbUrl = process.env.JOB_WORKER_MONGODB_URL || undefined;
const jobName = process.env.JOB_WORKER_JOB ?? '';
const jobMs = Number(process.env.JOB_WORKER_JOB_MS ?? '0');
const lockMs = process.env.JOB_WORKER_LOCK_MS ? Number(process.env.JOB_WORKER_LOCK_MS) : undefined;

if (!mongodbUrl) await openDatabase(loadConfig(process.env));
const agenda = createAgenda({ mongodbUrl, pollMs: 50, name: 'child', maxConcurrency: 5, defaultConcurrency: 5, defaultLockLimit: 5, defaultLockLifetime: lockMs });
agenda.define(jobName, async (job) => {
  process.stdout.write(`ran ${(job.attrs.data as { n: number }).n}\n`);
  await new Promise((resolve) => setTimeout(resolve, jobMs));
});
agenda.on('error', (error) => process.stderr.write(`${error.message}\n`));
await agenda.start();
process.stdout.write('ready\n');

process.stdin.resume();
process.stdin.on('end', () => {
  void (async () => {
    await agenda.drain();
    await agenda.stop();
    if (!mongodbUrl) await closeDatabase();
    process.exit(0);
  })();
});
