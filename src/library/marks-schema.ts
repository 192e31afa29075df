import { db } from '../db/client.ts';
import { visibleTo } from '../db/catalog-visibility.ts';
import { builder } from '../graphql/builder.ts';
import { writeErrors } from '../graphql/errors.ts';
import { listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';
import { listLimits } from '../limits.ts';
import { ShowRef } from '../catalog/catalog-schema.ts';
import { LibraryItemRef, WatchKind } from './library-schema.ts';
import { markEpisodes, markItems, markLimits, undoMarks, type MarkResult } from './marks.ts';

/**
 * What the web app's library pages read and write beyond the machine API: a show by id, the
 * viewer's follow state and watched flags on catalog items, the watch history, bulk marks with a
 * chosen date, and undoing marks.
 */

builder.queryField('show', (t) =>
  t.prismaField({
    type: 'Show',
    nullable: true,
    description: 'A catalog show by its database id; null when none has it.',
    args: { id: t.arg.int({ required: true }) },
    // Another account's unconfirmed import row is null here, as if it did not exist (catalog-visibility.ts).
    resolve: (query, _root, args, context) =>
      args.id > 0 && args.id <= 2_147_483_647 ? db().show.findFirst({ ...query, where: { id: args.id, ...visibleTo(context.account.id) } }) : null,
  }),
);

// The viewer's state on catalog items: read with the item's own query (Prisma batches the nested
// selection), so a page of search results or episodes costs one more query, not one per item.
for (const model of ['Show', 'Movie', 'Game'] as const) {
  builder.prismaObjectField(model, 'libraryEntry', (t) =>
    t.field({
      type: LibraryItemRef,
      nullable: true,
      description: "The viewer's library row for it (follow and archive state); null when it was never in the library.",
      select: (_args, context) => ({ libraryRows: { where: { accountId: context.account.id }, take: 1 } }),
      resolve: (item) => item.libraryRows[0] ?? null,
    }),
  );
}

for (const model of ['Episode', 'Movie', 'Game'] as const) {
  builder.prismaObjectField(model, 'watched', (t) =>
    t.boolean({
      description: 'Whether the viewer has marked it watched (played, for a game).',
      select: (_args, context) => ({ watchStates: { where: { accountId: context.account.id }, take: 1, select: { watched: true } } }),
      resolve: (item) => item.watchStates[0]?.watched ?? false,
    }),
  );
}

builder.prismaObjectField('Show', 'watchedEpisodeCount', (t) =>
  t.int({
    description: 'How many of its episodes the viewer has marked watched, specials included.',
    resolve: (show, _args, context) => db().watchState.count({ where: { accountId: context.account.id, watched: true, episode: { showId: show.id } } }),
  }),
);
void ShowRef;

const historyPage = pageDescriptions(listLimits.watchHistory, 'entries');

builder.prismaObject('WatchEvent', {
  name: 'HistoryEntry',
  description: 'One mark in the watch history: an episode, movie or game marked watched or unwatched.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The id undoMarks takes.' }),
    kind: t.field({ type: WatchKind, resolve: (row) => row.kind as 'episode' | 'movie' | 'game' }),
    watched: t.exposeBoolean('watched', { description: 'False for an unmark.' }),
    at: t.expose('at', { type: 'DateTime', description: 'When it was watched; when the mark was made if dateUnknown.' }),
    dateUnknown: t.exposeBoolean('dateUnknown', { description: 'Marked watched without a date.' }),
    estimated: t.exposeBoolean('estimated', { description: 'The time is an import\'s estimate.' }),
    source: t.exposeString('source', { description: 'api, graphql, webhook, import:<source>, …' }),
    episode: t.relation('episode', { nullable: true }),
    movie: t.relation('movie', { nullable: true }),
    game: t.relation('game', { nullable: true }),
  }),
});

const WatchHistory = builder.objectRef<{ accountId: number; kind?: string; watchedOnly: boolean }>('WatchHistory').implement({
  description: "The viewer's watch history, newest first.",
  fields: (t) => ({
    total: t.int({
      description: 'How many entries the filter holds.',
      resolve: (filter) => db().watchEvent.count({ where: historyWhere(filter) }),
    }),
    entries: t.prismaField({
      type: ['WatchEvent'],
      description: 'A page of entries, newest first (by time, then by when they were made).',
      args: { first: t.arg.int({ required: false, description: historyPage.first }), offset: t.arg.int({ required: false, description: historyPage.offset }) },
      complexity: pagedComplexity(listLimits.watchHistory),
      resolve: (query, filter, args) => {
        const page = listPage(args, listLimits.watchHistory);
        return db().watchEvent.findMany({ ...query, where: historyWhere(filter), orderBy: [{ at: 'desc' }, { id: 'desc' }], take: page.first, skip: page.offset });
      },
    }),
  }),
});

const historyWhere = (filter: { accountId: number; kind?: string; watchedOnly: boolean }) => ({
  accountId: filter.accountId,
  ...(filter.kind ? { kind: filter.kind } : {}),
  ...(filter.watchedOnly ? { watched: true } : {}),
});

