import { builder } from '../../graphql/builder.ts';
import { writeErrors } from '../../graphql/errors.ts';
import { ImportResultRef } from '../../imports/import-schema.ts';
import { webContext } from '../../accounts/session-guard.ts';
import { queuePull } from './history-jobs.ts';
import { cancelPull, listHistories, listServerUsers, removeHistoryServer, saveHistoryServer, setPeriodicPull, startPull, type HistoryView } from './history-pulls.ts';
import { historyKinds, type HistoryKind } from './pull-document.ts';
import { maxServerUsers, type ServerUser } from './pulled-play.ts';
import type { GraphQLContext } from '../../graphql/context.ts';

// Bringing in a media server's past plays (history-pulls.ts): the server's address and key, its
// users, a dry run or an import as a job, its progress, cancel, remove.

const HistoryKindEnum = builder.enumType('MediaServerHistoryKind', {
  description: 'A media server whose past plays can be pulled.',
  values: Object.fromEntries(historyKinds.map((kind) => [kind.toUpperCase(), { value: kind }])) as Record<string, { value: HistoryKind }>,
});

const PullStateEnum = builder.enumType('MediaServerPullState', {
  description: 'Where the latest pull is.',
  values: {
    IDLE: { value: 'idle', description: 'No pull yet.' },
    QUEUED: { value: 'queued', description: 'Waiting for a worker.' },
    RUNNING: { value: 'running', description: 'Reading the server (read of total), then recording.' },
    DONE: { value: 'done', description: 'Finished: the report says what it recorded (or, for a dry run, would record).' },
    FAILED: { value: 'failed', description: 'Stopped by the server (a refused key, an HTML page, no answer in time): error says why; nothing was written.' },
    CANCELLED: { value: 'cancelled', description: 'Cancelled; nothing of it was written.' },
  } as const,
});

const ServerUserRef = builder.objectRef<ServerUser>('MediaServerUser').implement({
  description: 'A user of the media server, as it lists them.',
  fields: (t) => ({ id: t.exposeString('id'), name: t.exposeString('name') }),
});

const HistoryRef = builder.objectRef<HistoryView>('MediaServerHistory').implement({
  description: 'A media server the account pulls its past plays from, and its latest pull. The key or token is stored encrypted and never shown again.',
  fields: (t) => ({
    kind: t.field({ type: HistoryKindEnum, resolve: (row) => row.kind }),
    address: t.exposeString('address'),
    serverUser: t.field({ type: ServerUserRef, nullable: true, description: 'The server’s user whose plays are pulled (picked when a pull starts).', resolve: (row) => row.serverUser }),
    state: t.field({ type: PullStateEnum, resolve: (row) => row.state }),
    dryRun: t.exposeBoolean('dryRun', { description: 'Whether the latest pull is a dry run (writes nothing).' }),
    read: t.exposeInt('read', { description: 'Items read so far (or by the latest pull).' }),
    total: t.int({ nullable: true, description: 'Items the server holds for the pull (played or not, on Plex); null until its first page.', resolve: (row) => row.total }),
    error: t.string({ nullable: true, description: 'Why the latest pull failed or stopped.', resolve: (row) => row.error }),
    report: t.field({ type: ImportResultRef, nullable: true, description: 'The latest finished pull’s report, the same as a file import’s.', resolve: (row) => row.report }),
    periodic: t.exposeBoolean('periodic', { description: 'Whether an import is pulled every 6 hours (off by default).' }),
    startedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.startedAt }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.finishedAt }),
  }),
});

/** Where pulls may connect, with the request's own origin counted as Airdate's. */
function target(context: GraphQLContext) {
  const base = context.services.mediaServerPulls;
  const origin = context.web ? webContext(context).origin : undefined;
  return origin ? { ...base, ownOrigins: [...(base.ownOrigins ?? []), new URL(origin).origin] } : base;
}

