/**
 * The Airdate export document (docs/export-format.md): what `GET /api/export` streams, what
 * `Query.export` answers and what `parseAirdateExport` reads back. Plain JSON-ready data: every
 * timestamp is an ISO 8601 UTC string with milliseconds, every date `YYYY-MM-DD`.
 */
import type { EpisodeIds, ExternalIds, ItemIdSource, MediaKind } from '../catalog/provider.ts';
import { episodeIdSources, idSourcesByKind, sourcesByKind } from '../catalog/provider.ts';

/** The `format` member every export carries. */
export const exportFormat = 'airdate-export';
/** The layout version this server writes and reads. */
export const exportVersion = 1;

/** One real change of a watched flag. */
export interface ExportWatchEvent {
  watched: boolean;
  /** ISO 8601 UTC with milliseconds. */
  at: string;
}

/** An episode inside its show, with the account's state and history of it. */
export interface ExportEpisode {
  season: number;
  number: number;
  title: string | null;
  airDate: string | null;
  /** The episode's own ids (`tvdb`, `tmdb`, `imdb`), only when it has any. */
  ids?: EpisodeIds;
  /** Current state; false when the account never watched it. */
  watched: boolean;
  /** Oldest first. */
  history: ExportWatchEvent[];
}

/** A show with the account's flags and every episode the catalog holds for it. */
export interface ExportShow {
  /** Only the ids the show has: `tmdb`, `tvdb`, `imdb`. */
  ids: ExternalIds;
  title: string;
  poster: string | null;
  overview: string | null;
  followed: boolean;
  archived: boolean;
  /** Every episode the catalog holds for the show, by season and number. */
  episodes: ExportEpisode[];
}

/** A movie (ids `tmdb`, `tvdb`, `imdb`) or a game (ids `igdb`, `giantbomb`). */
export interface ExportTitle {
  ids: ExternalIds;
  title: string;
  poster: string | null;
  overview: string | null;
  releaseDate: string | null;
  followed: boolean;
  watched: boolean;
  history: ExportWatchEvent[];
}

/** The account's settings, for reference (an import does not apply them). */
export interface ExportAccount {
  name: string;
  timezone: string;
  webhookUrl: string | null;
}

/** Everything before the item lists (key order is the document's). */
export interface ExportHead {
  format: typeof exportFormat;
  version: typeof exportVersion;
  exportedAt: string;
  account: ExportAccount;
}

/** The whole document, as `collectExport` builds it and the download streams it. */
export interface ExportDocument extends ExportHead {
  shows: ExportShow[];
  movies: ExportTitle[];
  games: ExportTitle[];
}

/** The attachment name: the account's local date of the export. */
export const exportFileName = (localDate: string): string => `airdate-export-${localDate}.json`;

/** The ids an item has, in the kind's source order, with absent ones left out (not null). */
export function presentIds(kind: MediaKind, columns: Partial<Record<ItemIdSource, unknown>>): ExternalIds {
  const ids: Record<string, number | string> = {};
  for (const source of idSourcesByKind[kind]) {
    const value = columns[source];
    if (value !== null && value !== undefined) ids[source] = source === 'imdb' ? String(value) : Number(value);
  }
  return ids as ExternalIds;
}

/** An episode's ids, or undefined when it has none (the export leaves the key out). */
export function presentEpisodeIds(columns: Partial<Record<keyof EpisodeIds, unknown>>): EpisodeIds | undefined {
  const ids: Record<string, number | string> = {};
  for (const source of episodeIdSources) {
    const value = columns[source];
    if (value !== null && value !== undefined) ids[source] = source === 'imdb' ? String(value) : Number(value);
  }
  return Object.keys(ids).length === 0 ? undefined : (ids as EpisodeIds);
}

/** What the items of a section are sorted by: never a database id, so every server agrees. */
interface SortableItem {
  ids: ExternalIds;
  title: string;
}

/**
 * Export order within a section: by the kind's external ids in source order (an item lacking
 * one sorts after those that have it), then by title (code-unit order, locale-independent).
 * Items with equal ids and titles can only be id-less duplicates, which no import can match.
 */
export function compareExportItems(kind: MediaKind): (a: SortableItem, b: SortableItem) => number {
  const sources = sourcesByKind[kind];
  return (a, b) => {
    for (const source of sources) {
      // The catalogs' own ids (numbers) only: the order stays what it was before other ids.
      const left = a.ids[source];
      const right = b.ids[source];
      if (left === right) continue;
      if (left === undefined) return 1;
      if (right === undefined) return -1;
      return left - right;
    }
    return a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
  };
}
