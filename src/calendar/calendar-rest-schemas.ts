import { z } from 'zod';
import { wholeNumberParameter } from '../http/rest-input.ts';
import { calendarDefaults, calendarKinds, calendarMaxDays } from './calendar-service.ts';

/** What the calendar route takes (calendar-route.ts), as zod schemas: see http/rest-input.ts. */

/** `?past=` and `?future=` of the calendar (built once: the route parses every request with them). */
const calendarDaysSchema = (name: 'past' | 'future') =>
  wholeNumberParameter(calendarMaxDays, `${name} must be a whole number of days from 0 to ${calendarMaxDays}`).meta({
    description: `Days ${name === 'past' ? 'before' : 'after'} the account's local today to include, 0–${calendarMaxDays} (default ${calendarDefaults[name]}), given once.`,
  });
export const calendarDaysSchemas = { past: calendarDaysSchema('past'), future: calendarDaysSchema('future') };

/** `?kinds=`: a comma list of item kinds, in canonical order without repeats. */
export const calendarKindsSchema = z
  .string()
  .transform((listed, context) => {
    const names = listed.split(',').map((name) => name.trim());
    const unknown = names.find((name) => !(calendarKinds as readonly string[]).includes(name));
    if (unknown !== undefined) {
      context.addIssue({ code: 'custom', message: `unknown kind "${unknown}"; kinds is a comma-separated list of ${calendarKinds.join(', ')}` });
      return z.NEVER;
    }
    // Canonical order and no repeats: `movie,episode` and `episode,movie,movie` share a cache entry.
    return calendarKinds.filter((kind) => names.includes(kind));
  })
  .meta({ description: `Comma-separated list of ${calendarKinds.join(', ')} (default: all), given once.`, examples: ['episode,movie'] });
