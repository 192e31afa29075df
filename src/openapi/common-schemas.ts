import { z } from 'zod';

/**
 * The pieces every REST answer's schema is made of. Each feature writes its own answers' zod
 * schemas beside its route (`<feature>-rest-schemas.ts`); presenters are typed with them
 * (`z.input<…>` as their return type), the OpenAPI document is generated from them, and the test
 * suite checks every REST response it sees against that document (test/support/openapi-check.ts).
 * Objects are strict: a field the document does not name is a violation, so the document stays
 * complete.
 */

export const dateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).meta({ description: 'A calendar date, YYYY-MM-DD, in the account’s time zone.', examples: ['2026-11-21'] });
export const itemIdSchema = z.int().min(1).meta({ description: 'The id the write endpoints take for this kind.' });
export const posterSchema = z.string().nullable().meta({ description: 'Poster image URL, or null.' });
export const timestampSchema = z.iso.datetime().meta({ description: 'ISO 8601 UTC with milliseconds.', examples: ['2026-11-21T08:00:00.000Z'] });
export const countSchema = z.int().min(0);

export const errorSchema = z.strictObject({ error: z.string() }).meta({ id: 'Error', description: 'Every failure: exactly one member, the message.' });

export const okSchema = z.strictObject({ ok: z.literal(true) }).meta({ id: 'Ok', description: 'A write that succeeded.' });
