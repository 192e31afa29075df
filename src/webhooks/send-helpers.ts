import type { Readable } from 'node:stream';

/** Most of a receiver's answer body that is read (kept only for a test notification's report). */
export const maxResponseBytes = 4096;

/** The target is not allowed by the policy: a final failure, not worth retrying. */
export class PolicyRefusal extends Error {}

/**
 * Reads up to `maxBytes` of `stream` ({@link maxResponseBytes} unless told), then stops, and
 * resolves with what it read. Resolves when the body ended, the cap was reached, or the stream
 * failed or closed; never rejects.
 */
export function readCapped(stream: Readable, maxBytes: number = maxResponseBytes): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = () => {
      stream.off('data', onData);
      stream.pause();
      resolve(Buffer.concat(chunks).subarray(0, maxBytes));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= maxBytes) done();
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}
