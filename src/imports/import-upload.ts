import { defaultArchiveLimits, type ArchiveLimits, type UploadedFile } from './sources/expand-uploads.ts';
import type { ImportReadOptions, ImportSource } from './sources/import-document.ts';
import { importParsers } from './sources/import-sources.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { canonicalTimeZone } from '../time/dates.ts';
import { importRows, inputLengths } from '../limits.ts';
import { exceedsLength, shortenText } from '../value-bounds.ts';
import type { CatalogService } from '../catalog/catalog-service.ts';
import { applyImportDocuments, type ImportCounts, type ImportNote, type ImportSkipped, type ImportUnmatched } from './import-service.ts';
import { collectIdQueries, importBudget, resolveUnknownIds, type PrepassQuery } from './import-prepass.ts';
import { yieldToEventLoop } from '../event-loop.ts';
import { readUploadsOffLoop, type ReadingBounds } from './read-off-loop.ts';

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
  /** The reading worker's memory and time (default importReading, src/limits.ts). */
  reading?: ReadingBounds;
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

/** Accounts with an import running in this process: one at a time each. */
const importing = new Set<number>();

/**
 * Imports uploaded files from one source: the service behind `POST /api/import/{source}` and the
 * importLibrary mutation. Every file (and every zip entry) is one document; all documents of the
 * request are written in ONE transaction (applyImportDocuments): the request lands whole or not at
 * all, whether a database failure stops it or the process is killed half-way.
 *
 * ALL files are read before ANY is applied, in a worker thread with a memory and a time bound
 * (read-off-loop.ts), so the event loop serves everyone else meanwhile, and a malformed file
 * (ImportFileError, 400), an oversized zip, more entries than one import takes (import-rows.ts) or
 * files past the worker's bounds (TooLargeError, 413) anywhere in the request are refused before
 * the transaction starts: the user can fix the upload and send it again as a whole. The documents
 * come back whole and are held until the transaction ends: the row bound keeps them bounded (a
 * Trakt history of 100 000 plays: about 50 MB of heap).
 *
 * Between reading and writing, the catalogs are asked about ids no stored row has
 * (import-prepass.ts), outside any transaction; their answers are stored, so the transaction
 * finds them.
 *
 * One import at a time per account (in this process): a second one while the first runs is a
 * ConflictError (409), so that one account holds at most one reading worker and one import
 * transaction.
 *
 * `imported` counts distinct shows, episodes, movies and games across the files and the history
 * entries added (0 when the same files are imported again).
 */
export async function importUploads(props: ImportUploadsProps): Promise<ImportSummary> {
  if (!importParsers[props.source]) throw new NotFoundError(`unknown import source: ${props.source}`);
  const reading = readOptions(props);
  if (importing.has(props.accountId)) {
    throw new ConflictError('an import into this account is already running: send this one again when it has finished (one import at a time per account)');
  }
  importing.add(props.accountId);
  try {
    const read = await readUploadsOffLoop(
      { source: props.source, files: props.files, limits: props.limits ?? defaultArchiveLimits, maxRows: props.maxRows ?? importRows.perRequest, reading },
      props.reading,
    );
    if (props.catalog) {
      const queries = new Map<string, PrepassQuery>(); // ids and titles for the catalog pre-pass
      for (const document of read.documents) {
        collectIdQueries(document, queries);
        await yieldToEventLoop();
      }
      await resolveUnknownIds(props.catalog, queries, props.accountId, undefined, importBudget(props.catalog, props.accountId));
    }
    const result = await applyImportDocuments({ accountId: props.accountId, documents: () => read.documents, dryRun: props.dryRun, imageOrigins: props.catalog?.imageOrigins() });
    return { imported: result.imported, skipped: [...read.unread, ...result.skipped], notes: result.notes, unmatched: result.unmatched, dryRun: props.dryRun === true };
  } finally {
    importing.delete(props.accountId);
  }
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
