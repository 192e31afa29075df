/**
 * What every import source is parsed into before anything is written: one document per uploaded
 * file (or per file inside an uploaded zip). Parsers are pure (bytes in, document out) and throw
 * ImportFileError on a malformed file; `applyImportDocument` (src/services/import.ts) writes a
 * document in one transaction with the merge rules of decisions.md ("Import and export").
 */
import { AppError } from '../errors.ts';

/** External ids as the catalogs know them; at least one per item for it to be matched. */
export interface ImportIds {
  tmdb?: number;
  tvdb?: number;
  igdb?: number;
}

/** One entry of the watch history: a real change of the watched flag at a known time. */
export interface ImportWatchEvent {
  watched: boolean;
  at: Date;
}

export interface ImportEpisode {
  season: number;
  number: number;
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
  poster?: string | null;
  overview?: string | null;
  /** Follow state the file states (the Airdate export does); undefined: "becomes followed". */
  followed?: boolean;
  /** Archive state the file states; undefined: left as it is. */
  archived?: boolean;
  episodes: ImportEpisode[];
}

export interface ImportTitle {
  kind: 'movie' | 'game';
  ids: ImportIds;
  title: string;
  poster?: string | null;
  overview?: string | null;
  releaseDate?: string | null;
  followed?: boolean;
  history: ImportWatchEvent[];
  watched?: boolean;
}

/** Something in the file that was recognised but not imported, and why. */
export interface ImportSkip {
  item: string;
  reason: string;
}

export type ImportSource = 'trakt' | 'simkl' | 'tvtime' | 'airdate' | 'grouvee';

export interface ImportDocument {
  source: ImportSource;
  /** Name of the uploaded file (or `archive.zip/inner.json`), for messages. */
  fileName: string;
  shows: ImportShow[];
  titles: ImportTitle[];
  /** Recognised entries left out (no usable id, unsupported kind, …). */
  skipped: ImportSkip[];
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
