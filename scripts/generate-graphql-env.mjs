// Writes web/graphql-env.d.ts, the introspection types gql.tada checks the web app's operations
// against, from schema.graphql (the schema web/tsconfig.json's gql.tada plugin entry names).
// Run by `npm run build` and `npm run typecheck`, so a schema change reaches the web app's type
// check at once; test/web/graphql-env.test.ts fails when the committed file is stale.
// Usage: node scripts/generate-graphql-env.mjs [output file]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateOutput } from '@gql.tada/cli-utils';

const root = fileURLToPath(new URL('..', import.meta.url));

await generateOutput({
  output: path.resolve(process.argv[2] ?? path.join(root, 'web/graphql-env.d.ts')),
  tsconfig: path.join(root, 'web/tsconfig.json'),
  silent: true,
});
