import { closeSync, fsyncSync, openSync } from 'node:fs';

/**
 * Flushes a file's contents to the disk (VACUUM INTO does not sync the file it writes; a key file
 * is synced before it is linked into place). A read-only descriptor is enough for fsync.
 */
export function fsyncFile(file: string): void {
  const descriptor = openSync(file, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Makes a folder's new or renamed entries durable, so a power cut right after a rename or a link
 * keeps it. Some platforms (Windows) cannot open or fsync a folder: there the files themselves,
 * already synced, are all that can be done, and this does nothing.
 */
export function syncFolder(folder: string): void {
  try {
    fsyncFile(folder);
  } catch {
    // Not supported here; see above.
  }
}
