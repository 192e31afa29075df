import { isImdbId } from '../../catalog/catalog-file-schema.ts';
import { catalogDateRange, catalogLengths, historyTimeRange, inputLengths, maxIntColumn } from '../../limits.ts';
import { exceedsLength, isCatalogDate, isHistoryTime, isIntColumnCount, isIntColumnId, isPosterUrl, quoted, shortenText } from '../../value-bounds.ts';
import { ImportFileError, type ImportDocument, type ImportEpisode, type ImportEpisodeIds, type ImportIds, type ImportShow, type ImportTitle, type ImportWatchEvent } from './import-document.ts';

/** The problem with one external id (an int column id, or an IMDb id), or undefined when it is fine. */
function idProblem(source: string, id: unknown): string | undefined {
  if (source === 'imdb') return isImdbId(id) ? undefined : `imdb id ${quoted(String(id))} is not \`tt\` followed by 1 to 10 digits`;
  return isIntColumnId(id as number) ? undefined : `${source} id ${String(id)} is not a whole number from 1 to ${maxIntColumn}`;
}

/**
 * The one check every import document passes, whatever its source, before anything of the request
 * is written (src/imports/sources/import-sources.ts wraps every parser with it). Imports create catalog rows
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
  for (const ref of document.episodeRefs ?? []) {
    checkRef(document.fileName, ref.ids, ref.label, ref.history, now);
    if (ref.label !== undefined) ref.label = shortenText(ref.label, catalogLengths.title);
  }
  for (const title of document.titles) {
    checkItem(title, fail);
    if (title.releaseDate != null) checkDate(title, undefined, 'release date', title.releaseDate, fail);
    checkHistory(title, undefined, title.history, now, fail);
  }
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
  for (const [source, id] of Object.entries(item.ids) as [keyof ImportIds, unknown][]) {
    const problem = id === undefined ? undefined : idProblem(source, id);
    if (problem) fail(item, undefined, problem);
  }
  if (item.year !== undefined && !(Number.isInteger(item.year) && item.year >= 1 && item.year <= 9999)) fail(item, undefined, `the year ${item.year} is not a whole number from 1 to 9999`);
  checkText(item, undefined, 'title', item.title, catalogLengths.title, fail);
  if (item.title.trim() === '') fail(item, undefined, 'the title is empty');
  if (item.sourceId !== undefined) checkText(item, undefined, 'source id', item.sourceId, inputLengths.importSourceId, fail);
  if (item.overview != null) checkText(item, undefined, 'overview', item.overview, catalogLengths.overview, fail);
  if (item.poster != null && !isPosterUrl(item.poster)) {
    fail(item, undefined, `the poster ${quoted(item.poster)} is not an http(s) URL of at most ${catalogLengths.posterUrl} characters`);
  }
}

function checkEpisodeIds(ids: ImportEpisodeIds | undefined, refuse: (problem: string) => void): void {
  for (const [source, id] of Object.entries(ids ?? {}) as [keyof ImportEpisodeIds, unknown][]) {
    const problem = id === undefined ? undefined : idProblem(source, id);
    if (problem) refuse(`episode ${problem}`);
  }
}

/** An episode reference: its ids (at least one) and history; named by its label or ids. */
function checkRef(fileName: string, ids: ImportEpisodeIds, label: string | undefined, history: ImportWatchEvent[], now: number): void {
  const refuse = (problem: string): never => {
    const byId = ids.tvdb !== undefined ? `TheTVDB ${ids.tvdb}` : ids.tmdb !== undefined ? `TMDB ${ids.tmdb}` : `IMDb ${quoted(String(ids.imdb))}`;
    const name = label === undefined ? `episode ${byId}` : `the episode reference ${quoted(shortenText(label, catalogLengths.title))}`;
    throw new ImportFileError(fileName, `${name}: ${problem}`);
  };
  checkEpisodeIds(ids, refuse);
  for (const entry of history) {
    if (isHistoryTime(entry.at, now)) continue;
    refuse(`a watch at ${Number.isNaN(entry.at.getTime()) ? 'an invalid time' : entry.at.toISOString()} is outside ${historyTimeRange.earliest} to a day from now`);
  }
}

function checkEpisode(show: ImportShow, episode: ImportEpisode, now: number, fail: Fail): void {
  checkEpisodeIds(episode.ids, (problem) => fail(show, episode, problem));
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
