import path from 'node:path';
import { TooLargeError } from '../../errors.ts';
import type { ImportSkip } from './import-document.ts';
import { isZip, listZipEntries, readZipEntry, type ZipEntry } from './read-zip.ts';

/** One uploaded file, or one file taken out of an uploaded zip (`export.zip/watched-history-1.json`). */
export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

/** Bounds on what the zips of one request may hold; every one refused with 413. */
export interface ArchiveLimits {
  /** Entries across every zip of the request. */
  maxEntries: number;
  /** Declared uncompressed bytes of the entries that are read, across the request. */
  maxUncompressedBytes: number;
  /** How deep zips may sit inside zips (1: an upload may be a zip, but holds no zip). */
  maxNesting: number;
  /**
   * How many times its compressed size an entry may declare (past `ratioFloorBytes`): a zip bomb's
   * one small entry of hundreds of MiB is refused from the directory, before it is inflated.
   */
  maxRatio: number;
  /** Entries declaring at most this many bytes are not held to `maxRatio` (a small file of blank space). */
  ratioFloorBytes: number;
}

/**
 * Defaults: the largest Trakt exports run to ~100 MiB uncompressed (Yamtrack caps them there);
 * 256 MiB leaves room while bounding what a request can make the server hold. A zip inside the
 * uploaded zip is read (people re-zip exports), one deeper is not. An entry may declare at most
 * 100 times its compressed size: real exports compress far less (a generated Trakt history of
 * 100 000 plays: 21 times at most per entry), the bomb 500 times (244 KB, one 122 MiB entry).
 */
export const defaultArchiveLimits: ArchiveLimits = { maxEntries: 10_000, maxUncompressedBytes: 256 * 1024 * 1024, maxNesting: 2, maxRatio: 100, ratioFloorBytes: 1024 * 1024 };

/** An entry left unread, as a `skipped` item of the answer. */
export interface SkippedEntry extends ImportSkip {
  file: string;
}

/** What a source reads from an archive; anything else is never inflated (TV Time's token files). */
export type EntryFilter = (baseName: string) => boolean;

const ignoredEntry = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/') || path.posix.basename(name).startsWith('.');

/**
 * Yields the files of an upload: plain files as they are, zips as their wanted entries (zips in
 * zips up to `maxNesting`). Every zip's directory is checked against the request's budget before
 * any of its entries is inflated, and entries are inflated one at a time as the caller pulls them,
 * so at most one entry's bytes are held on top of the upload.
 */
export function* expandUpload(
  file: UploadedFile,
  wanted: EntryFilter,
  budget: ArchiveBudget,
  skipped: SkippedEntry[],
  depth = 0,
): Generator<UploadedFile> {
  if (!isZip(file.bytes)) {
    yield file;
    return;
  }
  if (depth >= budget.limits.maxNesting) {
    throw new TooLargeError(`${file.name}: zips nested more than ${budget.limits.maxNesting} deep are not read`);
  }
  const entries = listZipEntries(file.bytes, file.name, budget.limits.maxEntries - budget.entries);
  budget.entries += entries.length;
  const readable = entries.filter((entry) => {
    if (ignoredEntry(entry.name)) return false;
    const base = path.posix.basename(entry.name);
    if (base.toLowerCase().endsWith('.zip') || wanted(base)) return true;
    skipped.push({ file: file.name, item: entry.name, reason: 'not read: not a file this source imports' });
    return false;
  });
  let declared = 0;
  for (const entry of readable) declared += entry.size;
  budget.reserve(declared, file.name);
  for (const entry of readable) budget.checkRatio(entry, file.name);
  for (const entry of readable) {
    const inner = { name: `${file.name}/${entry.name}`, bytes: readZipEntry(file.bytes, entry, file.name) };
    yield* expandUpload(inner, wanted, budget, skipped, depth + 1);
  }
}

/** The running totals of one request against its limits. */
export class ArchiveBudget {
  entries = 0;
  bytes = 0;
  constructor(readonly limits: ArchiveLimits = defaultArchiveLimits) {}

  /** Counts `bytes` more uncompressed bytes; a TooLargeError when that passes the limit. */
  reserve(bytes: number, fileName: string): void {
    this.bytes += bytes;
    if (this.bytes > this.limits.maxUncompressedBytes) {
      const mib = Math.floor(this.limits.maxUncompressedBytes / (1024 * 1024));
      throw new TooLargeError(`${fileName}: the zip contents are larger than ${mib} MiB uncompressed`);
    }
  }

  /**
   * A TooLargeError when `entry` declares more than maxRatio times its compressed size (past the
   * floor). Its inflation then stops at the declared size (readZipEntry), so an entry whose header
   * lies about its size is held to the ratio too.
   */
  checkRatio(entry: ZipEntry, fileName: string): void {
    const { maxRatio, ratioFloorBytes } = this.limits;
    if (entry.size <= ratioFloorBytes || entry.size <= maxRatio * entry.compressedSize) return;
    const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KB`);
    throw new TooLargeError(
      `${fileName}/${entry.name}: declares ${size(entry.size)} from ${size(entry.compressedSize)} compressed, more than ${maxRatio} times its size; ` +
        'real exports compress far less, so it is not inflated',
    );
  }
}
