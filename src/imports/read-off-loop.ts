import { Worker } from 'node:worker_threads';
import { AppError, InputError, NotFoundError, TooLargeError } from '../errors.ts';
import { importReading } from '../limits.ts';
import { ImportFileError } from './sources/import-document.ts';
import type { ReadUploads, ReadUploadsInput } from './read-uploads.ts';

/**
 * Reads an import's files (read-uploads.ts: inflating, parsing, validating, counting) in a worker
 * thread, so that the event loop keeps serving every other request meanwhile: parsed on the loop,
 * one 122 MiB JSON entry held the whole server for 5 s (50 s on a loaded machine) and left it at
 * 1.7 GB. The worker's heap is bounded (resourceLimits, importReading.heapMb) and so is its time
 * (importReading.timeoutMs): past either it is ended and the request answered 413, before anything
 * is written. It answers the documents, which the row bound keeps bounded (import-rows.ts), as a
 * structured copy. At most importReading.concurrent readings run at once in a process; the next
 * import waits for one to end. A worker that answered is kept for the next reading (starting one
 * took 0.5–0.75 s at a load average of 24 on 2 cores) and ended once it has been idle for `idleMs`; one that passed a bound is ended at once, and its heap goes with it.
 */

/** Bounds of one reading (importReading unless a test says otherwise). */
export interface ReadingBounds {
  heapMb: number;
  timeoutMs: number;
}

/** An expected error as the worker sends it back (structured clone keeps no class). */
export interface SentError {
  name: string;
  message: string;
  fileName?: string;
  problem?: string;
  field?: string;
}

/** What the worker posts: its reading, or the error that stopped it. */
export type WorkerAnswer = { ok: true; read: ReadUploads } | { ok: false; error: SentError; expected: boolean };

/** `error` as the worker sends it: an expected one whole, anything else by its message and stack. */
export function sendableError(error: unknown): WorkerAnswer {
  if (error instanceof ImportFileError) return { ok: false, expected: true, error: { name: error.name, message: error.message, fileName: error.fileName, problem: error.problem } };
  if (error instanceof InputError) return { ok: false, expected: true, error: { name: error.name, message: error.message, field: error.field } };
  if (error instanceof AppError) return { ok: false, expected: true, error: { name: error.name, message: error.message } };
  const fault = error instanceof Error ? error : new Error(String(error));
  return { ok: false, expected: false, error: { name: fault.name, message: `${fault.message}\n${fault.stack ?? ''}` } };
}

/** The error the worker sent, as it was thrown there (a fault becomes a plain Error: a 500, logged). */
function receivedError(answer: Extract<WorkerAnswer, { ok: false }>): Error {
  const { error } = answer;
  if (!answer.expected) return new Error(`reading the import's files failed: ${error.message}`);
  if (error.name === 'ImportFileError') return new ImportFileError(error.fileName!, error.problem!);
  if (error.name === 'InputError') return new InputError(error.message, error.field);
  if (error.name === 'NotFoundError') return new NotFoundError(error.message);
  return new TooLargeError(error.message);
}

/** The worker's module: the TypeScript source under tsx (tests, `npm run airdate`), else the build's file beside main.js. */
function workerModule(): { url: URL; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  return fromSource ? { url: new URL('./import-worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] } : { url: new URL('./import-worker.js', import.meta.url), execArgv: [] };
}

/** How long an idle worker is kept for the next reading. */
const idleMs = 30_000;

/** Readings running in this process, and those waiting for a turn. */
let running = 0;
const waiting: (() => void)[] = [];

async function turn(): Promise<() => void> {
  if (running >= importReading.concurrent) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const next = waiting.shift();
    // The turn passes to the next reading as it is (running stays counted), or is given back.
    if (next) next();
    else running -= 1;
  };
}

/** A worker thread and the reading it is doing, if any. */
interface Reader {
  worker: Worker;
  heapMb: number;
  job?: { resolve: (read: ReadUploads) => void; reject: (error: Error) => void };
  idleTimer?: NodeJS.Timeout;
}

/** Idle workers by their heap bound. */
const idle = new Map<number, Reader[]>();

function startReader(heapMb: number): Reader {
  const { url, execArgv } = workerModule();
  const worker = new Worker(url, { execArgv, resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, heapMb / 4) } });
  const reader: Reader = { worker, heapMb };
  const fail = (error: Error) => {
    const job = reader.job;
    reader.job = undefined;
    forget(reader);
    void worker.terminate();
    job?.reject(error);
  };
  worker.on('message', (answer: WorkerAnswer) => {
    const job = reader.job;
    reader.job = undefined;
    if (answer.ok) job?.resolve(answer.read);
    else job?.reject(receivedError(answer));
    rest(reader);
  });
  worker.on('error', (error: Error & { code?: string }) => {
    fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new TooLargeError(`reading the files needs more than ${heapMb} MB of memory, the most an import may use (importReading); split the library into several imports`)
      : error);
  });
  worker.on('exit', (code) => fail(new Error(`the import's reading worker stopped (exit code ${code}) without an answer`)));
  return reader;
}

/** Keeps `reader` for the next reading, until it has been idle for idleMs; it keeps no process alive. */
function rest(reader: Reader): void {
  reader.worker.unref();
  const list = idle.get(reader.heapMb) ?? [];
  list.push(reader);
  idle.set(reader.heapMb, list);
  reader.idleTimer = setTimeout(() => {
    forget(reader);
    void reader.worker.terminate();
  }, idleMs).unref();
}

function forget(reader: Reader): void {
  clearTimeout(reader.idleTimer);
  const list = idle.get(reader.heapMb);
  const at = list?.indexOf(reader) ?? -1;
  if (at >= 0) list!.splice(at, 1);
}

/** Reads `input` in a worker thread within `bounds`; throws what reading threw there, or TooLargeError past a bound. */
export async function readUploadsOffLoop(input: ReadUploadsInput, bounds: ReadingBounds = importReading): Promise<ReadUploads> {
  const done = await turn();
  try {
    return await readInWorker(input, bounds);
  } finally {
    done();
  }
}

function readInWorker(input: ReadUploadsInput, bounds: ReadingBounds): Promise<ReadUploads> {
  const reader = idle.get(bounds.heapMb)?.pop() ?? startReader(bounds.heapMb);
  clearTimeout(reader.idleTimer);
  reader.worker.ref();
  return new Promise<ReadUploads>((resolve, reject) => {
    const timer = setTimeout(() => {
      const job = reader.job;
      reader.job = undefined;
      forget(reader);
      void reader.worker.terminate();
      job?.reject(new TooLargeError(`reading the files took longer than ${Math.round(bounds.timeoutMs / 1000)} s, the most an import may take (importReading); split the library into several imports`));
    }, bounds.timeoutMs);
    const settled = <T>(then: (value: T) => void) => (value: T) => {
      clearTimeout(timer);
      then(value);
    };
    reader.job = { resolve: settled(resolve), reject: settled(reject) };
    // The files are copied into the worker (structured clone), never transferred: a small upload's
    // bytes may sit in Node's shared Buffer pool.
    reader.worker.postMessage(input);
  });
}
