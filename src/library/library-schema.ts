import { libraryPage } from './library-read.ts';
import { setFollow, setWatched } from './library.ts';
import { listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { CatalogItem, MediaKind } from '../catalog/catalog-schema.ts';
import { writeErrors } from '../graphql/errors.ts';
import { connectionComplexity } from '../graphql/pages.ts';

export const LibraryItemRef = builder.prismaObject('LibraryItem', {
  description: "A show, movie or game in the viewer's library, with its follow and archive state.",
  fields: (t) => ({
    kind: t.field({ type: MediaKind, resolve: (row) => row.kind as 'show' | 'movie' | 'game' }),
    followed: t.exposeBoolean('followed'),
    archived: t.exposeBoolean('archived'),
    followedAt: t.expose('followedAt', { type: 'DateTime', nullable: true }),
    item: t.field({
      type: CatalogItem,
      select: { show: true, movie: true, game: true },
      resolve: (row) => {
        const item = row.show ?? row.movie ?? row.game;
        if (!item) throw new Error(`library item ${row.id} points at nothing`);
        return item;
      },
    }),
  }),
});

builder.queryField('library', (t) =>
  t.prismaConnection({
    type: 'LibraryItem',
    cursor: 'id',
    description: `The viewer's library, oldest entry first, ${listLimits.connection.default} items a page unless first or last asks for up to ${listLimits.connection.max}.`,
    complexity: connectionComplexity(listLimits.connection),
    args: {
      kind: t.arg({ type: MediaKind, required: false }),
      followed: t.arg.boolean({ required: false }),
      archived: t.arg.boolean({ required: false }),
    },
    // Prepared SQL unless the selection needs a relation (library-read.ts).
    resolve: (query, _root, args, context) => libraryPage(context.account.id, args, query),
  }),
);

export const WatchKind = builder.enumType('WatchKind', {
  values: { EPISODE: { value: 'episode' }, MOVIE: { value: 'movie' }, GAME: { value: 'game' } } as const,
});

const FollowKind = builder.enumType('FollowKind', {
  values: { SHOW: { value: 'show' }, MOVIE: { value: 'movie' }, GAME: { value: 'game' } } as const,
});

export const WriteResult = builder.objectRef<{ changed: boolean }>('WriteResult').implement({
  fields: (t) => ({
    ok: t.boolean({ resolve: () => true }),
    changed: t.exposeBoolean('changed', { description: 'False when the item already had this state.' }),
  }),
});

const SetWatchedInput = builder.inputType('SetWatchedInput', {
  fields: (t) => ({
    kind: t.field({ type: WatchKind, required: true }),
    id: t.int({ required: true, description: 'Database id of the episode, movie or game.' }),
    watched: t.boolean({ required: true }),
  }),
});

const SetFollowInput = builder.inputType('SetFollowInput', {
  fields: (t) => ({
    kind: t.field({ type: FollowKind, required: true }),
    id: t.int({ required: true, description: 'Database id of the show, movie or game.' }),
    followed: t.boolean({ required: false, description: 'Left as it is when omitted.' }),
    archived: t.boolean({ required: false, description: 'Shows only. Left as it is when omitted.' }),
  }),
});

builder.mutationField('setWatched', (t) =>
  t.field({
    type: WriteResult,
    description: 'Marks an episode, movie or game watched or unwatched; appends to the watch history on a real change.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: SetWatchedInput, required: true }) },
    resolve: (_root, { input }, context) =>
      setWatched({ accountId: context.account.id, kind: input.kind, id: input.id, watched: input.watched, source: context.source }),
  }),
);

builder.mutationField('setFollow', (t) =>
  t.field({
    type: WriteResult,
    description: 'Follows, unfollows, archives or unarchives a show, movie or game.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: SetFollowInput, required: true }) },
    resolve: (_root, { input }, context) =>
      setFollow({
        accountId: context.account.id,
        kind: input.kind,
        id: input.id,
        followed: input.followed ?? undefined,
        archived: input.archived ?? undefined,
      }),
  }),
);
