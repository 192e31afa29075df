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
 * the user can fix the upload and send it again as a whole. Should a database failure stop a later
 * document, the earlier ones stay written: each is complete on its own, and importing again skips
 * what is there.
 *
 * Memory: for sources whose files stand alone (all but TV Time), the first pass only validates:
 * each file is inflated, parsed and dropped before the next one. The second pass parses each file
 * again right before applying it (parsers are pure, so it gives the same document), so at most one
 * file's bytes, JSON and document are held on top of the upload: a 100 000-play Trakt export's
 * documents took ~50 MB of heap at once, its JSON ~1 GB of allocations. Parsing twice costs CPU
 * only, and not for the last file, whose document from the first pass is kept and applied as is
 * (so a single-file upload is parsed once).
 *
 * `imported` counts distinct shows, episodes, movies and games across the files and the history
 * entries added (0 when the same files are imported again).
 */
export async function importUploads(props: ImportUploadsProps): Promise<ImportSummary> {
  const parser = importParsers[props.source];
  if (!parser) throw new NotFoundError(`unknown import source: ${props.source}`);
  const limits = props.limits ?? defaultArchiveLimits;
  const unread: SkippedEntry[] = [];
  // A fresh budget per pass: the second pass reads exactly what the first one checked.
  function* files(skipped: SkippedEntry[]): Generator<UploadedFile> {
    const budget = new ArchiveBudget(limits);
    for (const file of props.files) yield* expandUpload(file, parser!.wantsEntry, budget, skipped);
  }

  let documents: Iterable<ImportDocument>;
  const parseFile = parser.parseFile;
  if (parseFile) {
    let count = 0;
    let last: ImportDocument | undefined;
    for (const file of files(unread)) {
      last = undefined; // released before the next file is parsed
      last = parseFile(file.bytes, file.name);
      count += 1;
    }
    documents = (function* reparsed(): Generator<ImportDocument> {
      const again = files([])[Symbol.iterator]();
      // The last file is not pulled again: its entry is not even inflated a second time.
      for (let index = 0; index < count - 1; index += 1) {
        const file = again.next().value as UploadedFile;
        yield parseFile(file.bytes, file.name);
      }
      if (last) yield last;
    })();
  } else {
    documents = parser.parse(files(unread));
  }

  const summary: ImportSummary = { imported: { shows: 0, episodes: 0, movies: 0, games: 0, history: 0 }, skipped: [...unread], unmatched: [] };
  const distinct = { shows: new Set<number>(), episodes: new Set<number>(), movies: new Set<number>(), games: new Set<number>() };
  for (const document of takeEach(documents)) {
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

/** The documents one by one; a list is emptied as it goes, so each applied document can be collected. */
function* takeEach(documents: Iterable<ImportDocument>): Generator<ImportDocument> {
  if (!Array.isArray(documents)) return yield* documents;
  for (let document = documents.shift(); document; document = documents.shift()) yield document;
}
