import { createHash } from 'node:crypto';

/**
 * What every media server's webhook body is read into (the parsers of this folder are pure: a
 * decoded body in, a MediaEvent out, or a FormatError naming what the source sends). Matching
 * (../match-event.ts) and recording (../deliveries.ts) only ever see this shape.
 */

/** The webhook sources: one URL (and token) per account and source. */
export const mediaServerSources = ['jellyfin', 'plex', 'emby', 'generic'] as const;
export type MediaServerSource = (typeof mediaServerSources)[number];

/**
 * What an event asks for: `played` (played to its end: Plex `media.scrobble`, Jellyfin and Emby
 * stops played to completion, the generic `played`); `marked-played` / `marked-unplayed` (a
 * person's manual mark on the server: counts only when the connection lets manual marks count);
 * `progress` (start, pause, resume, progress: acknowledged and dropped without a database write);
 * `stopped` (a Jellyfin or Emby stop before the end: not counted, but logged with where it
 * stopped, so that "why wasn't my film marked?" has its answer in the delivery log); `other` (any
 * other event the server sends: library additions, ratings, server events).
 */
export type MediaAction = 'played' | 'marked-played' | 'marked-unplayed' | 'progress' | 'stopped' | 'other';

/** The catalogs' ids of an item as a server names them (all optional; one is often all there is). */
export interface MediaIds {
  tvdb?: number;
  tmdb?: number;
  imdb?: string;
  igdb?: number;
}

export interface MediaEvent {
  source: MediaServerSource;
  /** The server's own event name, as sent (`media.scrobble`, `PlaybackStop`, `item.markplayed`). */
  event: string;
  action: MediaAction;
  /** The server's user the event is about (Plex account title, Jellyfin/Emby user name). */
  user?: string;
  /** undefined: an item of no kind we track (music, a trailer, a photo) or none at all. */
  kind?: 'episode' | 'movie' | 'game';
  /** The item's own ids: an episode's (never its show's), a movie's, a game's. */
  ids: MediaIds;
  /** The item's own title (the episode's or the film's). */
  title?: string;
  /** Release year, where the server sends one (films). */
  year?: number;
  /** Episodes: the show as the server names it. */
  show?: { title?: string; ids: MediaIds };
  season?: number;
  episode?: number;
  /** A file holding several episodes (S01E01-E02): the last one; every one from `episode` is marked. */
  episodeEnd?: number;
  /** When it happened, when the server says (else the delivery's time). */
  at?: Date;
  /** sha256 of the server's own identity of this event, when it has one (repeats are answered once). */
  eventKey?: string;
  /** A stop before the end: how far it was played, in per cent of the item's run time, when the server says. */
  stoppedAt?: number;
  /** Ids the server sent that matching cannot use (an AniDB id, a malformed IMDb id), each with why. */
  unusedIds?: UnusedId[];
}

/** An id a server sent that Airdate cannot match by: its provider's name as sent, its value, and why. */
export interface UnusedId {
  provider: string;
  id: string;
  why: string;
}

/** A body that is not the source's format: answered 400 with this message (it names what was expected). */
export class FormatError extends Error {
  override name = 'FormatError';
}

/** sha256 of the parts that make up a server's own event identity; undefined when any is missing. */
export function eventKeyOf(...parts: (string | number | undefined)[]): string | undefined {
  if (parts.some((part) => part === undefined || part === '')) return undefined;
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Longest text kept of anything a server sends (titles, user names, event names). */
const maxText = 500;

/** A non-empty string, trimmed and bounded; undefined otherwise. Numbers are taken as their text. */
export function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : [...trimmed].slice(0, maxText).join('');
}

/**
 * A whole number from 0 up, given as a number or as its digits (form-encoded bodies send every
 * value as a string; Jellyfin's templates may send "01"); undefined otherwise.
 */
export function whole(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 2_147_483_647 ? value : undefined;
  if (typeof value === 'string' && /^\s*\d{1,9}\s*$/.test(value)) return Number(value);
  return undefined;
}

/** A positive id (TheTVDB, TMDB, IGDB). */
export function numericId(value: unknown): number | undefined {
  const number = whole(value);
  return number !== undefined && number > 0 ? number : undefined;
}

