import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { projectRoot } from './paths.ts';
import { schema } from './schema.ts';

/** The committed SDL file tools read; a test fails when it differs from the built schema. */
export const schemaFile = path.join(projectRoot, 'schema.graphql');

/** The schema as SDL, sorted so that the file only changes when the schema does. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
