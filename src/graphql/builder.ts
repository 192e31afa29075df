import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { db } from '../db/client.ts';
import { listLimits, reportListWeight } from '../limits.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { GraphQLContext } from './context.ts';

/** The one Pothos builder: plugins and scalars only; types live in one file per domain. */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    LocalDate: { Input: string; Output: string };
    File: { Input: UploadedBlob; Output: never };
  };
}>({
  plugins: [ErrorsPlugin, RelayPlugin, PrismaPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  // The cost of a document (src/graphql/graphql-limits.ts checks it before anything runs): every
  // selected field costs 1, and a list's selection counts once per item its page can hold. Lists
  // that grow with the library or the catalog set their multiplier from their page size (see
  // pages.ts); any other list counts as `reportListWeight` items.
  complexity: { defaultComplexity: 1, defaultListMultiplier: reportListWeight },
  // A connection's cost multiplies its whole selection by its page size (pages.ts), so its edges
  // list counts once more, not `reportListWeight` times.
  relay: { clientMutationId: 'omit', cursorType: 'String', edgesFieldOptions: { complexity: { field: 1, multiplier: 1 } } },
  prisma: {
    // The client is owned by src/db/client.ts and opened before the first request.
    client: () => db(),
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    defaultConnectionSize: listLimits.connection.default,
    maxConnectionSize: listLimits.connection.max,
  },
  errors: { defaultTypes: [] },
});

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO 8601 UTC timestamp with milliseconds.',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : null;
    if (!date || Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 timestamp');
    return date;
  },
});

builder.scalarType('LocalDate', {
  description: 'A calendar date, YYYY-MM-DD.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new TypeError('LocalDate must be YYYY-MM-DD');
    return value;
  },
});

/**
 * An uploaded file part: a fetch API File as graphql-yoga's built-in multipart support (the
 * GraphQL multipart request spec) and the REST import route both produce. Yoga's own parser is
 * used rather than graphql-upload-minimal: it needs no second body parser in front of Yoga, gives
 * standard File objects instead of Node streams, and the size cap is applied before it runs.
 */
export interface UploadedBlob {
  name: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

builder.scalarType('File', {
  description: 'A file part of a multipart/form-data request (GraphQL multipart request spec).',
  serialize: () => {
    throw new TypeError('File is an input-only scalar');
  },
  parseValue: (value) => {
    const file = value as Partial<UploadedBlob> | null;
    if (typeof file?.arrayBuffer !== 'function') throw new TypeError('File must be an uploaded file part');
    return value as UploadedBlob;
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
