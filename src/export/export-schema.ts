import type { ExternalIds } from '../catalog/provider.ts';
import type { ExportAccount, ExportEpisode, ExportShow, ExportTitle, ExportWatchEvent } from './export-format.ts';
import { collectExportSection, loadExportHead, type LoadedExportHead } from './export-service.ts';
import { listLimits } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { listPage, pageDescriptions, pagedComplexity, pageOf } from '../graphql/pages.ts';

// The export document as typed data. Field names and nesting are the download's
// (docs/export-format.md), so a query selecting every field gets the same document, except that
// absent external ids are null here and left out there, and that every list comes a page at a
// time (first/offset): whole documents are what the streamed download is for.

const historyPage = pageDescriptions(listLimits.history, 'entries');
const episodePage = pageDescriptions(listLimits.exportEpisodes, 'episodes');
const itemPage = pageDescriptions(listLimits.exportItems, 'items');

export const ExternalIdsRef = builder.objectRef<ExternalIds>('ExternalIds').implement({
  description: 'The ids an item has in the external catalogs; null where it has none.',
  fields: (t) => ({
    tmdb: t.int({ nullable: true, resolve: (ids) => ids.tmdb ?? null }),
    tvdb: t.int({ nullable: true, resolve: (ids) => ids.tvdb ?? null }),
    igdb: t.int({ nullable: true, resolve: (ids) => ids.igdb ?? null }),
    imdb: t.string({ nullable: true, description: 'IMDb (`tt` + digits): shows and movies.', resolve: (ids) => ids.imdb ?? null }),
    giantbomb: t.int({ nullable: true, description: 'Giant Bomb: games.', resolve: (ids) => ids.giantbomb ?? null }),
  }),
});

const EpisodeIdsRef = builder.objectRef<NonNullable<ExportEpisode['ids']>>('EpisodeIds').implement({
  description: "An episode's own ids at the catalogs; null where it has none.",
  fields: (t) => ({
    tvdb: t.int({ nullable: true, resolve: (ids) => ids.tvdb ?? null }),
    tmdb: t.int({ nullable: true, resolve: (ids) => ids.tmdb ?? null }),
    imdb: t.string({ nullable: true, resolve: (ids) => ids.imdb ?? null }),
  }),
});

const WatchHistoryEntry = builder.objectRef<ExportWatchEvent>('WatchHistoryEntry').implement({
  description: 'One real change of a watched flag.',
  fields: (t) => ({
    watched: t.exposeBoolean('watched'),
    at: t.field({ type: 'DateTime', resolve: (entry) => new Date(entry.at) }),
  }),
});

const ExportEpisodeRef = builder.objectRef<ExportEpisode>('ExportEpisode').implement({
  fields: (t) => ({
    season: t.exposeInt('season', { description: '0 for specials.' }),
    number: t.exposeInt('number'),
    title: t.exposeString('title', { nullable: true }),
    airDate: t.expose('airDate', { type: 'LocalDate', nullable: true }),
    ids: t.field({ type: EpisodeIdsRef, resolve: (episode) => episode.ids ?? {} }),
    watched: t.exposeBoolean('watched'),
    history: t.field({
      type: [WatchHistoryEntry],
      description: 'Oldest first, a page at a time.',
      args: { first: t.arg.int({ required: false, description: historyPage.first }), offset: t.arg.int({ required: false, description: historyPage.offset }) },
      complexity: pagedComplexity(listLimits.history),
      resolve: (episode, args) => pageOf(episode.history, listPage(args, listLimits.history)),
    }),
  }),
});

