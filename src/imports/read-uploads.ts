import { NotFoundError } from '../errors.ts';
import { ArchiveBudget, expandUpload, type ArchiveLimits, type SkippedEntry, type UploadedFile } from './sources/expand-uploads.ts';
import type { ImportDocument, ImportReadOptions, ImportSource } from './sources/import-document.ts';
import { importParsers } from './sources/import-sources.ts';
import { RowBudget } from './import-rows.ts';

/** What reading an import's files needs: plain data, so that a worker thread can be handed it. */
export interface ReadUploadsInput {
  source: ImportSource;
  files: UploadedFile[];
  limits: ArchiveLimits;
  /** Entries the files may list (importRows.perRequest unless a test says otherwise). */
  maxRows: number;
  reading: ImportReadOptions;
}

/** The files read: every document, and the zip entries left unread. */
export interface ReadUploads {
  documents: ImportDocument[];
  unread: SkippedEntry[];
}

/**
 * Reads the files of one import request into its documents: zips expanded within their bounds
 * (expand-uploads.ts: entries, sizes, ratio, nesting), each file parsed and validated, its
 * entries counted against the request's row bound (import-rows.ts). Synchronous and CPU-bound: the server runs it in a worker thread with a memory bound
 * (read-off-loop.ts), which is why it imports nothing of the database. For sources whose files stand alone, each file's bytes and JSON are dropped
 * before the next one is inflated; what is kept is the documents, which the row bound bounds.
 * Throws ImportFileError (400) or TooLargeError (413) on the first problem.
 */
export function readUploads(input: ReadUploadsInput): ReadUploads {
  const parser = importParsers[input.source];
  if (!parser) throw new NotFoundError(`unknown import source: ${input.source}`);
  const unread: SkippedEntry[] = [];
  const budget = new ArchiveBudget(input.limits);
  function* files(): Generator<UploadedFile> {
    for (const file of input.files) yield* expandUpload(file, parser!.wantsEntry, budget, unread);
  }
  const rows = new RowBudget(input.maxRows);
  const documents: ImportDocument[] = [];
  const keep = (document: ImportDocument) => {
    rows.add(document);
    documents.push(document);
  };
  const parseFile = parser.parseFile;
  if (parseFile) for (const file of files()) keep(parseFile(file.bytes, file.name));
  // TV Time's files make documents together (names in one file, watches in another).
  else for (const document of parser.parse(files(), input.reading)) keep(document);
  return { documents, unread };
}
