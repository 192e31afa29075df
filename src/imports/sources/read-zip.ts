import { inflateRawSync } from 'node:zlib';
import { TooLargeError } from '../../errors.ts';
import { ImportFileError } from './import-document.ts';

/**
 * A minimal zip reader for uploads, built on node:zlib. It reads the central directory first, so
 * the entry count and every declared size are known (and checked by the caller) before a single
 * byte is inflated; then it inflates one entry at a time with `maxOutputLength` set to the entry's
 * declared size, so an entry whose header lies stops at that size instead of inflating on.
 * (fflate's reader truncates into a declared-size buffer but keeps decoding, which spends the
 * bomb's whole inflated size in CPU; yauzl would do, but is callback- and stream-based for what is
 * an in-memory buffer here.) Zip64 sizes and offsets are understood; encryption is refused.
 */

/** One file inside an archive, as the central directory describes it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  /** Declared uncompressed size. */
  size: number;
  /** Offset of the entry's local header. */
  headerOffset: number;
}

const signatures = { local: 0x04034b50, central: 0x02014b50, end: 0x06054b50, end64: 0x06064b50, locator64: 0x07064b50 };

/** True when `bytes` start like a zip archive (a local header, or the end record of an empty zip). */
export function isZip(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const first = Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32LE(0);
  return first === signatures.local || first === signatures.end;
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Where the central directory is and how many entries it has (zip64 aware). */
function findDirectory(data: Buffer, fileName: string): { count: number; offset: number } {
  const lowest = Math.max(0, data.length - 22 - 0xffff);
  let end = -1;
  for (let at = data.length - 22; at >= lowest; at -= 1) {
    if (data.readUInt32LE(at) === signatures.end) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ImportFileError(fileName, 'is not a readable zip archive (no central directory)');
  let count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  const locator = end - 20;
  if ((count === 0xffff || offset === 0xffffffff) && locator >= 0 && data.readUInt32LE(locator) === signatures.locator64) {
    const end64 = Number(data.readBigUInt64LE(locator + 8));
    if (end64 + 56 > data.length || data.readUInt32LE(end64) !== signatures.end64) {
      throw new ImportFileError(fileName, 'is not a readable zip archive (bad zip64 end record)');
    }
    count = Number(data.readBigUInt64LE(end64 + 32));
    offset = Number(data.readBigUInt64LE(end64 + 48));
  }
  return { count, offset };
}

/**
 * Lists the entries of a zip archive without inflating anything. `maxEntries` is checked against
 * the count the end record states, before the directory is walked.
 */
export function listZipEntries(bytes: Uint8Array, fileName: string, maxEntries: number): ZipEntry[] {
  const data = view(bytes);
  const { count, offset } = findDirectory(data, fileName);
  if (count > maxEntries) throw new TooLargeError(`${fileName}: the zip has ${count} entries; at most ${maxEntries} are read`);
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== signatures.central) {
      throw new ImportFileError(fileName, `is not a readable zip archive (directory entry ${index + 1} is damaged)`);
    }
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: data.toString('utf8', at + 46, at + 46 + nameLength),
      method: data.readUInt16LE(at + 10),
      encrypted: (data.readUInt16LE(at + 8) & 1) === 1,
      compressedSize: data.readUInt32LE(at + 20),
      size: data.readUInt32LE(at + 24),
      headerOffset: data.readUInt32LE(at + 42),
    };
    readZip64Extra(data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), entry);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Replaces 0xFFFFFFFF size and offset fields with their 64-bit values from the zip64 extra field. */
function readZip64Extra(extra: Buffer, entry: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = (): number => {
        const value = field + 8 <= at + 4 + length ? Number(extra.readBigUInt64LE(field)) : 0xffffffff;
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.headerOffset === 0xffffffff) entry.headerOffset = next();
      return;
    }
    at += 4 + length;
  }
}

/**
 * The uncompressed bytes of `entry`. Inflation stops at the declared size: an entry that would
 * inflate to more is a TooLargeError (a zip bomb with a lying header), never a bigger buffer.
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, fileName: string): Uint8Array {
  const data = view(bytes);
  const where = `${fileName}/${entry.name}`;
  if (entry.encrypted) {
    throw new ImportFileError(where, 'is encrypted (a password-protected zip); extract the files and upload them instead');
  }
  const header = entry.headerOffset;
  if (header + 30 > data.length || data.readUInt32LE(header) !== signatures.local) {
    throw new ImportFileError(where, 'cannot be read: its local header is damaged');
  }
  const start = header + 30 + data.readUInt16LE(header + 26) + data.readUInt16LE(header + 28);
  const compressed = data.subarray(start, start + entry.compressedSize);
  if (compressed.length !== entry.compressedSize) throw new ImportFileError(where, 'cannot be read: the archive is truncated');
  if (entry.method === 0) return compressed;
  if (entry.method !== 8) throw new ImportFileError(where, `uses an unsupported compression method (${entry.method})`);
  if (entry.size === 0) return new Uint8Array(0);
  try {
    return inflateRawSync(compressed, { maxOutputLength: entry.size });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new TooLargeError(`${where} inflates to more than the ${entry.size} bytes its header declares`);
    }
    throw new ImportFileError(where, `cannot be decompressed (${(error as Error).message})`);
  }
}