const ExportShowRef = builder.objectRef<ExportShow>('ExportShow').implement({
  fields: (t) => ({
    ids: t.expose('ids', { type: ExternalIdsRef }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    overview: t.exposeString('overview', { nullable: true }),
    followed: t.exposeBoolean('followed'),
    archived: t.exposeBoolean('archived'),
    episodes: t.field({
      type: [ExportEpisodeRef],
      description: 'The episodes the catalog holds, by season and number, a page at a time.',
      args: { first: t.arg.int({ required: false, description: episodePage.first }), offset: t.arg.int({ required: false, description: episodePage.offset }) },
      complexity: pagedComplexity(listLimits.exportEpisodes),
      resolve: (show, args) => pageOf(show.episodes, listPage(args, listLimits.exportEpisodes)),
    }),
  }),
});

const ExportTitleRef = builder.objectRef<ExportTitle>('ExportTitle').implement({
  description: 'A movie or a game in the export.',
  fields: (t) => ({
    ids: t.expose('ids', { type: ExternalIdsRef }),
    title: t.exposeString('title'),
    poster: t.exposeString('poster', { nullable: true }),
    overview: t.exposeString('overview', { nullable: true }),
    releaseDate: t.expose('releaseDate', { type: 'LocalDate', nullable: true }),
    followed: t.exposeBoolean('followed'),
    watched: t.exposeBoolean('watched'),
    history: t.field({
      type: [WatchHistoryEntry],
      description: 'Oldest first, a page at a time.',
      args: { first: t.arg.int({ required: false, description: historyPage.first }), offset: t.arg.int({ required: false, description: historyPage.offset }) },
      complexity: pagedComplexity(listLimits.history),
      resolve: (title, args) => pageOf(title.history, listPage(args, listLimits.history)),
    }),
  }),
});

const ExportAccountRef = builder.objectRef<ExportAccount>('ExportAccount').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    timezone: t.exposeString('timezone'),
    webhookUrl: t.exposeString('webhookUrl', { nullable: true }),
  }),
});

type ExportRoot = LoadedExportHead & { accountId: number };

const LibraryExport = builder.objectRef<ExportRoot>('LibraryExport').implement({
  description:
    'The library export (docs/export-format.md). Each list is read only when selected; for large libraries download ' +
    'GET /api/export, which streams the same document instead of building it in memory.',
  fields: (t) => ({
    format: t.exposeString('format', { description: 'Always "airdate-export".' }),
    version: t.exposeInt('version'),
    exportedAt: t.field({ type: 'DateTime', resolve: (root) => new Date(root.exportedAt) }),
    fileName: t.exposeString('fileName', { description: "Download name, airdate-export-YYYY-MM-DD.json in the account's time zone." }),
    account: t.expose('account', { type: ExportAccountRef }),
    // Each list reads only its page of items (and only their episodes and history).
    shows: t.field({
      type: [ExportShowRef],
      args: { first: t.arg.int({ required: false, description: itemPage.first }), offset: t.arg.int({ required: false, description: itemPage.offset }) },
      complexity: pagedComplexity(listLimits.exportItems),
      resolve: async (root, args) => (await collectExportSection(root.accountId, 'shows', listPage(args, listLimits.exportItems))) as ExportShow[],
    }),
    movies: t.field({
      type: [ExportTitleRef],
      args: { first: t.arg.int({ required: false, description: itemPage.first }), offset: t.arg.int({ required: false, description: itemPage.offset }) },
      complexity: pagedComplexity(listLimits.exportItems),
      resolve: async (root, args) => (await collectExportSection(root.accountId, 'movies', listPage(args, listLimits.exportItems))) as ExportTitle[],
    }),
    games: t.field({
      type: [ExportTitleRef],
      args: { first: t.arg.int({ required: false, description: itemPage.first }), offset: t.arg.int({ required: false, description: itemPage.offset }) },
      complexity: pagedComplexity(listLimits.exportItems),
      resolve: async (root, args) => (await collectExportSection(root.accountId, 'games', listPage(args, listLimits.exportItems))) as ExportTitle[],
    }),
  }),
});

builder.queryField('export', (t) =>
  t.field({
    type: LibraryExport,
    description: "The viewer's whole library with its watch history, keyed by external ids.",
    resolve: async (_root, _args, context) => ({ ...(await loadExportHead({ accountId: context.account.id })), accountId: context.account.id }),
  }),
);
