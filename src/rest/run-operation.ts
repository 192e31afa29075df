import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { HttpError } from '../http/responses.ts';
import type { Logger } from '../log.ts';
import type { GraphQLContext } from '../schema/context.ts';

/** Parses and validates an operation of the REST facade once, at start-up: a typo fails fast. */
export function prepareOperation(schema: GraphQLSchema, source: string): DocumentNode {
  const document = parse(source);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`invalid REST facade operation: ${errors.map((error) => error.message).join('; ')}`);
  return document;
}

/**
 * Runs a prepared operation on the schema with an authenticated context and returns its data.
 * GraphQL errors without a cause are input coercion failures (400); anything thrown by a
 * resolver is unexpected here (expected failures come back as data), so it is logged and
 * answered with a generic 500.
 */
export async function runOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  context: GraphQLContext,
  logger: Logger,
  variableValues?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await execute({ schema, document, contextValue: context, variableValues });
  const [error] = result.errors ?? [];
  if (error) {
    if (!error.originalError) throw new HttpError(400, error.message);
    logger.error('REST operation failed', error.originalError);
    throw new HttpError(500, 'internal server error');
  }
  if (!result.data) throw new HttpError(500, 'internal server error');
  return result.data as Record<string, unknown>;
}
