import { z } from 'zod';
import { maxIntColumn } from '../limits.ts';
import { HttpError } from './responses.ts';

/**
 * Reading what a REST request sends (bodies and query parameters) with zod schemas: the routes
 * validate with them and the OpenAPI document is generated from the same schemas, so the two
 * cannot drift. Each issue's message is the one the API has always answered; zod reports issues
 * in key order, so the first problem reported is the same as before (kind, then id, then flags).
 */

/** `issue.input === undefined` is a missing field (JSON has no undefined values). */
export const requiredOr = (name: string, wrong: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : wrong);

export const kindField = <K extends string>(allowed: readonly [K, ...K[]]) =>
  z.enum(allowed, { error: requiredOr('kind', `kind must be one of ${allowed.join(', ')}`) });

const idMessage = `id must be a positive integer up to ${maxIntColumn}`;
export const idField = z
  .int({ error: requiredOr('id', idMessage) })
  .min(1, { error: idMessage })
  .max(maxIntColumn, { error: idMessage })
  .meta({ description: "The item's database id (GraphQL `databaseId`) for its kind." });

export const flag = (name: string, description: string) => z.boolean({ error: requiredOr(name, `${name} must be true or false`) }).meta({ description });

export const bodyError = { error: 'request body must be a JSON object' };

/** Digits only: Number() would accept ' 7', '1e3', '0x10' and '7.0'. */
const wholeNumberText = /^\d{1,9}$/;

/** A query value of digits from 0 to `max`, every problem answered with `message`. */
export const wholeNumberParameter = (max: number, message: string) =>
  z
    .string({ error: message })
    .regex(wholeNumberText, { error: message })
    .transform(Number)
    .pipe(z.int().max(max, { error: message }));

/**
 * `value` checked by `schema`: its parsed value, or a 400 with the first problem's message (the
 * messages above are whole sentences; a JSON path would add nothing a client needs).
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, parsed.error.issues[0]?.message ?? 'invalid request');
  return parsed.data;
}

/**
 * The one value of query parameter `name` checked by `schema`, or undefined when it is absent.
 * A parameter given twice is a 400 `repeated` before its values are looked at.
 */
export function queryParameter<T extends z.ZodType>(search: URLSearchParams, name: string, schema: T, repeated: string): z.output<T> | undefined {
  const values = search.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new HttpError(400, repeated);
  return parseInput(schema, values[0]);
}
