import { initGraphQLTada } from 'gql.tada';
import type { introspection } from '../graphql-env.d.ts';

/**
 * Typed GraphQL documents: each operation is checked against schema.graphql (through the
 * generated web/graphql-env.d.ts) by `npm run typecheck`, so a schema change that breaks a page
 * fails the type check rather than the page at run time.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; LocalDate: string; File: File };
}>();

export { readFragment } from 'gql.tada';
export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
