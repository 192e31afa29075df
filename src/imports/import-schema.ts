import { AppError, InputError, TooLargeError } from '../errors.ts';
import { noMetrics, type Metrics } from '../metrics/metrics.ts';
import { ImportFileError, type ImportSource } from './sources/import-document.ts';
import { availableImportSources } from './sources/import-sources.ts';
import type { ImportCounts, ImportNote, ImportSkipped, ImportUnmatched } from './import-service.ts';
import { importUploads, type ImportSummary } from './import-upload.ts';
import { builder } from '../graphql/builder.ts';
import { ErrorInterface } from '../graphql/errors.ts';
import { ExternalIdsRef } from '../export/export-schema.ts';

const ImportSourceEnum = builder.enumType('ImportSource', {
  description: 'Where an import comes from (POST /api/import/{source} takes the same names in lower case).',
  values: Object.fromEntries(availableImportSources.map((source) => [source.toUpperCase(), { value: source }])) as Record<string, { value: ImportSource }>,
});

const ImportCountsRef = builder.objectRef<ImportCounts>('ImportCounts').implement({
  description: 'Distinct items the files covered, and the watch-history entries added (0 on a repeated import).',
  fields: (t) => ({
    shows: t.exposeInt('shows'),
    episodes: t.exposeInt('episodes'),
    movies: t.exposeInt('movies'),
    games: t.exposeInt('games'),
    history: t.exposeInt('history'),
  }),
});

const ImportSkippedRef = builder.objectRef<ImportSkipped>('ImportSkipped').implement({
  description: 'Something in a file that was recognised but not imported.',
  fields: (t) => ({ file: t.exposeString('file'), item: t.exposeString('item'), reason: t.exposeString('reason') }),
});

const ImportNoteRef = builder.objectRef<ImportNote>('ImportNote').implement({
  description: 'How a file was read: the time zone its times without one were read in, what its only date stands for (IMDb\'s Date Rated, Letterboxd\'s "marked seen" dates).',
  fields: (t) => ({ file: t.exposeString('file'), note: t.exposeString('note') }),
});

const ImportItemKind = builder.enumType('ImportItemKind', {
  description: 'What an unmatched import item is: a show, movie or game, or an episode the file names by an episode id only.',
  values: { SHOW: { value: 'show' }, MOVIE: { value: 'movie' }, GAME: { value: 'game' }, EPISODE: { value: 'episode' } } as const,
});

const ImportUnmatchedRef = builder.objectRef<ImportUnmatched>('ImportUnmatched').implement({
  description: 'An item no catalog row was found or made for (no usable id, or ids no catalog knows): nothing was written for it.',
  fields: (t) => ({
    file: t.exposeString('file'),
    kind: t.field({ type: ImportItemKind, resolve: (item) => item.kind }),
    title: t.exposeString('title'),
    ids: t.field({ type: ExternalIdsRef, description: "The ids the file gave it (an episode's own, for an episode).", resolve: (item) => item.ids }),
    year: t.int({ nullable: true, resolve: (item) => item.year ?? null }),
    sourceId: t.string({ nullable: true, description: "The source's own id or URI of the item (Grouvee id, Letterboxd URI, TV Time uuid).", resolve: (item) => item.sourceId ?? null }),
  }),
});

export const ImportResultRef = builder.objectRef<ImportSummary>('ImportResult').implement({
  fields: (t) => ({
    ok: t.boolean({ resolve: () => true }),
    dryRun: t.exposeBoolean('dryRun', { description: 'True when nothing was written: the report of what the import would do.' }),
    imported: t.field({ type: ImportCountsRef, resolve: (summary) => summary.imported }),
    skipped: t.field({ type: [ImportSkippedRef], resolve: (summary) => summary.skipped }),
    notes: t.field({ type: [ImportNoteRef], description: 'How the files were read, per file.', resolve: (summary) => summary.notes }),
    unmatched: t.field({ type: [ImportUnmatchedRef], resolve: (summary) => summary.unmatched }),
  }),
});

builder.objectType(ImportFileError, {
  name: 'ImportFileError',
  description: 'A file that cannot be imported; nothing from the request was written.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof ImportFileError,
  fields: (t) => ({
    file: t.exposeString('fileName', { description: 'The file (or `archive.zip/entry`) at fault.' }),
    problem: t.exposeString('problem', { description: 'The first problem found in it.' }),
  }),
});

builder.objectType(TooLargeError, {
  name: 'TooLargeError',
  description: 'The upload or its zip contents pass a size bound (entries, uncompressed size, nesting).',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof TooLargeError,
  fields: () => ({}),
});

builder.mutationField('importLibrary', (t) =>
  t.field({
    type: ImportResultRef,
    description:
      'Imports exported files of another tracker (or zips of them) into the viewer\'s library: never deletes, never duplicates, keeps explicit follow and archive states. Every file is parsed before anything is written; a malformed file writes nothing. One import at a time per account: a second one while the first runs is refused (CONFLICT).',
    errors: { types: [ImportFileError, TooLargeError, InputError] },
    args: {
      source: t.arg({ type: ImportSourceEnum, required: true }),
      files: t.arg({ type: ['File'], required: true, description: 'Any number of files; their names only appear in messages.' }),
      dryRun: t.arg.boolean({ required: false, description: 'Answer the full report and write nothing (the import runs and is rolled back).' }),
      timeZone: t.arg.string({
        required: false,
        description: "IANA time zone in which times a file writes without a zone (TV Time's plain date-times) are read; default: the account's. The report's notes say which was used.",
      }),
    },
    resolve: async (_root, { source, files, dryRun, timeZone }, context) => {
      if (files.length === 0) throw new InputError('no files were uploaded', 'files');
      const uploaded = await Promise.all(
        files.map(async (file, index) => ({ name: file.name || `file ${index + 1}`, bytes: new Uint8Array(await file.arrayBuffer()) })),
      );
      return counted(context.services.metrics ?? noMetrics, source, () =>
        importUploads({
          accountId: context.account.id,
          source,
          files: uploaded,
          catalog: context.services.catalog,
          dryRun: dryRun === true,
          accountTimeZone: context.account.timezone,
          timeZone: timeZone ?? undefined,
        }),
      );
    },
  }),
);

/** Runs an import and counts it (docs/operations.md "Metrics"): its outcome, the items written, its time. */
async function counted(metrics: Metrics, source: ImportSource, run: () => Promise<ImportSummary>): Promise<ImportSummary> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const summary = await run();
    const items = summary.dryRun ? 0 : Object.values(summary.imported).reduce((sum, count) => sum + count, 0);
    metrics.importRun({ source, outcome: summary.dryRun ? 'dry_run' : 'imported', items, seconds: seconds() });
    return summary;
  } catch (error) {
    metrics.importRun({ source, outcome: error instanceof AppError ? 'refused' : 'failed', items: 0, seconds: seconds() });
    throw error;
  }
}
