import { ArchiveBudget, defaultArchiveLimits, expandUpload, type ArchiveLimits, type SkippedEntry, type UploadedFile } from './sources/expand-uploads.ts';
import type { ImportDocument, ImportReadOptions, ImportSource } from './sources/import-document.ts';
import { importParsers } from './sources/import-sources.ts';
import { InputError, NotFoundError } from '../errors.ts';
import { canonicalTimeZone } from '../time/dates.ts';
import { inputLengths } from '../limits.ts';
import { exceedsLength, shortenText } from '../value-bounds.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import { applyImportDocuments, type ImportCounts, type ImportNote, type ImportSkipped, type ImportUnmatched } from './import-service.ts';
import { collectIdQueries, importBudget, resolveUnknownIds, type PrepassQuery } from './import-prepass.ts';
import { RowBudget } from './import-rows.ts';

/** What an import request answers (besides `ok`). */
export interface ImportSummary {
  imported: ImportCounts;
  skipped: ImportSkipped[];
  /** How each file was read: the zone of its plain times, what its dates stand for. */
  notes: ImportNote[];
  unmatched: ImportUnmatched[];
  /** True when nothing was written: the report of a dry run. */
  dryRun: boolean;
}

export interface ImportUploadsProps {
  accountId: number;
  source: ImportSource;
  /** The uploaded files (zips included); part names do not matter. */
  files: UploadedFile[];
  /** Bounds on the zips' contents (defaults: defaultArchiveLimits). */
  limits?: ArchiveLimits;
  /** Entries the files may list (default importRows.perRequest, src/limits.ts; import-rows.ts). */
  maxRows?: number;
  /**
   * The catalogs, asked before the transaction about ids the database does not know yet (episode
   * references, imdb-only or Giant Bomb-only items: import-prepass.ts); without it those are
   * matched against stored rows only.
   */
  catalog?: CatalogService;
  /**
   * Answer the full report and write nothing of the account (`?dryRun=true`): the transaction runs
   * whole and is rolled back. What the catalogs answered in the pre-pass is kept in the shared
   * catalog, as a search keeps what it finds: public catalog data, not the account's.
   */
  dryRun?: boolean;
  /** The account's IANA time zone: times a file writes without a zone are read in it by default. */
  accountTimeZone: string;
  /**
   * The zone the person chose at import for those times instead (TV Time's plain date-times are
   * local times in some exports); an unknown zone is an InputError before any file is read.
   */
  timeZone?: string;
}

/**
 * Imports uploaded files from one source: the service behind `POST /api/import/{source}` and the
 * importLibrary mutation. Every file (and every zip entry) is one document; all documents of the
 * request are written in ONE transaction (applyImportDocuments): the request lands whole or not at
 * all, whether a database failure stops it or the process is killed half-way.
 *
 * ALL files are parsed before ANY is applied, so a malformed file (ImportFileError, 400), an
 * oversized zip or more entries than one import takes (TooLargeError, 413: import-rows.ts)
 * anywhere in the request is refused before the transaction starts, and the user can fix the upload and send it again as a whole.
 *
 * Memory: for sources whose files stand alone (all but TV Time), the first pass only validates:
 * each file is inflated, parsed and dropped before the next one. The second pass parses each file
 * again right before applying it (parsers are pure, so it gives the same document), so at most one
 * file's bytes, JSON and document are held on top of the upload: a 100 000-play Trakt export's
 * documents took ~50 MB of heap at once, its JSON ~1 GB of allocations. Parsing twice costs CPU
 * only, and not for the last file, whose document from the first pass is kept and applied as is
 * (so a single-file upload is parsed once).
 *
 * Between the passes, the catalogs are asked about ids no stored row has (import-prepass.ts),
 * outside any transaction; their answers are stored, so the transaction finds them.
 *
 * `imported` counts distinct shows, episodes, movies and games across the files and the history
 * entries added (0 when the same files are imported again).
 */
