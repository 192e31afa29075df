import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Agenda, JobParameters } from 'agenda';
import { afterEach } from 'vitest';
import { createAgenda, type CreateAgendaProps } from '../../../src/jobs/create-agenda.ts';

/** A job store the contract runs against. */
export interface JobStoreUnderTest {
  /** MongoDB address, or undefined for the application's database (opened by the test file). */
  mongodbUrl?: string;
  /** Environment for a worker in another process on the same store (its database settings). */
  childEnv: Record<string, string>;
}

/** Agenda options for tests: fast polling, small lock limits so that workers share the work. */
export type TestAgendaProps = Partial<Omit<CreateAgendaProps, 'mongodbUrl'>>;

/** A job name no other test uses (tests share one store and never purge it). */
export const jobName = (label: string): string => `${label}-${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds; fails naming `what` after `timeoutMs` (a limit, not a measurement). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Agendas on `store`, stopped after each test. */
export function agendaFactory(store: () => JobStoreUnderTest): (props?: TestAgendaProps) => Agenda {
  const made: Agenda[] = [];
  afterEach(async () => {
    for (const agenda of made.splice(0)) {
      // Started first so that stop() also closes a MongoDB client the instance opened.
      await agenda.start();
      await agenda.stop();
    }
  });
  return (props = {}) => {
    const agenda = createAgenda({ mongodbUrl: store().mongodbUrl, pollMs: 50, defaultLockLimit: 10, ...props });
    made.push(agenda);
    return agenda;
  };
}

/** The stored job, read through the store's repository. */
export async function storedJob(agenda: Agenda, id: unknown): Promise<JobParameters | null> {
  await agenda.ready;
  return agenda.db.getJobById(String(id));
}

/** The stored jobs named `name`. */
export async function storedJobs(agenda: Agenda, name: string): Promise<JobParameters[]> {
  await agenda.ready;
  return (await agenda.db.queryJobs({ name })).jobs;
}

/** A worker process: runs `jobName` jobs and prints `ran <data.n>` for each run it starts. */
export interface ChildWorker {
  /** Numbers printed so far. */
  runs: number[];
  /** Lets running jobs finish, stops the worker and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills the worker outright (SIGKILL), as a crash would, and waits for it to be gone. */
  kill(): Promise<void>;
}

const childScript = fileURLToPath(new URL('./job-worker-child.ts', import.meta.url));

/** Starts a worker process on `store` (with a lock lifetime of `lockMs`, if given) and waits until it polls. */
export async function startChildWorker(store: JobStoreUnderTest, name: string, jobMs: number, lockMs?: number): Promise<ChildWorker> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
    env: {
      ...process.env,
      ...store.childEnv,
      AIRDATE_LOG_LEVEL: 'silent',
      JOB_WORKER_MONGODB_URL: store.mongodbUrl ?? '',
      JOB_WORKER_JOB: name,
      JOB_WORKER_JOB_MS: String(jobMs),
      JOB_WORKER_LOCK_MS: lockMs === undefined ? '' : String(lockMs),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const runs: number[] = [];
  let output = '';
  let errors = '';
  let ready = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const lines = output.split('\n');
    output = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') ready = true;
      else if (line.startsWith('ran ')) runs.push(Number(line.slice(4)));
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (errors += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let exitCode: number | null | undefined;
  void exited.then((code) => void (exitCode = code));
  await waitFor('the worker process to start', () => {
    if (exitCode !== undefined) throw new Error(`worker process exited (${exitCode}): ${errors}`);
    return ready;
  }, 30_000);
  return {
    runs,
    stop: async () => {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`worker process exited with ${code}: ${errors}`);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
