import { firstProblem } from '../../catalog/catalog-file-schema.ts';
import { exportSchema } from '../../export/export-document-schema.ts';
import { ImportFileError, type ImportDocument, type ImportSkip, type ImportWatchEvent } from './import-document.ts';
import { parseJsonFile } from './parse-helpers.ts';
import { describeFile, notThisSource, startsLikeJson } from './recognise-file.ts';

/**
 * The `airdate` import source: this service's own export (docs/export-format.md). The file states
 * everything explicitly (follow and archive flags, watched states, history), so the import
 * restores an account rather than guessing. Items may carry extra fields (a later minor change
 * stays readable); `ids` may not, because a typo there would silently lose the item.
 */

/**
 * The watched state to carry: as the file states it, except that "not watched" with no history
 * is what the export says of every episode nobody touched; passing that on would be a claim the
 * file does not make, so it becomes "nothing said" and the import leaves the item alone.
 */
const statedWatched = (watched: boolean | undefined, history: ImportWatchEvent[]): boolean | undefined =>
  watched === false && history.length === 0 ? undefined : watched;

const expectedFile = 'an Airdate export (a JSON object with "format": "airdate-export")';

/**
 * Parses and validates an Airdate export into the shared ImportDocument (src/imports/sources/import-document.ts).
 * Items without any external id of their kind cannot be matched; they are listed in `skipped`.
 * @throws ImportFileError naming `fileName` and the first problem with its JSON path
 *   (`shows[3].episodes[2].season: expected an integer ≥ 0`).
 */
export function parseAirdateExport(bytes: Uint8Array, fileName: string): ImportDocument {
  // Another service's file (a CSV, a Trakt array, a Simkl backup: no "format") is named as what it is.
  if (!startsLikeJson(bytes)) throw notThisSource(bytes, fileName, expectedFile);
  const value = parseJsonFile(bytes, fileName);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notThisSource(bytes, fileName, expectedFile);
  if (!('format' in value) && describeFile(bytes) === 'a Simkl JSON backup') throw notThisSource(bytes, fileName, expectedFile);
  const parsed = exportSchema.safeParse(value);
  if (!parsed.success) throw new ImportFileError(fileName, firstProblem(parsed.error, 'invalid export'));
  const document: ImportDocument = { source: 'airdate', fileName, shows: [], titles: [], skipped: [] };
  const skip = (kind: string, title: string, sources: string): ImportSkip => ({ item: `${kind} "${title}"`, reason: `no ${sources} id` });
  for (const show of parsed.data.shows) {
    if (Object.keys(show.ids).length === 0) {
      document.skipped.push(skip('show', show.title, 'tmdb, tvdb or imdb'));
      continue;
    }
    const episodes = show.episodes.map(({ watched, ids, ...episode }) => ({ ...episode, ...(ids && Object.keys(ids).length > 0 ? { ids } : {}), watched: statedWatched(watched, episode.history) }));
    document.shows.push({ kind: 'show', ...show, episodes });
  }
  for (const kind of ['movie', 'game'] as const) {
    for (const { watched, ...title } of kind === 'movie' ? parsed.data.movies : parsed.data.games) {
      if (Object.keys(title.ids).length === 0) {
        document.skipped.push(skip(kind, title.title, kind === 'movie' ? 'tmdb, tvdb or imdb' : 'igdb or giantbomb'));
        continue;
      }
      document.titles.push({ kind, ...title, watched: statedWatched(watched, title.history) });
    }
  }
  return document;
}
