import { HttpError } from '../http/responses.ts';
import { maxIntColumn } from '../limits.ts';

type Body = Record<string, unknown>;

/** The body must be a JSON object (not an array, string or null). */
export function requireObject(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'request body must be a JSON object');
  }
  return body as Body;
}

/** `kind`: one of `allowed`, given in lower case as the machine API spells it. */
export function requireKind<K extends string>(body: Body, allowed: readonly K[]): K {
  const kind = body.kind;
  if (kind === undefined) throw new HttpError(400, 'kind is required');
  if (typeof kind !== 'string' || !(allowed as readonly string[]).includes(kind)) {
    throw new HttpError(400, `kind must be one of ${allowed.join(', ')}`);
  }
  return kind as K;
}

/** `id`: a positive whole number within the 32-bit range ids have. */
export function requireId(body: Body): number {
  const id = body.id;
  if (id === undefined) throw new HttpError(400, 'id is required');
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > maxIntColumn) {
    throw new HttpError(400, `id must be a positive integer up to ${maxIntColumn}`);
  }
  return id;
}

/** A boolean field; `undefined` when optional and absent. */
export function booleanField(body: Body, name: string, required: true): boolean;
export function booleanField(body: Body, name: string, required: false): boolean | undefined;
export function booleanField(body: Body, name: string, required: boolean): boolean | undefined {
  const value = body[name];
  if (value === undefined) {
    if (required) throw new HttpError(400, `${name} is required`);
    return undefined;
  }
  if (typeof value !== 'boolean') throw new HttpError(400, `${name} must be true or false`);
  return value;
}
