import path from 'node:path';
import { DocumentBuilder } from './document-builder.ts';
import { ImportFileError, type ImportDocument, type ImportIds, type ImportShow } from './import-document.ts';
import { externalId, isoTimestamp, objectOf, parseJsonFile, titleOf, wholeNumber } from './parse-helpers.ts';
import { notThisSource, startsLikeJson } from './recognise-file.ts';

/**
 * Trakt: the JSON files of the official export (reference/import-formats.md §1a), the
 * `/sync/watched/*` shape (§1b) and the backup scripts' dumps of it (§1c).
 *
 * Entries are recognised by their own fields rather than by file name, because the names vary
 * (numbered parts, underscores, renamed files) while the entry shapes do not:
 * - `watched_at`: one play (history files) → a history entry at that time;
 * - `seasons` / `plays` + `last_watched_at`: per-title aggregates (watched-shows/-movies) → one
 *   history entry per episode or movie at its `last_watched_at` (equal to its last play, so it
 *   merges with the history file's entry when both are imported);
 * - `rated_at` (ratings) and `listed_at` (watchlist, favorites, lists) → the title is followed;
 *   ratings themselves are not stored.
 * Files the export has besides (collection, comments, playback, profile…) are named in `skipped`.
 * Items are matched by tmdb and tvdb; trakt, imdb and slug ids are not catalog ids here.
 */

/** File name stems (without `-N` page numbers) of export files that hold nothing to import. */
const notImported = /^(_errors|collection-.*|comments-.*|hidden-.*|notes-.*|likes-.*|network-.*|user-.*|watched-playback|lists-lists|lists-collaborations)$/;

const expected = 'a Trakt export file (a JSON array of history, watched, rating or list entries)';

/** Fields one of which every Trakt entry has. */
const traktKeys = ['watched_at', 'seasons', 'plays', 'last_watched_at', 'rated_at', 'listed_at'];

/** Whether a zip entry is read: JSON files only. */
export const traktWantsEntry = (baseName: string): boolean => baseName.toLowerCase().endsWith('.json');

/** Parses one Trakt JSON file. Throws ImportFileError naming the first malformed entry. */
export function parseTraktFile(bytes: Uint8Array, fileName: string): ImportDocument {
  const builder = new DocumentBuilder('trakt', fileName);
  const stem = path.posix.basename(fileName).toLowerCase().replace(/\.json$/, '').replace(/-\d+$/, '');
  if (notImported.test(stem)) {
    builder.skip(path.posix.basename(fileName), 'not imported: this part of the Trakt export holds no watch history, ratings or lists');
    return builder.build();
  }
  if (!startsLikeJson(bytes)) throw notThisSource(bytes, fileName, expected);
  const entries = parseJsonFile(bytes, fileName);
  if (!Array.isArray(entries)) throw notThisSource(bytes, fileName, expected);
  // An array whose first entry has none of a Trakt entry's fields is another service's file.
  const first = objectOf(entries[0]);
  if (entries.length > 0 && !(first && traktKeys.some((key) => key in first))) throw notThisSource(bytes, fileName, expected);
  // One `fail` for the whole file (a closure per entry was garbage on 100 000-entry exports).
  let index = 0;
  const fail = (problem: string): never => {
    throw new ImportFileError(fileName, `entry ${index + 1}: ${problem}`);
  };
  for (; index < entries.length; index += 1) readEntry(builder, objectOf(entries[index]) ?? fail('is not an object'), fail);
  return builder.build();
}

type Fail = (problem: string) => never;

function readEntry(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail): void {
  if ('watched_at' in entry) {
    const at = isoTimestamp(entry.watched_at) ?? fail('watched_at is not an ISO 8601 timestamp');
    const type = entry.type ?? (entry.episode ? 'episode' : 'movie');
    if (type === 'movie') builder.watched(movieOf(builder, entry, fail), at);
    else if (type === 'episode') builder.watched(episodeOf(builder, entry, fail), at);
    else fail(`unknown type "${String(type)}"`);
    return;
  }
  if (Array.isArray(entry.seasons) || ('last_watched_at' in entry && 'plays' in entry)) return readAggregate(builder, entry, fail);
  if ('rated_at' in entry || 'listed_at' in entry) {
    if ('rated_at' in entry) builder.note('ratings', 'ratings are not stored; the rated titles are followed');
    return readListed(builder, entry, fail);
  }
  fail('is not a Trakt history, watched, rating or list entry (no watched_at, seasons, rated_at or listed_at)');
}

