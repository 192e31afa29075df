import { catalogDateRange, catalogLengths, historyTimeRange, maxIntColumn } from '../limits.ts';
import { exceedsLength, isCatalogDate, isHistoryTime, isIntColumnCount, isIntColumnId, isPosterUrl, quoted, shortenText } from '../value-bounds.ts';
import { ImportFileError, type ImportDocument, type ImportEpisode, type ImportEpisodeRef, type ImportIds, type ImportShow, type ImportTitle, type ImportWatchEvent } from './import-document.ts';

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
  const fail: Fail = (item, episode, problem) => {
    const name = `${item.kind} ${quoted(item.title)}${episode ? ` season ${episode.season} episode ${episode.number}` : ''}`;
    throw new ImportFileError(document.fileName, `${name}: ${problem}`);
  };
  for (const show of document.shows) {
    checkItem(show, fail);
    for (const episode of show.episodes) checkEpisode(show, episode, now, fail);
  }
  for (const title of document.titles) {
    checkItem(title, fail);
    if (title.releaseDate != null) checkDate(title, undefined, 'release date', title.releaseDate, fail);
    checkHistory(title, undefined, title.history, now, fail);
  }
  for (const ref of document.episodeRefs ?? []) checkEpisodeRef(document.fileName, ref, now);
  for (const skip of document.skipped) skip.item = shortenText(skip.item, catalogLengths.title);
  return document;
}

/**
 * Refuses the file naming the item (and episode) at fault. Messages are built only here: a big
 * file has 100 000 entries, and a name (or a closure building one) per entry cost more than the
 * checks themselves.
 */
type Fail = (item: Item, episode: ImportEpisode | undefined, problem: string) => never;
type Item = ImportShow | ImportTitle;

/** Checks what shows, movies and games share. */
function checkItem(item: Item, fail: Fail): void {
  for (const [source, id] of Object.entries(item.ids) as [keyof ImportIds, number | string | undefined][]) {
    // IMDb ids are text (`tt` and digits); every other catalog's id is a 32-bit number.
    if (source === 'imdb') {
      if (id !== undefined && (typeof id !== 'string' || !/^tt\d{1,12}$/.test(id))) fail(item, undefined, `imdb id ${quoted(String(id))} is not "tt" and up to 12 digits`);
    } else if (id !== undefined && (typeof id !== 'number' || !isIntColumnId(id))) {
      fail(item, undefined, `${source} id ${id} is not a whole number from 1 to ${maxIntColumn}`);
    }
  }
  checkText(item, undefined, 'title', item.title, catalogLengths.title, fail);
  if (item.title.trim() === '') fail(item, undefined, 'the title is empty');
  if (item.overview != null) checkText(item, undefined, 'overview', item.overview, catalogLengths.overview, fail);
  if (item.poster != null && !isPosterUrl(item.poster)) {
    fail(item, undefined, `the poster ${quoted(item.poster)} is not an http(s) URL of at most ${catalogLengths.posterUrl} characters`);
  }
}

function checkEpisode(show: ImportShow, episode: ImportEpisode, now: number, fail: Fail): void {
  if (!isIntColumnCount(episode.season)) fail(show, episode, `the season is not a whole number from 0 to ${maxIntColumn}`);
  if (!isIntColumnCount(episode.number)) fail(show, episode, `the episode number is not a whole number from 0 to ${maxIntColumn}`);
  if (episode.title != null) checkText(show, episode, 'title', episode.title, catalogLengths.title, fail);
  if (episode.airDate != null) checkDate(show, episode, 'air date', episode.airDate, fail);
  checkHistory(show, episode, episode.history, now, fail);
}

function checkText(item: Item, episode: ImportEpisode | undefined, field: string, text: string, max: number, fail: Fail): void {
  if (exceedsLength(text, max)) fail(item, episode, `the ${field} is longer than ${max} characters`);
}

function checkDate(item: Item, episode: ImportEpisode | undefined, field: string, date: string, fail: Fail): void {
  if (!isCatalogDate(date)) fail(item, episode, `the ${field} ${quoted(date)} is not a calendar date from ${catalogDateRange.earliest} to ${catalogDateRange.latest}`);
}

function checkHistory(item: Item, episode: ImportEpisode | undefined, history: ImportWatchEvent[], now: number, fail: Fail): void {
  for (const entry of history) {
    if (isHistoryTime(entry.at, now)) continue;
    const when = Number.isNaN(entry.at.getTime()) ? 'an invalid time' : entry.at.toISOString();
    fail(item, episode, `a watch at ${when} is outside ${historyTimeRange.earliest} to a day from now`);
  }
}

/** An episode known by its catalog ids only (TV Time's older files): its ids and its watches' times. */
function checkEpisodeRef(fileName: string, ref: ImportEpisodeRef, now: number): void {
  const name = `episode ${ref.ids.tvdb !== undefined ? `TheTVDB ${ref.ids.tvdb}` : ref.ids.tmdb !== undefined ? `TMDB ${ref.ids.tmdb}` : `IMDb ${ref.ids.imdb}`}`;
  for (const source of ['tvdb', 'tmdb'] as const) {
    const id = ref.ids[source];
    if (id !== undefined && !isIntColumnId(id)) throw new ImportFileError(fileName, `${name}: ${source} id ${id} is not a whole number from 1 to ${maxIntColumn}`);
  }
  if (ref.label !== undefined) ref.label = shortenText(ref.label, catalogLengths.title);
  for (const entry of ref.history) {
    if (isHistoryTime(entry.at, now)) continue;
    const when = Number.isNaN(entry.at.getTime()) ? 'an invalid time' : entry.at.toISOString();
    throw new ImportFileError(fileName, `${name}: a watch at ${when} is outside ${historyTimeRange.earliest} to a day from now`);
  }
}
