import { PothosValidationError } from '@pothos/core';

/** A list's page sizes (src/limits.ts listLimits). */
export interface PageLimit {
  readonly default: number;
  readonly max: number;
}

/** A page of a list: how many items from which position. */
export interface Page {
  first: number;
  offset: number;
}

/**
 * The page a list field's `first` and `offset` arguments ask for, checked: `first` a whole
 * number from 0 to the list's maximum (its default when omitted), `offset` not negative. Called
 * by the cost check before anything runs (so a bad page is a 400 up front) and by the resolver.
 * @throws PothosValidationError naming the argument and its bounds.
 */
export function listPage(args: { first?: number | null; offset?: number | null }, limit: PageLimit): Page {
  const first = args.first ?? limit.default;
  if (first < 0 || first > limit.max) throw new PothosValidationError(`Argument "first" must be from 0 to ${limit.max}; got ${first}`);
  const offset = args.offset ?? 0;
  if (offset < 0) throw new PothosValidationError(`Argument "offset" must not be negative; got ${offset}`);
  return { first, offset };
}

/** `items` cut to `page`. */
export const pageOf = <T>(items: readonly T[], page: Page): T[] => items.slice(page.offset, page.offset + page.first);

/**
 * The cost of a paged list field: its selection counts once per item the page may hold, and each
 * item costs `perItem` more for reading it (fieldCosts.episodeRow).
 */
export const pagedComplexity =
  (limit: PageLimit, perItem = 0) =>
  (args: { first?: number | null; offset?: number | null }) => {
    const { first } = listPage(args, limit);
    return { field: 1 + perItem * first, multiplier: first };
  };

/**
 * The cost of a Relay connection, with `first`/`last` checked against the connection's maximum
 * (the Pothos plugins would silently cut a page that asks for more). Negative sizes and a cursor
 * that is not one are refused by the plugins themselves.
 */
export function connectionComplexity(limit: PageLimit) {
  return (args: { first?: number | null; last?: number | null }) => {
    for (const name of ['first', 'last'] as const) {
      const size = args[name];
      if (size != null && (size < 0 || size > limit.max)) throw new PothosValidationError(`Argument "${name}" must be from 0 to ${limit.max}; got ${size}`);
    }
    return { field: 1, multiplier: args.first ?? args.last ?? limit.default };
  };
}

/** Describes a list's page arguments in the schema. */
export const pageDescriptions = (limit: PageLimit, items: string) => ({
  first: `How many ${items}: ${limit.default} when omitted, at most ${limit.max}.`,
  offset: `How many ${items} to skip first (default 0).`,
});
