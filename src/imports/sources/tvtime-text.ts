import type { UploadedFile } from './expand-uploads.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file as UTF-8, whatever encoding a tool re-saved it in: TV Time writes UTF-8 (with or
 * without a BOM), but exports opened and saved again in Excel come back as UTF-16 with a BOM
 * ("Unicode text") or as Windows-1252 ("CSV"). UTF-16 is told by its BOM; bytes that are not UTF-8
 * and hold no NUL are read as Windows-1252, which gives every byte a character (a binary file
 * keeps its NULs and is refused by its classification).
 */
export function asUtf8(file: UploadedFile): UploadedFile {
  const { bytes } = file;
  let text: string | undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else {
    try {
      utf8.decode(bytes);
      return file;
    } catch {
      if (bytes.includes(0)) return file;
      text = new TextDecoder('windows-1252').decode(bytes);
    }
  }
  return { name: file.name, bytes: new TextEncoder().encode(text) };
}
