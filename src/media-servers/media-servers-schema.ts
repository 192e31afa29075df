import { webContext } from '../accounts/session-guard.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';
import { mediaServerLimits } from '../limits.ts';
import { connect, listConnections, revoke, setOptions, type ConnectionView } from './connections.ts';
import { mediaServerPath } from './media-servers-route.ts';
import { mediaServerSources, type MediaServerSource } from './sources/media-event.ts';

// The Connections page's data: an account's media server connections (their URLs, options) and
// the log of their deliveries (src/media-servers).

const logLimit = { default: mediaServerLimits.logKept, max: mediaServerLimits.logKept + mediaServerLimits.pendingKept };
const logPage = pageDescriptions(logLimit, 'deliveries');

const MediaServerSourceEnum = builder.enumType('MediaServerSource', {
  description: 'A kind of media server webhook: one connection (URL and token) per account and source.',
  values: {
    JELLYFIN: { value: 'jellyfin', description: 'Jellyfin’s webhook plugin (or the older community plugin).' },
    PLEX: { value: 'plex', description: 'Plex Media Server’s webhooks (Plex Pass).' },
    EMBY: { value: 'emby', description: 'Emby’s webhooks.' },
    GENERIC: { value: 'generic', description: 'The generic JSON body: Kodi add-ons, scripts.' },
  } as const,
});

const MediaServerConnectionRef = builder.objectRef<ConnectionView>('MediaServerConnection').implement({
  description: 'A media server’s webhook into this account. Its token only records watches, through its own path.',
  fields: (t) => ({
    source: t.field({ type: MediaServerSourceEnum, resolve: (row) => row.source }),
    path: t.string({ description: 'The path with the token, to put after the server’s address: `/api/media-servers/plex?token=adw_…`.', resolve: (row) => `${mediaServerPath(row.source)}?token=${row.token}` }),
    url: t.string({
      description: 'The whole URL to paste into the server, on the server’s public origin (AIRDATE_PUBLIC_URL, or what the request says).',
      resolve: (row, _args, context) => {
        const url = new URL(mediaServerPath(row.source), webContext(context).origin);
        url.searchParams.set('token', row.token);
        return url.href;
      },
    }),
    users: t.stringList({
      description: `The server’s user names whose plays count (at most ${mediaServerLimits.usersPerConnection}); empty: every user’s.`,
      complexity: { field: 1, multiplier: mediaServerLimits.usersPerConnection },
      resolve: (row) => row.users,
    }),
    manualMarks: t.boolean({ description: 'Whether a manual “mark played” / “mark unplayed” on the server counts.', resolve: (row) => row.manualMarks }),
    createdAt: t.field({ type: 'DateTime', resolve: (row) => row.createdAt }),
    rotatedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the token was last regenerated.', resolve: (row) => row.rotatedAt }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, description: 'The last delivery (written at most once a minute).', resolve: (row) => row.lastUsedAt }),
  }),
});

builder.prismaObject('MediaServerDelivery', {
  description: 'One delivery of a media server and what came of it.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    source: t.field({ type: MediaServerSourceEnum, resolve: (row) => row.source as MediaServerSource }),
    at: t.expose('at', { type: 'DateTime' }),
    event: t.exposeString('event', { description: 'The server’s own event name.' }),
    serverUser: t.exposeString('serverUser', { nullable: true, description: 'The server’s user it was about.' }),
    result: t.exposeString('result', { description: 'matched | duplicate | removed | unmatched | ignored' }),
    detail: t.exposeString('detail', { description: 'What was recorded, or why nothing was.' }),
    waiting: t.boolean({ description: 'Unmatched and kept: retried on every sync and catalog refresh.', resolve: (row) => row.pending !== null }),
  }),
});

builder.prismaObjectFields('Account', (t) => ({
  mediaServerConnections: t.field({
    type: [MediaServerConnectionRef],
    description: 'The account’s media server connections (one per source at most).',
    complexity: { field: 1, multiplier: mediaServerSources.length },
    resolve: (account) => listConnections(account.id),
  }),
  mediaServerDeliveries: t.relation('mediaServerDeliveries', {
    description: `The newest deliveries of the account’s media servers, newest first: the last ${mediaServerLimits.logKept}, and older unmatched ones still waiting for the catalog (progress events are not kept).`,
    args: { first: t.arg.int({ required: false, description: logPage.first }), offset: t.arg.int({ required: false, description: logPage.offset }) },
    complexity: pagedComplexity(logLimit),
    query: (args) => {
      const page = listPage(args, logLimit);
      return { orderBy: { id: 'desc' as const }, take: page.first, skip: page.offset };
    },
  }),
}));

builder.mutationField('connectMediaServer', (t) =>
  t.field({
    type: MediaServerConnectionRef,
    description: 'Connects a media server: a new URL (token); connected already, the old URL stops working at once and the options stay.',
    errors: { types: writeErrors },
    args: { source: t.arg({ type: MediaServerSourceEnum, required: true }) },
    resolve: (_root, { source }, context) => connect({ accountId: context.account.id, source }),
  }),
);

builder.mutationField('revokeMediaServer', (t) =>
  t.boolean({
    description: 'Disconnects a media server: its URL stops working at once (the delivery log stays). False when it was not connected.',
    args: { source: t.arg({ type: MediaServerSourceEnum, required: true }) },
    resolve: (_root, { source }, context) => revoke({ accountId: context.account.id, source }),
  }),
);

const MediaServerOptionsInput = builder.inputType('MediaServerOptionsInput', {
  fields: (t) => ({
    source: t.field({ type: MediaServerSourceEnum, required: true }),
    users: t.stringList({ required: false, description: `The server’s user names whose plays count (at most ${mediaServerLimits.usersPerConnection}); [] for every user. Left as it is when omitted.` }),
    manualMarks: t.boolean({ required: false, description: 'Whether manual marks count. Left as it is when omitted.' }),
  }),
});

builder.mutationField('setMediaServerOptions', (t) =>
  t.field({
    type: MediaServerConnectionRef,
    description: 'Sets which server users count and whether manual marks count.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: MediaServerOptionsInput, required: true }) },
    resolve: (_root, { input }, context) =>
      setOptions({ accountId: context.account.id, source: input.source, users: input.users ?? undefined, manualMarks: input.manualMarks ?? undefined }),
  }),
);
