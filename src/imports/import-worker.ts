import { parentPort } from 'node:worker_threads';
import { sendableError, type WorkerAnswer } from './read-off-loop.ts';
import { readUploads, type ReadUploadsInput } from './read-uploads.ts';

/**
 * The worker thread that reads imports' files (read-off-loop.ts starts it and keeps it while it is
 * used; the build makes it dist/import-worker.js beside main.js): for each reading it is sent, it
 * posts the documents, or the error that stopped it.
 */
parentPort!.on('message', (input: ReadUploadsInput) => {
  let answer: WorkerAnswer;
  try {
    answer = { ok: true, read: readUploads(input) };
  } catch (error) {
    answer = sendableError(error);
  }
  parentPort!.postMessage(answer);
});
