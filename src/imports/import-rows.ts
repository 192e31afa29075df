import { TooLargeError } from '../errors.ts';
import { importRows } from '../limits.ts';
import type { ImportDocument } from './sources/import-document.ts';

/**
 * The row bound of one import request (importRows in src/limits.ts): what the parsed files list,
 * counted document by document as they are parsed, so that an upload past the bound is refused
 * (413, naming the bound) before anything of it is written or asked of a catalog, and the documents
 * an import holds at once stay bounded whatever the files' sizes.
 */

/**
 * The entries of one document: its shows, films, games, episodes, episode references, their
 * watch-history entries and its skipped lines. Plain loops: a document can list a million.
 */
export function documentRows(document: ImportDocument): number {
  let rows = document.shows.length + document.titles.length + document.skipped.length;
  for (const show of document.shows) {
    rows += show.episodes.length;
    for (const episode of show.episodes) rows += episode.history.length;
  }
  for (const title of document.titles) rows += title.history.length;
  for (const ref of document.episodeRefs ?? []) rows += 1 + ref.history.length;
  return rows;
}

/** The refusal of a request whose files list more than `max` entries (`where`: the file that passed it). */
export function tooManyRows(max: number, where: string): TooLargeError {
  return new TooLargeError(
    `${where}: the upload lists more than ${max.toLocaleString('en')} entries (shows, films, games, episodes, viewings and skipped lines), ` +
      `the most one import takes (importRows); split the library into several imports`,
  );
}

/** The running count of one request's entries against its bound. */
export class RowBudget {
  rows = 0;
  constructor(readonly max: number = importRows.perRequest) {}

  /** Counts `document`'s entries; a TooLargeError naming the bound when the request passes it. */
  add(document: ImportDocument): void {
    this.rows += documentRows(document);
    if (this.rows > this.max) throw tooManyRows(this.max, document.fileName);
  }
}
