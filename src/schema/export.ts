import type { ExternalIds } from '../catalog/provider.ts';
import type { ExportAccount, ExportEpisode, ExportShow, ExportTitle, ExportWatchEvent } from '../export/export-format.ts';
import { collectExportSection, loadExportHead, type LoadedExportHead } from '../services/export.ts';
import { builder } from './builder.ts';

// The export document as typed data. Field names and nesting are the download's
// (docs/export-format.md), so a query selecting every field gets the same document, except that
// absent external ids are null here and left out there.

const ExternalIdsRef = builder.objectRef<ExternalIds>('ExternalIds').implement({
  description: 'The ids an item has in the external catalogs; null where it has none.',
  fields: (t) => ({
    tmdb: t.int({ nullable: true, resolve: (ids) => ids.tmdb ?? null }),
    tvdb: t.int({ nullable: true, resolve: (ids) => ids.tvdb ?? null }),
    igdb: t.int({ nullable: true, resolve: (ids) => ids.igdb ?? null }),
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
    watched: t.exposeBoolean('watched'),
    history: t.expose('history', { type: [WatchHistoryEntry], description: 'Oldest first.' }),
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
    episodes: t.expose('episodes', { type: [ExportEpisodeRef], description: 'Every episode the catalog holds, by season and number.' }),
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
    history: t.expose('history', { type: [WatchHistoryEntry], description: 'Oldest first.' }),
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
    shows: t.field({ type: [ExportShowRef], resolve: async (root) => (await collectExportSection(root.accountId, 'shows')) as ExportShow[] }),
    movies: t.field({ type: [ExportTitleRef], resolve: async (root) => (await collectExportSection(root.accountId, 'movies')) as ExportTitle[] }),
    games: t.field({ type: [ExportTitleRef], resolve: async (root) => (await collectExportSection(root.accountId, 'games')) as ExportTitle[] }),
  }),
});

builder.queryField('export', (t) =>
  t.field({
    type: LibraryExport,
    description: "The viewer's whole library with its watch history, keyed by external ids.",
    resolve: async (_root, _args, context) => ({ ...(await loadExportHead({ accountId: context.account.id })), accountId: context.account.id }),
  }),
);
