import type { ImportDocument, ImportEpisode, ImportEpisodeIds, ImportEpisodeRef, ImportShow, ImportTitle } from './import-document.ts';

/** How a TV Time file names a show or movie: TheTVDB id, IMDb id, TV Time's own uuid (any of them). */
export interface TvTimeKey {
  tvdb?: number;
  imdb?: string;
  uuid?: string;
}

type Item = ImportShow | ImportTitle;
type WatchTarget = ImportEpisode | ImportTitle | ImportEpisodeRef;

/**
 * Collects what one TV Time file says into its ImportDocument. Unlike the other sources' builder,
 * items merge only by an id the file gives (TheTVDB, IMDb or TV Time's uuid), never by title: two
 * different films called "Heat" stay two. Every row ends up counted somewhere: in an item, as a
 * repeat of a watch another row gave (`duplicates`, across all files of the upload through the
 * shared `seenWatches`), as not watched, or skipped with a reason.
 */
export class TvTimeCollector {
  private readonly shows: ImportShow[] = [];
  private readonly titles: ImportTitle[] = [];
  private readonly refs = new Map<number, ImportEpisodeRef>();
  private readonly showsBy = { tvdb: new Map<number, ImportShow>(), imdb: new Map<string, ImportShow>(), uuid: new Map<string, ImportShow>() };
  private readonly moviesBy = { tvdb: new Map<number, ImportTitle>(), imdb: new Map<string, ImportTitle>(), uuid: new Map<string, ImportTitle>() };
  private readonly episodesOf = new Map<ImportShow, Map<string, ImportEpisode>>();
  /** Stable names of watch targets across files, for telling repeated watches. */
  private readonly targetKeys = new Map<object, string>();
  private readonly skipped: ImportDocument['skipped'] = [];
  /** Rows that repeat a watch another row of the upload already gave. */
  duplicates = 0;
  /** Episode rows of the data export that are not watched. */
  unwatched = 0;

  constructor(
    private readonly fileName: string,
    private readonly seenWatches: Set<string>,
  ) {}

  /** The show with any of these ids, created on first mention; ids it lacks are filled in. */
  show(key: TvTimeKey, title: string): ImportShow {
    const found = (key.tvdb !== undefined ? this.showsBy.tvdb.get(key.tvdb) : undefined)
      ?? (key.imdb !== undefined ? this.showsBy.imdb.get(key.imdb) : undefined)
      ?? (key.uuid !== undefined ? this.showsBy.uuid.get(key.uuid) : undefined);
    const show = found ?? { kind: 'show', ids: {}, title, episodes: [] };
    if (!found) {
      this.shows.push(show);
      this.targetKeys.set(show, `show:${keyText(key)}`);
    }
    this.register(show, key, this.showsBy);
    return show;
  }

  /** The movie with any of these ids, created on first mention. */
  movie(key: TvTimeKey, title: string, year: number | undefined): ImportTitle {
    const found = (key.tvdb !== undefined ? this.moviesBy.tvdb.get(key.tvdb) : undefined)
      ?? (key.imdb !== undefined ? this.moviesBy.imdb.get(key.imdb) : undefined)
      ?? (key.uuid !== undefined ? this.moviesBy.uuid.get(key.uuid) : undefined);
    const movie: ImportTitle = found ?? { kind: 'movie', ids: {}, title, history: [] };
    if (!found) {
      this.titles.push(movie);
      this.targetKeys.set(movie, `movie:${keyText(key)}`);
    }
    if (movie.year === undefined && year !== undefined) movie.year = year;
    this.register(movie, key, this.moviesBy);
    return movie;
  }

  /** Episode (season, number) of `show`, created on first mention, with its own ids when known. */
  episode(show: ImportShow, season: number, number: number, ids?: ImportEpisodeIds, title?: string): ImportEpisode {
    let episodes = this.episodesOf.get(show);
    if (!episodes) this.episodesOf.set(show, (episodes = new Map()));
    let episode = episodes.get(`${season}:${number}`);
    if (!episode) {
      episode = { season, number, title: title || null, history: [] };
      episodes.set(`${season}:${number}`, episode);
      show.episodes.push(episode);
      this.targetKeys.set(episode, `${this.targetKeys.get(show)}:${season}:${number}`);
    }
    if (ids?.tvdb !== undefined && episode.ids?.tvdb === undefined) episode.ids = { ...episode.ids, tvdb: ids.tvdb };
    if (!episode.title && title) episode.title = title;
    return episode;
  }

