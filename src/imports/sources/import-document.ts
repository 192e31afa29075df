/**
 * What every import source is parsed into before anything is written: one document per uploaded
 * file (or per file inside an uploaded zip). Parsers are pure (bytes in, document out) and throw
 * ImportFileError on a malformed file; `applyImportDocument` (src/imports/import-service.ts) writes a
 * document in one transaction with the merge rules of decisions.md ("Import and export").
 */
import { AppError } from '../../errors.ts';

/** External ids as the catalogs know them; at least one per item for it to be matched. */
export interface ImportIds {
  tmdb?: number;
  /** TheTVDB: shows and (TV Time's current export) movies. */
  tvdb?: number;
  igdb?: number;
  /** IMDb, `tt` + digits: shows and movies. */
  imdb?: string;
  /** Giant Bomb: games (older Grouvee exports know games by it only). */
  giantbomb?: number;
}

/** An episode's own ids at the catalogs (Trakt's episode ids, TV Time's TheTVDB episode id). */
export interface ImportEpisodeIds {
  tvdb?: number;
  tmdb?: number;
  imdb?: string;
}

/** One entry of the watch history: a real change of the watched flag at a known time. */
export interface ImportWatchEvent {
  watched: boolean;
  at: Date;
  /**
   * The file gave no time for this entry and the parser took a nearby one (Simkl: the show's
   * last_watched_at for an episode without its own watched_at); stored as WatchEvent.estimated.
   */
  estimated?: boolean;
}

export interface ImportEpisode {
  season: number;
  number: number;
  /** The episode's own catalog ids, when the file has them. */
  ids?: ImportEpisodeIds;
  title?: string | null;
  airDate?: string | null;
  /** Watch history of this episode from the file, oldest first (may be empty). */
  history: ImportWatchEvent[];
  /**
   * Current watched state the file states; when undefined, the last history entry decides
   * (and no history means the file says nothing about it).
   */
  watched?: boolean;
}

export interface ImportShow {
  kind: 'show';
  ids: ImportIds;
  title: string;
  /** First-air year, when the file gives it (matching by title and year). */
  year?: number;
  /** The source's own id or URI of the item (its report entries name it). */
  sourceId?: string;
  poster?: string | null;
  overview?: string | null;
  /** Follow state the file states (the Airdate export does); undefined: "becomes followed". */
  followed?: boolean;
  /** Archive state the file states; undefined: left as it is. */
  archived?: boolean;
  episodes: ImportEpisode[];
  /**
   * "Every episode aired by `at` is watched", for a file that says a show is finished without
   * listing its episodes (Simkl's completed shows): the apply side marks the stored episodes of
   * seasons ≥ 1 aired on or before `at`'s date watched at `at`, estimated
   * (src/imports/import-watched-through.ts).
   */
  watchedThrough?: { at: Date; estimated: true };
}

export interface ImportTitle {
  kind: 'movie' | 'game';
  ids: ImportIds;
  title: string;
  /** Release year, when the file gives it (Letterboxd, Grouvee: matching by title and year). */
  year?: number;
  /** The source's own id or URI of the item (Grouvee `id`, Letterboxd URI, TV Time uuid). */
  sourceId?: string;
  poster?: string | null;
  overview?: string | null;
  releaseDate?: string | null;
  followed?: boolean;
  history: ImportWatchEvent[];
  watched?: boolean;
}

/**
 * A watched episode the file names only by an episode id of a catalog (TV Time's older exports:
 * `seen_episode.csv` rows hold TheTVDB's episode id and nothing else). Matched through the catalog
 * (stored episode ids, the offline file, the network catalogs); an unmatched one is reported,
 * never made into an invented show.
 */
export interface ImportEpisodeRef {
  ids: ImportEpisodeIds;
  /** What the file says of it besides the id, for the report (a show name, when it has one). */
  label?: string;
  history: ImportWatchEvent[];
  watched?: boolean;
}

/** Something in the file that was recognised but not imported, and why. */
export interface ImportSkip {
  item: string;
  reason: string;
}

/** The file sources, and the media servers whose history is pulled (src/media-servers/history: no parser, no upload). */
export type ImportSource = 'trakt' | 'simkl' | 'tvtime' | 'airdate' | 'grouvee' | 'letterboxd' | 'imdb' | 'jellyfin' | 'emby' | 'plex';

/** What the person chose at import that changes how files are read (the same for every source). */
export interface ImportReadOptions {
  /**
   * IANA zone in which times a file writes without a zone are read (TV Time's plain date-times);
   * the account's unless another was chosen at import.
   */
  timeZone: string;
  /** True when the zone was chosen at import; false when it is the account's (the report says which). */
  timeZoneChosen: boolean;
}

/** Reading options for parsers called without an import (tests, tools): plain times in UTC. */
export const utcReading: ImportReadOptions = { timeZone: 'UTC', timeZoneChosen: true };

export interface ImportDocument {
  source: ImportSource;
  /** Name of the uploaded file (or `archive.zip/inner.json`), for messages. */
  fileName: string;
  shows: ImportShow[];
  titles: ImportTitle[];
  /** Watched episodes known by an episode id only (see ImportEpisodeRef); absent: none. */
  episodeRefs?: ImportEpisodeRef[];
  /** Recognised entries left out (no usable id, unsupported kind, …). */
  skipped: ImportSkip[];
  /**
   * How the file was read, for the report: the zone its plain times were read in, what its only
   * date stands for (IMDb's Date Rated, Letterboxd's "marked seen" dates); absent: nothing to say.
   */
  notes?: string[];
}

/**
 * A file that cannot be imported: 400 naming the file and the first problem. An AppError (code
 * BAD_INPUT), so GraphQL answers it as data and the REST facade maps it to its status.
 */
export class ImportFileError extends AppError {
  override name = 'ImportFileError';
  readonly code = 'BAD_INPUT' as const;
  constructor(
    readonly fileName: string,
    readonly problem: string,
  ) {
    super(`${fileName}: ${problem}`);
  }
}
