import { isValidLocalDate } from './time/dates.ts';
import { catalogDateRange, catalogLengths, catalogRuntimeMinutes, historyTimeRange, maxIntColumn } from './limits.ts';

/**
 * Checks of single values against the bounds in src/limits.ts, shared by every way a value comes
 * in: typed input (accounts, search), import documents (src/imports/sources/validate-document.ts), the
 * offline catalog file's schema and the network catalogs' records (src/catalog/catalog-bounds.ts).
 * One rule per kind of value, so an item the offline file may hold can also be imported, exported
 * and imported again.
 */

/**
 * Whether `text` has more than `max` characters (code points, see src/limits.ts). Costs nothing
 * for short text and never walks more than `2 × max` code units of a long one, so a megabyte
 * string is refused as cheaply as a short one is accepted.
 */
export function exceedsLength(text: string, max: number): boolean {
  // A code point is one or two UTF-16 units: length ≤ max is within, length > 2 × max is over.
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let points = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    points += 1;
    if (points > max) return true;
  }
  return false;
}

/** What shortened text ends with, so a reader sees that something was cut. */
export const ellipsis = '…';

/**
 * `text` when it has at most `max` characters, else its first `max − 1` characters and "…"
 * (`max` in all). The cut falls between code points, never inside a surrogate pair; the repair
 * migration's `substr(text, 1, max − 1) || '…'` gives the same result.
 */
export function shortenText(text: string, max: number): string {
  if (!exceedsLength(text, max)) return text;
  let end = 0;
  for (let points = 0; points < max - 1; points += 1) {
    const unit = text.charCodeAt(end);
    end += unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, end) + ellipsis;
}

/** `text` cut to `max` characters for quoting in a message (an error must not echo a megabyte). */
export function quoted(text: string, max = 60): string {
  return `"${shortenText(text, max)}"`;
}

/** An external id or database id: a whole number from 1 to maxIntColumn (the INTEGER columns). */
export function isIntColumnId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= maxIntColumn;
}

/** A season or episode number: a whole number from 0 to maxIntColumn. */
export function isIntColumnCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= maxIntColumn;
}

/**
 * A running time in minutes from a network catalog, as a record's field: `{ runtime }` within
 * catalogRuntimeMinutes, else nothing — an unknown one (TMDB's 0 or null) leaves a runtime another
 * catalog gave, so two catalogs never undo each other at each refresh.
 */
export function catalogRuntime(value: unknown): { runtime?: number } {
  return typeof value === 'number' && Number.isInteger(value) && value >= catalogRuntimeMinutes.min && value <= catalogRuntimeMinutes.max ? { runtime: value } : {};
}

/** Whether `date` is a real `YYYY-MM-DD` inside catalogDateRange (air and release dates). */
export function isCatalogDate(date: string): boolean {
  // Zero-padded YYYY-MM-DD compares as text in calendar order.
  return isValidLocalDate(date) && date >= catalogDateRange.earliest && date <= catalogDateRange.latest;
}

/** Whether `url` is an absolute http(s) URL of at most catalogLengths.posterUrl characters. */
export function isPosterUrl(url: string): boolean {
  if (exceedsLength(url, catalogLengths.posterUrl)) return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const earliestHistoryTime = Date.parse(historyTimeRange.earliest);

/** Whether `at` is a real instant inside historyTimeRange, judged at `now`. */
export function isHistoryTime(at: Date, now: number = Date.now()): boolean {
  const time = at.getTime();
  return !Number.isNaN(time) && time >= earliestHistoryTime && time <= now + historyTimeRange.aheadOfNowMs;
}