builder.prismaObjectFields('Account', (t) => ({
  mediaServerHistories: t.field({
    type: [HistoryRef],
    description: 'The media servers the account pulls past plays from (one per kind at most).',
    complexity: { field: 1, multiplier: historyKinds.length },
    resolve: (account) => listHistories(account.id),
  }),
}));

builder.queryField('mediaServerUsers', (t) =>
  t.field({
    type: [ServerUserRef],
    description: 'The users of the viewer’s media server of `kind`, asked of the server with the kept key: pick the one that is you. A server that refuses the key, answers HTML or does not answer is an error (code BAD_INPUT) whose message says so.',
    complexity: { field: 1, multiplier: maxServerUsers },
    args: { kind: t.arg({ type: HistoryKindEnum, required: true }) },
    resolve: (_root, { kind }, context) => listServerUsers({ accountId: context.account.id, kind, target: target(context) }),
  }),
);

const SaveInput = builder.inputType('MediaServerHistoryInput', {
  fields: (t) => ({
    kind: t.field({ type: HistoryKindEnum, required: true }),
    address: t.string({ required: true, description: 'The server’s address, as the browser reaches it: http://192.168.1.20:8096, https://plex.example.com:32400.' }),
    apiKey: t.string({ required: true, description: 'Jellyfin or Emby: an API key (Dashboard → API Keys). Plex: the X-Plex-Token. Stored encrypted.' }),
  }),
});

builder.mutationField('saveMediaServerHistory', (t) =>
  t.field({
    type: HistoryRef,
    description: 'Keeps the address and key of a media server to pull past plays from (replacing the ones kept; the user picked is forgotten).',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: SaveInput, required: true }) },
    resolve: (_root, { input }, context) => saveHistoryServer({ accountId: context.account.id, kind: input.kind, address: input.address, key: input.apiKey, target: target(context) }),
  }),
);

builder.mutationField('startMediaServerPull', (t) =>
  t.field({
    type: HistoryRef,
    description: 'Starts pulling the past plays of the server’s user `userId`: a dry run (the report, nothing written) or an import. Runs in the background: read `viewer.mediaServerHistories` for its progress.',
    errors: { types: writeErrors },
    args: {
      kind: t.arg({ type: HistoryKindEnum, required: true }),
      userId: t.arg.string({ required: true, description: 'The id of one of `mediaServerUsers`.' }),
      dryRun: t.arg.boolean({ required: true }),
    },
    resolve: (_root, { kind, userId, dryRun }, context) =>
      startPull({ accountId: context.account.id, kind, userId, dryRun, target: target(context), jobs: context.services.jobs, queue: queuePull }),
  }),
);

builder.mutationField('cancelMediaServerPull', (t) =>
  t.field({
    type: HistoryRef,
    description: 'Cancels the running pull: a queued one at once, a running one at its next page; nothing of it is written.',
    errors: { types: writeErrors },
    args: { kind: t.arg({ type: HistoryKindEnum, required: true }) },
    resolve: (_root, { kind }, context) => cancelPull({ accountId: context.account.id, kind }),
  }),
);

builder.mutationField('setMediaServerPeriodicPull', (t) =>
  t.field({
    type: HistoryRef,
    description: 'Turns the periodic pull on or off: an import every 6 hours picks up the plays the webhook missed (off by default).',
    errors: { types: writeErrors },
    args: { kind: t.arg({ type: HistoryKindEnum, required: true }), periodic: t.arg.boolean({ required: true }) },
    resolve: (_root, { kind, periodic }, context) => setPeriodicPull({ accountId: context.account.id, kind, periodic }),
  }),
);

builder.mutationField('removeMediaServerHistory', (t) =>
  t.boolean({
    description: 'Forgets the server: its address, its key or token, and the latest report (what was imported stays). False when none was kept.',
    args: { kind: t.arg({ type: HistoryKindEnum, required: true }) },
    resolve: (_root, { kind }, context) => removeHistoryServer({ accountId: context.account.id, kind }),
  }),
);
