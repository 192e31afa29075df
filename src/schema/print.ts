import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.ts';

/** The committed SDL file tools read; a test fails when it differs from the built schema. */
export const schemaFile = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

/** The schema as SDL, sorted so that the file only changes when the schema does. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
