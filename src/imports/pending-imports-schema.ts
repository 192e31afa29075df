import type { ExternalIds } from '../catalog/provider.ts';
import { listLimits, pendingImports } from '../limits.ts';
import { builder } from '../graphql/builder.ts';
import { ExternalIdsRef } from '../export/export-schema.ts';
import { listPage, pageDescriptions, pagedComplexity } from '../graphql/pages.ts';

// Unmatched import items kept with the account and retried when the catalog is refreshed
// (src/imports/pending-imports.ts): what a person can read to see what has not arrived yet.

const pendingPage = pageDescriptions(listLimits.pendingImports, 'items');

builder.prismaObject('PendingImport', {
  description: 'An imported item no catalog matched yet: retried on every sync and catalog refresh, and added to the library with its history once a catalog knows it.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: 'show | movie | game | episode (a watched episode the file named by an episode id only).' }),
    title: t.exposeString('title', { description: "The file's title, or for an episode its label and ids." }),
    year: t.exposeInt('year', { nullable: true }),
    sourceId: t.exposeString('sourceId', { nullable: true, description: "The source's own id or URI of the item (Grouvee id, Letterboxd URI, TV Time uuid)." }),
    ids: t.field({
      type: ExternalIdsRef,
      description: 'The ids the file gave it (an episode’s are its own episode ids).',
      resolve: (row) => JSON.parse(row.ids) as ExternalIds,
    }),
    source: t.exposeString('source', { description: 'The import source: trakt, simkl, tvtime, airdate, grouvee, letterboxd or imdb.' }),
    file: t.exposeString('file', { description: 'The file it came from (`archive.zip/inner.csv` inside a zip).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first imported.' }),
    lastTriedAt: t.expose('lastTriedAt', { type: 'DateTime', nullable: true, description: 'When a refresh last tried to match it; null before the first try.' }),
  }),
});

builder.prismaObjectFields('Account', (t) => ({
  pendingImports: t.relation('pendingImports', {
    description: `Imported items no catalog matched yet, oldest first, a page at a time (pendingImportCount counts them; at most ${pendingImports.perAccount} are kept).`,
    args: { first: t.arg.int({ required: false, description: pendingPage.first }), offset: t.arg.int({ required: false, description: pendingPage.offset }) },
    complexity: pagedComplexity(listLimits.pendingImports),
    query: (args) => {
      const page = listPage(args, listLimits.pendingImports);
      return { orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }], take: page.first, skip: page.offset };
    },
  }),
  pendingImportCount: t.relationCount('pendingImports', { description: 'How many imported items are still unmatched.' }),
}));
