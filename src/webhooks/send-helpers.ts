import type { Readable } from 'node:stream';

/** Most of a receiver's answer body that is read (and thrown away). */
export const maxResponseBytes = 4096;

/** The target is not allowed by the policy: a final failure, not worth retrying. */
export class PolicyRefusal extends Error {}

/**
 * Reads and discards up to {@link maxResponseBytes} of `stream`, then stops. Resolves when the
 * body ended, the cap was reached, or the stream failed or closed; never rejects.
 */
export function readCapped(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    const done = () => {
      stream.off('data', onData);
      stream.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received >= maxResponseBytes) done();
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}
