import { catalogDateRange, catalogLengths, historyTimeRange, maxIntColumn } from '../limits.ts';
import { exceedsLength, isCatalogDate, isHistoryTime, isIntColumnCount, isIntColumnId, isPosterUrl, quoted, shortenText } from '../value-bounds.ts';
import { ImportFileError, type ImportDocument, type ImportEpisode, type ImportIds, type ImportShow, type ImportTitle, type ImportWatchEvent } from './import-document.ts';

/**
 * The one check every import document passes, whatever its source, before anything of the request
 * is written (src/import/import-sources.ts wraps every parser with it). Imports create catalog rows
 * that every account shares, so each value must fit the same bounds as the catalog's own: 32-bit
 * ids and season/episode numbers, title, overview and poster lengths, posters as http(s) URLs, real
 * calendar dates inside catalogDateRange, history times inside historyTimeRange
 * (src/limits.ts). A file is the user's to fix, so a value out of bounds refuses the file (400)
 * naming the file, the item, the field and the limit, rather than being cut or dropped.
 *
 * The `skipped` list only goes back to the uploader, but its texts quote the file (a title, an
 * entry type); they are shortened to a title's length so that the answer stays bounded too.
 *
 * @param now the time history entries are judged against (a day ahead of it is allowed).
 * @returns the same document, its `skipped` texts shortened.
 * @throws ImportFileError on the first value out of bounds.
 */
export function validateImportDocument(document: ImportDocument, now: number = Date.now()): ImportDocument {
  const fail = (item: ItemName, problem: string): never => {
    throw new ImportFileError(document.fileName, `${item()}: ${problem}`);
  };
  for (const show of document.shows) {
    const item = checkItem(show, fail);
    for (const episode of show.episodes) checkEpisode(item, episode, now, fail);
  }
  for (const title of document.titles) {
    const item = checkItem(title, fail);
    if (title.releaseDate != null) checkDate(item, 'release date', title.releaseDate, fail);
    checkHistory(item, title.history, now, fail);
  }
  for (const skip of document.skipped) skip.item = shortenText(skip.item, catalogLengths.title);
  return document;
}

/** How a message names the item at fault; built only for the message (a big file has 100 000 entries). */
type ItemName = () => string;
type Fail = (item: ItemName, problem: string) => never;

/** Checks what shows, movies and games share; returns how messages name the item. */
function checkItem(entry: ImportShow | ImportTitle, fail: Fail): ItemName {
  const item = () => `${entry.kind} ${quoted(entry.title)}`;
  for (const [source, id] of Object.entries(entry.ids) as [keyof ImportIds, number | undefined][]) {
    if (id !== undefined && !isIntColumnId(id)) fail(item, `${source} id ${id} is not a whole number from 1 to ${maxIntColumn}`);
  }
  checkText(item, 'title', entry.title, catalogLengths.title, fail);
  if (entry.title.trim() === '') fail(item, 'the title is empty');
  if (entry.overview != null) checkText(item, 'overview', entry.overview, catalogLengths.overview, fail);
  if (entry.poster != null && !isPosterUrl(entry.poster)) {
    fail(item, `the poster ${quoted(entry.poster)} is not an http(s) URL of at most ${catalogLengths.posterUrl} characters`);
  }
  return item;
}

function checkEpisode(show: ItemName, episode: ImportEpisode, now: number, fail: Fail): void {
  const item = () => `${show()} season ${episode.season} episode ${episode.number}`;
  for (const field of ['season', 'number'] as const) {
    if (!isIntColumnCount(episode[field])) fail(item, `the ${field === 'season' ? 'season' : 'episode number'} is not a whole number from 0 to ${maxIntColumn}`);
  }
  if (episode.title != null) checkText(item, 'title', episode.title, catalogLengths.title, fail);
  if (episode.airDate != null) checkDate(item, 'air date', episode.airDate, fail);
  checkHistory(item, episode.history, now, fail);
}

function checkText(item: ItemName, field: string, text: string, max: number, fail: Fail): void {
  if (exceedsLength(text, max)) fail(item, `the ${field} is longer than ${max} characters`);
}

function checkDate(item: ItemName, field: string, date: string, fail: Fail): void {
  if (!isCatalogDate(date)) fail(item, `the ${field} ${quoted(date)} is not a calendar date from ${catalogDateRange.earliest} to ${catalogDateRange.latest}`);
}

function checkHistory(item: ItemName, history: ImportWatchEvent[], now: number, fail: Fail): void {
  for (const entry of history) {
    if (isHistoryTime(entry.at, now)) continue;
    const when = Number.isNaN(entry.at.getTime()) ? 'an invalid time' : entry.at.toISOString();
    fail(item, `a watch at ${when} is outside ${historyTimeRange.earliest} to a day from now`);
  }
}
