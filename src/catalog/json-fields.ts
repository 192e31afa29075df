import { isValidLocalDate } from '../time/dates.ts';
import { CatalogHttpError } from './http-client.ts';

/**
 * Lenient readers for catalog API answers. Remote catalogs omit fields, send null or "" for
 * unknown values and ids as numbers or numeric strings (TheTVDB), so each reader returns
 * undefined/null instead of throwing; only an answer whose overall shape is wrong is an error.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object, else a CatalogHttpError naming the provider and what was expected. */
export function expectObject(value: unknown, provider: string, what: string): JsonObject {
  if (!isObject(value)) throw new CatalogHttpError(`${provider}: ${what} is not a JSON object`, provider, undefined);
  return value;
}

/** The objects of an array field; anything else (missing, not an array) gives []. */
export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** A positive safe integer from a number or a numeric string, else undefined. */
export function positiveId(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : undefined;
}

/** A non-negative safe integer (season and episode numbers), else undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Trimmed text, or null for a missing, non-string or blank value. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** A YYYY-MM-DD calendar date (a longer timestamp is cut to its date), or null. */
export function localDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const date = value.trim().slice(0, 10);
  return isValidLocalDate(date) ? date : null;
}

/** An absolute http(s) URL, or null. */
export function httpUrl(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