  /** A watched episode known by its TheTVDB episode id only, handed on to be found through the catalog. */
  ref(tvdbEpisodeId: number, label?: string): ImportEpisodeRef {
    let ref = this.refs.get(tvdbEpisodeId);
    if (!ref) {
      ref = { ids: { tvdb: tvdbEpisodeId }, history: [], ...(label ? { label } : {}) };
      this.refs.set(tvdbEpisodeId, ref);
      this.targetKeys.set(ref, `episode:tvdb${tvdbEpisodeId}`);
    }
    if (!ref.label && label) ref.label = label;
    return ref;
  }

  /**
   * A watch of `target` at `at` (undefined: watched, time unknown). A watch that another row of the
   * upload gave already (same target, same instant) is counted in `duplicates` and not added again.
   */
  watched(target: WatchTarget, at: Date | undefined, estimated = false): void {
    const key = `${this.targetKeys.get(target)}@${at ? at.getTime() : 'undated'}`;
    if (this.seenWatches.has(key)) {
      this.duplicates += 1;
      return;
    }
    this.seenWatches.add(key);
    if (!at) target.watched = true;
    else target.history.push(estimated ? { watched: true, at, estimated: true } : { watched: true, at });
  }

  /** A row (or file) recognised and left out, with why. */
  skip(item: string, reason: string): void {
    this.skipped.push({ item, reason });
  }

  /** The document: histories oldest first; the counted rows as report entries. */
  build(): ImportDocument {
    const byTime = (target: { history: { at: Date }[] }) => target.history.sort((a, b) => a.at.getTime() - b.at.getTime());
    for (const show of this.shows) show.episodes.forEach(byTime);
    this.titles.forEach(byTime);
    this.refs.forEach(byTime);
    const skipped = [...this.skipped];
    if (this.duplicates > 0) {
      skipped.push({ item: `${this.duplicates} ${this.duplicates === 1 ? 'row' : 'rows'}`, reason: 'repeat a watch another row of the upload gives (same item, same time): merged into it' });
    }
    if (this.unwatched > 0) {
      skipped.push({ item: `${this.unwatched} episode ${this.unwatched === 1 ? 'row' : 'rows'}`, reason: 'not watched (is_watched is false): nothing to import' });
    }
    const document: ImportDocument = { source: 'tvtime', fileName: this.fileName, shows: this.shows, titles: this.titles, skipped };
    if (this.refs.size > 0) document.episodeRefs = [...this.refs.values()];
    return document;
  }

  private register<T extends Item>(item: T, key: TvTimeKey, maps: { tvdb: Map<number, T>; imdb: Map<string, T>; uuid: Map<string, T> }): void {
    if (key.tvdb !== undefined && !maps.tvdb.has(key.tvdb)) {
      maps.tvdb.set(key.tvdb, item);
      item.ids.tvdb ??= key.tvdb;
    }
    if (key.imdb !== undefined && !maps.imdb.has(key.imdb)) {
      maps.imdb.set(key.imdb, item);
      item.ids.imdb ??= key.imdb;
    }
    if (key.uuid !== undefined && !maps.uuid.has(key.uuid)) {
      maps.uuid.set(key.uuid, item);
      item.sourceId ??= key.uuid;
    }
  }
}

/** The key's ids as one stable text (TheTVDB first: the id the older files and the newer share). */
function keyText(key: TvTimeKey): string {
  if (key.tvdb !== undefined) return `tvdb${key.tvdb}`;
  if (key.imdb !== undefined) return `imdb${key.imdb}`;
  if (key.uuid !== undefined) return `uuid${key.uuid}`;
  anonymous += 1;
  return `anonymous${anonymous}`;
}

/** Items a file names by no id at all (a v1 movie row with a name only) each stand alone. */
let anonymous = 0;
