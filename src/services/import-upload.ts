import { ArchiveBudget, defaultArchiveLimits, expandUpload, type ArchiveLimits, type SkippedEntry, type UploadedFile } from '../import/expand-uploads.ts';
import type { ImportDocument, ImportSource } from '../import/import-document.ts';
import { importParsers } from '../import/import-sources.ts';
import { NotFoundError } from '../errors.ts';
import { applyImportDocument, type ImportCounts, type ImportSkipped, type ImportUnmatched } from './import.ts';

/** What an import request answers (besides `ok`). */
export interface ImportSummary {
  imported: ImportCounts;
  skipped: ImportSkipped[];
  unmatched: ImportUnmatched[];
}

export interface ImportUploadsProps {
  accountId: number;
  source: ImportSource;
  /** The uploaded files (zips included); part names do not matter. */
  files: UploadedFile[];
  /** Bounds on the zips' contents (defaults: defaultArchiveLimits). */
  limits?: ArchiveLimits;
}

/**
 * Imports uploaded files from one source: the service behind `POST /api/import/{source}` and the
 * importLibrary mutation. Every file (and every zip entry) is one document and one transaction.
 *
 * ALL files are parsed before ANY is applied, so a malformed file (ImportFileError, 400) or an
 * oversized zip (TooLargeError, 413) anywhere in the request means nothing at all is written, and
 * the user can fix the upload and send it again as a whole. Parsed documents are small (a history
 * entry is a timestamp), so holding them all is cheap; the files' bytes are released as they are
 * parsed. Should a database failure stop a later document, the earlier ones stay written: each is
 * complete on its own, and importing again skips what is there.
 *
 * `imported` counts distinct shows, episodes, movies and games across the files and the history
 * entries added (0 when the same files are imported again).
 */
export async function importUploads(props: ImportUploadsProps): Promise<ImportSummary> {
  const parser = importParsers[props.source];
  if (!parser) throw new NotFoundError(`unknown import source: ${props.source}`);
  const budget = new ArchiveBudget(props.limits ?? defaultArchiveLimits);
  const unread: SkippedEntry[] = [];
  function* files(): Generator<UploadedFile> {
    for (const file of props.files) yield* expandUpload(file, parser!.wantsEntry, budget, unread);
  }
  const documents: ImportDocument[] = parser.parse(files());

  const summary: ImportSummary = { imported: { shows: 0, episodes: 0, movies: 0, games: 0, history: 0 }, skipped: [...unread], unmatched: [] };
  const distinct = { shows: new Set<number>(), episodes: new Set<number>(), movies: new Set<number>(), games: new Set<number>() };
  // Taken off the list as they are applied, so each document's entries can be collected after it.
  for (let document = documents.shift(); document; document = documents.shift()) {
    // On SQLite every query resolves synchronously, so without this an import never lets the event
    // loop turn: other requests wait for the whole import, and V8's garbage collection, which
    // finishes its work in event-loop tasks, lets the heap grow by hundreds of MB.
    await new Promise((resolve) => setImmediate(resolve));
    const result = await applyImportDocument({ accountId: props.accountId, document });
    summary.imported.history += result.imported.history;
    summary.skipped.push(...result.skipped);
    summary.unmatched.push(...result.unmatched);
    for (const key of ['shows', 'episodes', 'movies', 'games'] as const) for (const id of result.databaseIds[key]) distinct[key].add(id);
  }
  for (const key of ['shows', 'episodes', 'movies', 'games'] as const) summary.imported[key] = distinct[key].size;
  return summary;
}
