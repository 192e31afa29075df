import { writeFileSync } from 'node:fs';
import { printedSchema, schemaFile } from '../src/print-schema.ts';

/** Writes schema.graphql from the Pothos schema (`npm run schema:print`). */
writeFileSync(schemaFile, printedSchema());
process.stdout.write(`wrote ${schemaFile}\n`);
