import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { PothosValidationError } from '@pothos/core';
import { createComplexityRule } from '@pothos/plugin-complexity';
import { GraphQLError, validate, type DocumentNode, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';

/** The codes a refused document answers with, by limit. */
export const limitCodes = {
  depth: 'QUERY_TOO_DEEP',
  aliases: 'TOO_MANY_ALIASES',
  directives: 'TOO_MANY_DIRECTIVES',
  tokens: 'TOO_MANY_TOKENS',
  cost: 'QUERY_TOO_COSTLY',
} as const;

/** The setting that changes each limit, named in the refusal so an operator knows what to raise. */
const settingOf = {
  depth: 'AIRDATE_GRAPHQL_MAX_DEPTH',
  aliases: 'AIRDATE_GRAPHQL_MAX_ALIASES',
  directives: 'AIRDATE_GRAPHQL_MAX_DIRECTIVES',
  tokens: 'AIRDATE_GRAPHQL_MAX_TOKENS',
  cost: 'AIRDATE_GRAPHQL_MAX_COST',
} as const;

type Limit = keyof typeof limitCodes;

/**
 * A refusal: 400 whatever the Accept header (`spec: false` keeps Yoga from answering it with 200
 * as it does validation errors of `application/json` requests), with the limit's code.
 */
function refusal(limit: Limit, message: string): GraphQLError {
  return new GraphQLError(`${message} (the server's limit, ${settingOf[limit]})`, {
    extensions: { code: limitCodes[limit], http: { status: 400, spec: false } },
  });
}

/** Armor's message, without the "Syntax Error: " it puts in front of every rejection. */
const armorMessage = (error: GraphQLError) => error.message.replace(/^Syntax Error: /, '');

/** Armor's options for a validation rule: report our refusal instead of throwing its own. */
const reportAs = (limit: Limit) => ({
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(refusal(limit, armorMessage(error)))],
});

/**
 * What one GraphQL document may ask for, checked before any resolver runs (docs/configuration.md "Limits"):
 * tokens while it is parsed, depth, aliases and directives while it is validated (GraphQL Armor's
 * envelop plugins; fragments count at the depth they are spread at, introspection's own nesting
 * does not count), then its cost, computed from the schema's field costs (Pothos's complexity
 * plugin: every field 1, a list's selection once per item its page may hold) with the request's
 * variables. The cost is checked per request rather than as a validation rule, because it depends
 * on the variables and Yoga caches validation by the document's text.
 */
export function graphqlLimitPlugins(limits: Config['limits']['graphql']): Plugin[] {
  return [
    maxTokensPlugin({
      n: limits.maxTokens,
      propagateOnRejection: false,
      // Parsing has no context to report to: the refusal is thrown out of the parser.
      onReject: [
        (_context: unknown, error: GraphQLError) => {
          throw refusal('tokens', armorMessage(error));
        },
      ],
    }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ...reportAs('depth') }),
    maxAliasesPlugin({ n: limits.maxAliases, ...reportAs('aliases') }),
    maxDirectivesPlugin({ n: limits.maxDirectives, ...reportAs('directives') }),
    costLimitPlugin(limits.maxCost),
  ] as Plugin[];
}

/** Variable sets whose cost was found within the limit, kept per document before starting over. */
const passedPerDocument = 64;

/**
 * The cost check. Walking the document with the complexity rule cost ~0.1 ms of a 0.6 ms
 * `{ __typename }` (issue 14), so a document that passed with the same operation name and
 * variables is not walked again: the field costs read only the arguments (no context), and Yoga's
 * parse cache hands the same DocumentNode for the same text. Refusals are not cached (they are
 * rare, and each answer builds its own errors).
 */
function costLimitPlugin(maxCost: number): Plugin {
  const passed = new WeakMap<DocumentNode, Set<string>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const key = `${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}`;
      const known = passed.get(args.document);
      if (known?.has(key)) return;
      const errors: GraphQLError[] = [];
      const rule = createComplexityRule({
        context: args.contextValue as object,
        variableValues: (args.variableValues ?? {}) as Record<string, unknown>,
        operationName: args.operationName ?? undefined,
        validate: (state, report) => {
          if (state.complexity > maxCost) report(refusal('cost', `Query cost ${state.complexity} is over the limit of ${maxCost}`));
        },
      });
      let found: readonly GraphQLError[];
      try {
        found = validate(args.schema, args.document, [rule]);
      } catch (error) {
        // A field's cost function refusing an argument outside an operation the rule reads.
        if (!(error instanceof PothosValidationError)) throw error;
        found = [error];
      }
      for (const error of found) {
        // Variables the rule could not read are left to the execution, which reports them itself.
        if (error.extensions.code === limitCodes.cost) errors.push(error);
        else if (error instanceof PothosValidationError) errors.push(badArgument(error.message));
      }
      if (errors.length > 0) {
        setResultAndStopExecution({ errors });
        return;
      }
      const kept = known !== undefined && known.size < passedPerDocument ? known : new Set<string>();
      kept.add(key);
      passed.set(args.document, kept);
    },
  };
}

/** A page argument out of its bounds (pages.ts): 400 before anything runs. */
export function badArgument(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400, spec: false } } });
}
