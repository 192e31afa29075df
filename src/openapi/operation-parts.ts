import { z } from 'zod';
import type { OpenApiResponse } from '../http/rest-route.ts';
import { errorSchema } from './common-schemas.ts';

/** The building blocks of the routes' OpenAPI operations (each route writes its own, beside its handler). */

type JsonSchema = Record<string, unknown>;

/** A reference to a schema of `.meta({ id })`, listed under the document's components. */
export const ref = (schema: z.ZodType): JsonSchema => {
  const id = z.globalRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('a response or body schema without an id');
  return { $ref: `#/components/schemas/${id}` };
};

export const jsonContent = (schema: z.ZodType) => ({ 'application/json': { schema: ref(schema) } });

/** A schema written out where it is used (query parameters), as JSON Schema 2020-12. */
const inline = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** An optional query parameter described by the zod schema the route reads it with. */
export const queryParameterSpec = (name: string, schema: z.ZodType, description?: string) => {
  const jsonSchema = inline(schema);
  return { name, in: 'query', required: false, description: description ?? jsonSchema.description, schema: jsonSchema };
};

/** A failure: `{"error": "<message>"}`. */
export const error = (description: string, headers?: Record<string, unknown>): OpenApiResponse => ({
  description,
  content: jsonContent(errorSchema),
  ...(headers ? { headers } : {}),
});

export const etag = { ETag: { description: 'Strong validator of this body; send it back in If-None-Match.', schema: { type: 'string' } } };
export const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier answer: 304 without a body when it still names the current one.',
  schema: { type: 'string' },
};
export const notModified: OpenApiResponse = { description: 'Not modified: the ETag sent still names the current body.', headers: etag };

/** What every JSON write can answer for its body. */
export const jsonWrite = {
  400: error('Malformed JSON, a body that is not an object, a missing or wrong-typed field, a value past its limit.'),
  413: error('Body over AIRDATE_MAX_JSON_KB.'),
  415: error('Not a JSON content type.'),
};