/** An IMDb id (`tt` + digits), case-insensitive prefix; undefined otherwise. */
export function imdbId(value: unknown): string | undefined {
  const id = text(value);
  return id !== undefined && /^tt\d{1,12}$/i.test(id) ? `tt${id.slice(2)}` : undefined;
}

/** true for true, "true", "True", "1"; false otherwise (Jellyfin's form values are C# "True"). */
export function truthy(value: unknown): boolean {
  if (value === true || value === 1) return true;
  return typeof value === 'string' && ['true', '1', 'yes'].includes(value.trim().toLowerCase());
}

/** A time the server sent (ISO 8601, or epoch seconds); undefined when it is not one. */
export function time(value: unknown): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/** A plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ids of a `ProviderIds` object (Jellyfin, Emby): keys `Tvdb`, `Tmdb`, `Imdb`, any case. */
export function providerIds(value: unknown): MediaIds {
  return readProviderIds(value).ids;
}

/** What matching cannot use an id of a provider other than TheTVDB, TMDB and IMDb for. */
const unknownProvider = 'Airdate matches by TheTVDB, TMDB and IMDb ids only';

/**
 * A `ProviderIds` object (or Jellyfin's `Provider_<name>` keys, gathered into one) read whole: the
 * ids matching uses (`Tvdb`, `Tmdb`, `Imdb`, any case), and every other id it holds with why it is
 * not used (AniDB, a collection's TMDB id, a value that is not an id of its catalog). At most 20.
 */
export function readProviderIds(value: unknown): { ids: MediaIds; unused: UnusedId[] } {
  if (!isRecord(value)) return { ids: {}, unused: [] };
  const ids: MediaIds = {};
  const unused: UnusedId[] = [];
  for (const [key, raw] of Object.entries(value).slice(0, 40)) {
    const shown = text(raw);
    if (shown === undefined) continue;
    const name = key.toLowerCase();
    if (name === 'tvdb' || name === 'tmdb') {
      const id = numericId(raw);
      if (id !== undefined) ids[name] ??= id;
      else unused.push({ provider: key, id: shown, why: `not a ${name === 'tvdb' ? 'TheTVDB' : 'TMDB'} id (a positive number)` });
    } else if (name === 'imdb') {
      const id = imdbId(raw);
      if (id !== undefined) ids.imdb ??= id;
      else unused.push({ provider: key, id: shown, why: 'not an IMDb title id (tt and digits)' });
    } else {
      unused.push({ provider: key, id: shown, why: unknownProvider });
    }
  }
  return { ids: withoutUndefined(ids), unused: unused.slice(0, 20) };
}

/** The unused ids as the log and the answers say them: `anidb 12345 (why)`, joined. */
export function unusedIdsText(unused: UnusedId[]): string {
  const byWhy = new Map<string, string[]>();
  for (const id of unused) byWhy.set(id.why, [...(byWhy.get(id.why) ?? []), `${id.provider} ${id.id}`]);
  return [...byWhy].map(([why, names]) => `${names.join(', ')} (${why})`).join('; ');
}

/**
 * How far a stop before the end got, in per cent of the run time (both in ticks, as Jellyfin and
 * Emby send them); undefined when either is missing. Below 1 %, one decimal (a film abandoned at
 * 0.4 %); else whole per cents, rounded down (99.6 % is not "100 %").
 */
export function stoppedPercent(position: unknown, runTime: unknown): number | undefined {
  const at = typeof position === 'string' ? Number(position) : position;
  const total = typeof runTime === 'string' ? Number(runTime) : runTime;
  if (typeof at !== 'number' || typeof total !== 'number' || !Number.isFinite(at) || !Number.isFinite(total) || at < 0 || total <= 0) return undefined;
  const percent = Math.min(100, (at / total) * 100);
  return percent < 1 ? Math.floor(percent * 10) / 10 : Math.floor(percent);
}

/** `ids` without its undefined members (so that they compare and serialise cleanly). */
export function withoutUndefined<T extends object>(ids: T): T {
  return Object.fromEntries(Object.entries(ids).filter(([, value]) => value !== undefined)) as T;
}

/** The kind of a server's item type (`Episode`, `episode`, `Movie`, `movie`); undefined for any other. */
export function kindOfType(type: unknown): 'episode' | 'movie' | undefined {
  const name = text(type)?.toLowerCase();
  return name === 'episode' ? 'episode' : name === 'movie' ? 'movie' : undefined;
}