export async function importUploads(props: ImportUploadsProps): Promise<ImportSummary> {
  const parser = importParsers[props.source];
  if (!parser) throw new NotFoundError(`unknown import source: ${props.source}`);
  const reading = readOptions(props);
  const limits = props.limits ?? defaultArchiveLimits;
  const unread: SkippedEntry[] = [];
  const rows = new RowBudget(props.maxRows);
  // A fresh budget per pass: the second pass reads exactly what the first one checked.
  function* files(skipped: SkippedEntry[]): Generator<UploadedFile> {
    const budget = new ArchiveBudget(limits);
    for (const file of props.files) yield* expandUpload(file, parser!.wantsEntry, budget, skipped);
  }

  // The documents to apply, each parsed right before it is applied (see above).
  let documents: () => Iterable<ImportDocument>;
  const queries = new Map<string, PrepassQuery>(); // ids and titles for the catalog pre-pass, from the first pass
  const parseFile = parser.parseFile;
  if (parseFile) {
    let count = 0;
    let last: ImportDocument | undefined;
    for (const file of files(unread)) {
      last = undefined; // released before the next file is parsed
      last = parseFile(file.bytes, file.name);
      rows.add(last);
      if (props.catalog) collectIdQueries(last, queries);
      count += 1;
    }
    documents = function* reparsed(): Generator<ImportDocument> {
      const again = files([])[Symbol.iterator]();
      // The last file is not pulled again (its entry is not even inflated a second time), unless
      // the transaction runs again after a lost race and took it already.
      const kept = last;
      last = undefined;
      for (let index = 0; index < count - (kept ? 1 : 0); index += 1) {
        const file = again.next().value as UploadedFile;
        yield parseFile(file.bytes, file.name);
      }
      if (kept) yield kept;
    };
  } else {
    // TV Time's files make documents together (names in one file, watches in another): parsed
    // once, and again only should the transaction run again.
    let parsed: ImportDocument[] | undefined = parser.parse(files(unread), reading);
    for (const document of parsed) rows.add(document);
    if (props.catalog) for (const document of parsed) collectIdQueries(document, queries);
    documents = () => {
      const list = parsed ?? parser.parse(files([]), reading);
      parsed = undefined;
      return takeEach(list);
    };
  }

  if (props.catalog) await resolveUnknownIds(props.catalog, queries, props.accountId, undefined, importBudget(props.catalog, props.accountId));
  const result = await applyImportDocuments({ accountId: props.accountId, documents, dryRun: props.dryRun, imageOrigins: props.catalog?.imageOrigins() });
  return { imported: result.imported, skipped: [...unread, ...result.skipped], notes: result.notes, unmatched: result.unmatched, dryRun: props.dryRun === true };
}

/** The message for a `timeZone` that is no IANA zone (the REST route's check says the same). */
export function importTimeZoneProblem(given: string): string {
  return `unknown time zone "${shortenText(given, inputLengths.timezone)}": timeZone must be an IANA time zone such as America/Sao_Paulo`;
}

/** The zone plain times are read in: the one chosen at import (checked), else the account's. */
function readOptions(props: ImportUploadsProps): ImportReadOptions {
  if (props.timeZone === undefined) return { timeZone: props.accountTimeZone, timeZoneChosen: false };
  const text = props.timeZone.trim();
  // The longest real name has 32 characters: a longer one is neither echoed nor handed to Intl.
  const timeZone = exceedsLength(text, inputLengths.timezone) ? null : canonicalTimeZone(text);
  if (timeZone === null) throw new InputError(importTimeZoneProblem(props.timeZone), 'timeZone');
  return { timeZone, timeZoneChosen: timeZone !== props.accountTimeZone };
}

/** The documents one by one; a list is emptied as it goes, so each applied document can be collected. */
function* takeEach(documents: ImportDocument[]): Generator<ImportDocument> {
  for (let document = documents.shift(); document; document = documents.shift()) yield document;
}
