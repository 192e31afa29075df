import type { EntryFilter, UploadedFile } from './expand-uploads.ts';
import type { ImportDocument, ImportReadOptions, ImportSource } from './import-document.ts';
import { parseAirdateExport } from './parse-airdate.ts';
import { imdbWantsEntry, parseImdbFile } from './parse-imdb.ts';
import { grouveeWantsEntry, parseGrouveeFile } from './parse-grouvee.ts';
import { letterboxdWantsEntry, parseLetterboxdFiles } from './parse-letterboxd.ts';
import { parseSimklFile, simklWantsEntry } from './parse-simkl.ts';
import { parseTraktFile, traktWantsEntry } from './parse-trakt.ts';
import { parseTvTimeFiles, tvTimeWantsEntry } from './parse-tvtime.ts';
import { validateImportDocument } from './validate-document.ts';

/** How one source turns uploaded files into documents (one per file). */
export interface ImportParser {
  /** Which zip entries (by base name) are inflated and parsed; the rest are skipped unread. */
  wantsEntry: EntryFilter;
  /**
   * The documents of `files`, one per file. Files are pulled one at a time, so a source that
   * parses file by file holds one file's bytes at once; throws ImportFileError on the first problem.
   * `options` are the person's choices at import (the zone of times without one).
   */
  parse(files: Iterable<UploadedFile>, options: ImportReadOptions): ImportDocument[];
  /**
   * One file's document, for sources whose files stand alone (every one but TV Time and
   * Letterboxd): the import then holds one file's bytes and JSON at a time (read-uploads.ts).
   */
  parseFile?: (bytes: Uint8Array, fileName: string) => ImportDocument;
}

const fileByFile = (wantsEntry: EntryFilter, parseFile: (bytes: Uint8Array, fileName: string) => ImportDocument): ImportParser => ({
  wantsEntry,
  parse: (files) => Array.from(files, (file) => parseFile(file.bytes, file.name)),
  parseFile,
});

/**
 * A parser whose every document has passed validateImportDocument: the one place every source's
 * documents are checked against the catalog's bounds, in both of importUploads' passes.
 */
function validated(parser: ImportParser): ImportParser {
  const parseFile = parser.parseFile;
  return {
    wantsEntry: parser.wantsEntry,
    parse: (files, options) => parser.parse(files, options).map((document) => validateImportDocument(document)),
    parseFile: parseFile && ((bytes, fileName) => validateImportDocument(parseFile(bytes, fileName))),
  };
}

const parsers: Partial<Record<ImportSource, ImportParser>> = {
  trakt: fileByFile(traktWantsEntry, parseTraktFile),
  simkl: fileByFile(simklWantsEntry, parseSimklFile),
  // TV Time files refer to each other (seen_episode.csv names shows the others give ids for).
  tvtime: { wantsEntry: tvTimeWantsEntry, parse: (files, options) => parseTvTimeFiles([...files], options) },
  grouvee: fileByFile(grouveeWantsEntry, parseGrouveeFile),
  // Letterboxd's files name one film each in their own way (diary URIs are the entries'): one document.
  letterboxd: { wantsEntry: letterboxdWantsEntry, parse: (files) => parseLetterboxdFiles([...files]) },
  // IMDb's ratings, watchlist and list exports (one CSV each; titles by their IMDb id).
  imdb: fileByFile(imdbWantsEntry, parseImdbFile),
  // This service's own export (one JSON document per file; zipped copies work too).
  airdate: fileByFile((baseName) => baseName.toLowerCase().endsWith('.json'), parseAirdateExport),
};

/** The sources `POST /api/import/{source}` and the importLibrary mutation take, each validated. */
export const importParsers: Partial<Record<ImportSource, ImportParser>> = Object.fromEntries(
  Object.entries(parsers).map(([source, parser]) => [source, validated(parser)]),
);

/** The sources with a parser, in a stable order. */
export const availableImportSources = (Object.keys(importParsers) as ImportSource[]).sort();
