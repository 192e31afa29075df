import { DocumentBuilder } from './document-builder.ts';
import { ImportFileError, type ImportDocument, type ImportIds } from './import-document.ts';
import { isHistoryTime } from '../../value-bounds.ts';
import { externalId, isoTimestamp, objectOf, parseJsonFile, titleOf, wholeNumber } from './parse-helpers.ts';
import { notThisSource, startsLikeJson } from './recognise-file.ts';

/**
 * Simkl: the JSON backup, which is the `/sync/all-items` shape (reference/import-formats.md §2b):
 * `{"shows":[…],"movies":[…],"anime":[…]}`.
 * - Ids come as numbers or strings; tmdb and tvdb are used, and the container (`movies` or
 *   `shows`/`anime`) says which tmdb namespace an id is in. Anime without either id is unmatched.
 * - Episodes listed under `seasons` are watched (that is all Simkl lists there); `watched_at`,
 *   when present, becomes a history entry. An episode without one takes the show's
 *   `last_watched_at`, marked `estimated` in the history (the file gives no better time: the
 *   moment of import would be later than any real watch); without either it is just marked watched.
 * - A movie with status `completed` is watched (history entry at `last_watched_at` if given).
 * - Status `dropped` archives a show (it stays in the library, out of the feeds); every other
 *   status follows it.
 * - Completed shows often list no `seasons`: such a show's episodes aired by its `last_watched_at`
 *   are marked watched at that time, estimated (ImportShow.watchedThrough; the apply side marks the
 *   catalog's stored episodes). Another show without `seasons` but with watched episodes (or a
 *   completed one without `last_watched_at`) is followed, and a `skipped` entry says so.
 * A file of another service is refused naming what it is.
 * Simkl's CSV backup is refused with a pointer to the JSON one: it holds only a per-show
 * high-water mark ("S03E04"), which cannot be turned into episodes without the show's episode list.
 */

const expected = 'a Simkl JSON backup (an object with "shows", "movies" or "anime")';

/** Whether a zip entry is read. */
export const simklWantsEntry = (baseName: string): boolean => /\.(json|csv)$/i.test(baseName);

/** Parses a Simkl JSON backup. Throws ImportFileError naming the first malformed entry. */
export function parseSimklFile(bytes: Uint8Array, fileName: string): ImportDocument {
  const start = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('latin1');
  if (/^(\xEF\xBB\xBF)?simkl_id,/i.test(start)) {
    throw new ImportFileError(fileName, "is Simkl's CSV backup, which lists only the last episode watched per show; upload the JSON backup instead");
  }
  if (!startsLikeJson(bytes)) throw notThisSource(bytes, fileName, expected);
  const backup = objectOf(parseJsonFile(bytes, fileName));
  if (!backup || backup.format !== undefined || !['shows', 'movies', 'anime'].some((key) => key in backup)) throw notThisSource(bytes, fileName, expected);
  const builder = new DocumentBuilder('simkl', fileName);
  // Simkl lists some titles twice; the builder merges them (by id, or by title without one), and
  // the report says so: one entry per duplicate, naming the entry it joined.
  const firstEntry = new Map<string, string>();
  for (const container of ['shows', 'anime', 'movies'] as const) {
    const entries = backup[container] ?? [];
    if (!Array.isArray(entries)) throw new ImportFileError(fileName, `"${container}" is not a list`);
    entries.forEach((value, index) => {
      const fail = (problem: string): never => {
        throw new ImportFileError(fileName, `${container}[${index}]: ${problem}`);
      };
      const entry = objectOf(value) ?? fail('is not an object');
      const isMovie = container === 'movies' || entry.movie !== undefined;
      const media = objectOf(isMovie ? entry.movie : entry.show);
      if (media) {
        const ids = idsOf(media, !isMovie);
        const keys = Object.keys(ids).length > 0 ? Object.entries(ids).map(([source, id]) => `${isMovie}:${source}:${id}`) : [`${isMovie}:title:${titleOf(media.title, '').toLowerCase()}`];
        const earlier = keys.map((key) => firstEntry.get(key)).find((found) => found !== undefined);
        if (earlier) builder.skip(`${titleOf(media.title, isMovie ? 'Untitled movie' : 'Untitled show')} (${container}[${index}])`, `merged as a duplicate: ${earlier} is the same title`);
        for (const key of keys) if (!firstEntry.has(key)) firstEntry.set(key, `${container}[${index}]`);
      }
      if (isMovie) readMovie(builder, entry, fail);
      else readShow(builder, entry, fail);
    });
  }
  const document = builder.build();
  if (document.shows.length + document.titles.length + document.skipped.length === 0) {
    throw new ImportFileError(fileName, 'holds no shows, anime or movies: the Simkl backup is empty');
  }
  return document;
}