/** watched-shows / watched-movies: one history entry per episode or movie at its last watch. */
function readAggregate(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail): void {
  const last = entry.last_watched_at == null ? undefined : (isoTimestamp(entry.last_watched_at) ?? fail('last_watched_at is not an ISO 8601 timestamp'));
  if (entry.movie !== undefined) return builder.watched(movieOf(builder, entry, fail), last);
  const show = showOf(builder, entry.show, fail);
  const seasons = Array.isArray(entry.seasons) ? entry.seasons : [];
  const plays = wholeNumber(entry.plays) ?? 0;
  if (seasons.length === 0 && plays > 0) {
    // Trakt lists a show's plays without its seasons for shows it hides or has reset: the plays
    // cannot be put on episodes, but they are not dropped without a word.
    const ids = Object.entries(show.ids).map(([source, id]) => `${source} ${id}`).join(', ');
    const plural = plays === 1 ? 'play is' : 'plays are';
    builder.skip(`${show.title}${ids ? ` (${ids})` : ''}`, `${plays} ${plural} not imported: the watched-shows entry lists no seasons, so which episodes were watched is not known; the show is followed`);
  }
  for (const [seasonIndex, seasonValue] of seasons.entries()) {
    const season = objectOf(seasonValue) ?? fail(`seasons[${seasonIndex}] is not an object`);
    const seasonNumber = wholeNumber(season.number) ?? fail(`seasons[${seasonIndex}].number is not a whole number`);
    const episodes = Array.isArray(season.episodes) ? season.episodes : fail(`seasons[${seasonIndex}].episodes is not a list`);
    for (const [episodeIndex, episodeValue] of episodes.entries()) {
      const where = `seasons[${seasonIndex}].episodes[${episodeIndex}]`;
      const episode = objectOf(episodeValue) ?? fail(`${where} is not an object`);
      const number = wholeNumber(episode.number) ?? fail(`${where}.number is not a whole number`);
      const at = episode.last_watched_at == null ? last : (isoTimestamp(episode.last_watched_at) ?? fail(`${where}.last_watched_at is not an ISO 8601 timestamp`));
      builder.watched(builder.episode(show, seasonNumber, number), at);
    }
  }
}

/** Ratings and list items: the title (or the show of a season or episode) is recorded, nothing watched. */
function readListed(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail): void {
  const type = entry.type;
  if (type === 'movie') movieOf(builder, entry, fail);
  else if (type === 'show' || type === 'season') showOf(builder, entry.show, fail);
  else if (type === 'episode') episodeOf(builder, entry, fail);
  else builder.skip(`${String(type)} entry`, `${String(type)} entries are not imported`);
}

function idsOf(value: unknown, fail: Fail, where: string): ImportIds {
  const ids = objectOf(value) ?? fail(`${where}.ids is missing`);
  const result: ImportIds = {};
  const tmdb = externalId(ids.tmdb);
  const tvdb = externalId(ids.tvdb);
  if (tmdb !== undefined) result.tmdb = tmdb;
  if (tvdb !== undefined && where === 'show') result.tvdb = tvdb;
  return result;
}

function showOf(builder: DocumentBuilder, value: unknown, fail: Fail): ImportShow {
  const show = objectOf(value) ?? fail('show is missing');
  return builder.show(idsOf(show.ids, fail, 'show'), titleOf(show.title, 'Untitled show'));
}

function movieOf(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail) {
  const movie = objectOf(entry.movie) ?? fail('movie is missing');
  return builder.title('movie', idsOf(movie.ids, fail, 'movie'), titleOf(movie.title, 'Untitled movie'));
}

function episodeOf(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail) {
  const show = showOf(builder, entry.show, fail);
  const episode = objectOf(entry.episode) ?? fail('episode is missing');
  const season = wholeNumber(episode.season) ?? fail('episode.season is not a whole number');
  const number = wholeNumber(episode.number) ?? fail('episode.number is not a whole number');
  return builder.episode(show, season, number, typeof episode.title === 'string' ? episode.title : null);
}
