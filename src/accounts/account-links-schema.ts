import { showToken } from './tokens.ts';
import { builder } from '../graphql/builder.ts';
import { webContext } from './session-guard.ts';
import type { GraphQLContext } from '../graphql/context.ts';

/**
 * The machine URLs the developer settings offer for copying, built on the origin people open the
 * server at (AIRDATE_PUBLIC_URL, or what the request or a trusted proxy says: http/public-origin.ts),
 * with the account's token in `?token=`: calendar apps and Home Assistant's REST sensor take a URL
 * and nothing else. Like `apiToken`, reading them creates the token the first time.
 */
builder.prismaObjectFields('Account', (t) => ({
  calendarUrl: t.string({
    description: 'GET /api/calendar.ics with the token in ?token=, on the server\'s public origin: what a calendar app subscribes to (webcal: is the same URL with that scheme).',
    resolve: async (account, _args, context) => machineUrl(context, '/api/calendar.ics', await showToken({ accountId: account.id })),
  }),
  summaryUrl: t.string({
    description: "GET /api/machine/summary with the token in ?token=, on the server's public origin: what Home Assistant's REST sensor polls.",
    resolve: async (account, _args, context) => machineUrl(context, '/api/machine/summary', await showToken({ accountId: account.id })),
  }),
}));

/** `<origin><path>?token=<token>`, on the origin of the /graphql request (the REST facade never asks). */
function machineUrl(context: GraphQLContext, path: string, token: string): string {
  const url = new URL(path, webContext(context).origin);
  url.searchParams.set('token', token);
  return url.href;
}