builder.queryField('watchHistory', (t) =>
  t.field({
    type: WatchHistory,
    description: "The viewer's watch history, newest first: what was marked watched when (unmarks too with watchedOnly: false).",
    args: {
      kind: t.arg({ type: WatchKind, required: false, description: 'Only episodes, movies or games.' }),
      watchedOnly: t.arg.boolean({ required: false, description: 'Leave out unmarks (default true).' }),
    },
    resolve: (_root, args, context) => ({ accountId: context.account.id, kind: args.kind ?? undefined, watchedOnly: args.watchedOnly ?? true }),
  }),
);

const MarkDate = builder.enumType('MarkDate', {
  description: 'The date a watched mark records.',
  values: {
    NOW: { value: 'now', description: 'The moment of marking.' },
    AIR_DATE: { value: 'airDate', description: "The item's air or release date (noon UTC); unknown where it has none." },
    UNKNOWN: { value: 'unknown', description: 'No date: the history entry says the date is unknown.' },
  } as const,
});

const MarkResultRef = builder.objectRef<MarkResult>('MarkResult').implement({
  fields: (t) => ({
    changed: t.exposeInt('changed', { description: 'Items whose state changed; the others already had it.' }),
    itemIds: t.exposeIntList('itemIds', { description: 'The database ids of the items that changed.' }),
    historyIds: t.exposeIntList('historyIds', { description: 'The history entries written (one per changed item): what undoMarks takes to undo this.' }),
    feedVersion: t.exposeInt('feedVersion', { nullable: true, description: "The viewer's feed version this write made (libraryChanged carries it): a tab that sees it in an event knows the event is its own write's echo. Null when nothing changed." }),
  }),
});

const MarkEpisodesInput = builder.inputType('MarkEpisodesInput', {
  fields: (t) => ({
    showId: t.int({ required: true }),
    season: t.int({ required: false, description: 'Only this season (0: the specials).' }),
    upToEpisodeId: t.int({ required: false, description: 'Every episode up to and including this one.' }),
    includeSpecials: t.boolean({ required: false, description: 'Specials are left out unless asked for (or season is 0).' }),
    watched: t.boolean({ required: true }),
    date: t.field({ type: MarkDate, required: false, description: 'NOW when omitted; an unmark is always dated now.' }),
  }),
});

builder.mutationField('markEpisodes', (t) =>
  t.field({
    type: MarkResultRef,
    description: `Marks a show's episodes in one transaction: the whole show, a season, or everything up to an episode. Marking watched takes only the episodes that have aired (on or before the account's today); unmarking takes them all. At most ${markLimits.items} episodes at once.`,
    errors: { types: writeErrors },
    args: { input: t.arg({ type: MarkEpisodesInput, required: true }) },
    resolve: (_root, { input }, context) =>
      markEpisodes({
        accountId: context.account.id,
        timeZone: context.account.timezone,
        showId: input.showId,
        season: input.season ?? undefined,
        upToEpisodeId: input.upToEpisodeId ?? undefined,
        includeSpecials: input.includeSpecials ?? undefined,
        watched: input.watched,
        date: input.date ?? undefined,
        source: context.source,
      }),
  }),
);

const MarkWatchedInput = builder.inputType('MarkWatchedInput', {
  fields: (t) => ({
    kind: t.field({ type: WatchKind, required: true }),
    ids: t.intList({ required: true, description: `Database ids, 1 to ${markLimits.items}.` }),
    watched: t.boolean({ required: true }),
    date: t.field({ type: MarkDate, required: false, description: 'NOW when omitted; an unmark is always dated now.' }),
  }),
});

builder.mutationField('markWatched', (t) =>
  t.field({
    type: MarkResultRef,
    description: 'Marks episodes, movies or games watched or unwatched in one transaction, with the date chosen; answers the history entries written, for undoMarks.',
    errors: { types: writeErrors },
    args: { input: t.arg({ type: MarkWatchedInput, required: true }) },
    resolve: (_root, { input }, context) =>
      markItems({ accountId: context.account.id, kind: input.kind, ids: input.ids, watched: input.watched, date: input.date ?? undefined, source: context.source }),
  }),
);

const UndoResult = builder.objectRef<{ removed: number; changed: number; feedVersion: number }>('UndoResult').implement({
  fields: (t) => ({
    removed: t.exposeInt('removed', { description: 'History entries removed.' }),
    changed: t.exposeInt('changed', { description: "Items whose watched state went back." }),
    feedVersion: t.exposeInt('feedVersion', { description: "The viewer's feed version this undo made (libraryChanged carries it)." }),
  }),
});

builder.mutationField('undoMarks', (t) =>
  t.field({
    type: UndoResult,
    description: `Undoes marks by their history entries (the viewer's own, at most ${markLimits.undo}): removes them, and each item's state becomes what its latest remaining entry says, or what it was before the first removed one. All or nothing.`,
    errors: { types: writeErrors },
    args: { ids: t.arg.intList({ required: true }) },
    resolve: (_root, args, context) => undoMarks({ accountId: context.account.id, historyIds: args.ids }),
  }),
);