type Fail = (problem: string) => never;

function idsOf(media: Record<string, unknown>, withTvdb: boolean): ImportIds {
  const ids = objectOf(media.ids) ?? {};
  const result: ImportIds = {};
  const tmdb = externalId(ids.tmdb);
  const tvdb = externalId(ids.tvdb);
  if (tmdb !== undefined) result.tmdb = tmdb;
  if (tvdb !== undefined && withTvdb) result.tvdb = tvdb;
  return result;
}

function readShow(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail): void {
  const media = objectOf(entry.show) ?? fail('show is missing');
  const show = builder.show(idsOf(media, true), titleOf(media.title, 'Untitled show'));
  if (entry.status === 'dropped') show.archived = true;
  const last = entry.last_watched_at == null ? undefined : (isoTimestamp(entry.last_watched_at) ?? fail('last_watched_at is not an ISO 8601 timestamp'));
  if (last && !isHistoryTime(last)) fail(`last_watched_at ${last.toISOString()} is outside 1900 to a day from now`);
  const seasons = entry.seasons ?? [];
  if (!Array.isArray(seasons)) fail('seasons is not a list');
  for (const [seasonIndex, seasonValue] of (seasons as unknown[]).entries()) {
    const season = objectOf(seasonValue) ?? fail(`seasons[${seasonIndex}] is not an object`);
    const seasonNumber = wholeNumber(season.number) ?? fail(`seasons[${seasonIndex}].number is not a whole number`);
    const episodes = season.episodes ?? [];
    if (!Array.isArray(episodes)) fail(`seasons[${seasonIndex}].episodes is not a list`);
    for (const [episodeIndex, episodeValue] of (episodes as unknown[]).entries()) {
      const where = `seasons[${seasonIndex}].episodes[${episodeIndex}]`;
      const episode = objectOf(episodeValue) ?? fail(`${where} is not an object`);
      const number = wholeNumber(episode.number) ?? fail(`${where}.number is not a whole number`);
      const at = episode.watched_at == null ? undefined : (isoTimestamp(episode.watched_at) ?? fail(`${where}.watched_at is not an ISO 8601 timestamp`));
      const target = builder.episode(show, seasonNumber, number);
      if (at || !last) builder.watched(target, at);
      else target.history.push({ watched: true, at: last, estimated: true });
    }
  }
  if ((seasons as unknown[]).length > 0) return;
  const watchedCount = wholeNumber(entry.watched_episodes_count) ?? 0;
  if (entry.status === 'completed' && last) {
    if (!show.watchedThrough || show.watchedThrough.at < last) show.watchedThrough = { at: last, estimated: true };
  } else if (watchedCount > 0 || entry.status === 'completed') {
    const what = watchedCount > 0 ? `${watchedCount} watched episodes are` : 'its episodes are';
    const why = entry.status === 'completed' ? 'and it has no last_watched_at to date them by' : `and it is not completed (status ${String(entry.status)}), so which ones is not known`;
    builder.skip(show.title, `${what} not listed in the backup, ${why}; the show is followed without them`);
  }
}

function readMovie(builder: DocumentBuilder, entry: Record<string, unknown>, fail: Fail): void {
  const media = objectOf(entry.movie) ?? fail('movie is missing');
  const movie = builder.title('movie', idsOf(media, false), titleOf(media.title, 'Untitled movie'));
  if (entry.status !== 'completed') return;
  const at = entry.last_watched_at == null ? undefined : (isoTimestamp(entry.last_watched_at) ?? fail('last_watched_at is not an ISO 8601 timestamp'));
  builder.watched(movie, at);
}
