import type { GraphQLSchema } from 'graphql';
import { readUploadedFiles } from '../http/read-upload.ts';
import { json } from '../http/responses.ts';
import type { ImportSource } from './sources/import-document.ts';
import type { Logger } from '../log.ts';
import type { RestHandler, RestRoute } from '../http/rest-route.ts';
import { prepareOperation, runOperation, throwIfError } from '../graphql/run-operation.ts';
import { queryParameter } from '../http/rest-input.ts';
import type { z } from 'zod';
import { error, jsonContent, queryParameterSpec, ref } from '../openapi/operation-parts.ts';
import { availableImportSources } from './sources/import-sources.ts';
import { dryRunSchema, importReportSchema, importSourceSchema, importTimeZoneSchema } from './import-rest-schemas.ts';

const importOperation = `
  mutation MachineImport($source: ImportSource!, $files: [File!]!, $dryRun: Boolean!, $timeZone: String) {
    importLibrary(source: $source, files: $files, dryRun: $dryRun, timeZone: $timeZone) {
      __typename
      ... on Error { message code }
      ... on MutationImportLibrarySuccess {
        data {
          dryRun
          imported { shows episodes movies games history }
          skipped { file item reason }
          notes { file note }
          unmatched { file kind title ids { tmdb tvdb igdb imdb giantbomb } year sourceId }
        }
      }
    }
  }`;

interface ImportData {
  dryRun: boolean;
  imported: { shows: number; episodes: number; movies: number; games: number; history: number };
  skipped: { file: string; item: string; reason: string }[];
  notes: { file: string; note: string }[];
  unmatched: { file: string; kind: string; title: string; ids: Record<string, number | string | null>; year: number | null; sourceId: string | null }[];
}

export interface ImportRouteProps {
  schema: GraphQLSchema;
  logger: Logger;
  /** AIRDATE_MAX_UPLOAD_MB in bytes. */
  maxUploadBytes: number;
}

/**
 * `POST /api/import/{source}`: reads the multipart upload (415 when it is not one, 413 past the
 * upload limit while streaming, 400 without file parts) and runs the importLibrary mutation on the
 * schema with the files as `File` variables, like every machine route runs its operation. The
 * body has to be read before the operation anyway (the limit applies to the whole request), so
 * handing the files over as variables costs nothing over calling the service directly.
 */
export function createImportHandler(props: ImportRouteProps): (source: ImportSource) => RestHandler {
  const operation = prepareOperation(props.schema, importOperation);
  return (source) => async (request, context) => {
    // Checked before the body is read: a bad parameter costs no upload.
    const query = new URL(request.url).searchParams;
    const dryRun = queryParameter(query, 'dryRun', dryRunSchema, 'dryRun must be given once') ?? false;
    const timeZone = queryParameter(query, 'timeZone', importTimeZoneSchema, 'timeZone must be given once') ?? null;
    const files = await readUploadedFiles(request, props.maxUploadBytes);
    const data = await runOperation(operation, context, { source: source.toUpperCase(), files, dryRun, timeZone });
    throwIfError(data.importLibrary, 'import failed');
    const { imported, skipped, notes, unmatched } = (data.importLibrary as { data: ImportData }).data;
    const report: z.input<typeof importReportSchema> = {
      ok: true,
      ...(dryRun ? { dryRun: true } : {}),
      imported,
      skipped,
      notes,
      // As the JSON a client reads: ids it has, year and source id when there are any.
      unmatched: unmatched.map(({ ids, year, sourceId, ...item }) => ({
        ...item,
        kind: item.kind.toLowerCase(),
        ids: Object.fromEntries(Object.entries(ids).filter(([, id]) => id !== null)),
        ...(year === null ? {} : { year }),
        ...(sourceId === null ? {} : { sourceId }),
      })) as z.input<typeof importReportSchema>['unmatched'],
    };
    return json(200, report);
  };
}

/** `POST /api/import/{source}`: one path per source with a parser (any other source is a 404). */
export const importRoute: RestRoute = {
  method: 'POST',
  paths: availableImportSources.map((source) => `/api/import/${source}`),
  template: '/api/import/{source}',
  auth: 'header-only',
  operation: {
    summary: 'Import a library from a file upload',
    tag: 'Import and export',
    description: 'The files as multipart/form-data file parts (any part names); zips are read. One request is one transaction.',
    parameters: [
      { name: 'source', in: 'path', required: true, schema: ref(importSourceSchema) },
      queryParameterSpec('dryRun', dryRunSchema),
      queryParameterSpec('timeZone', importTimeZoneSchema),
    ],
    requestBody: {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } } } },
    },
    responses: {
      200: { description: 'The import report.', content: jsonContent(importReportSchema) },
      400: error('A bad `dryRun` or `timeZone`, no file parts, a malformed body, or a file that is not of this source or breaks a bound (named with its first problem).'),
      409: error('Another import into this account is running (one at a time per account).'),
      413: error('Upload over AIRDATE_MAX_UPLOAD_MB, zips past their bounds (entries, sizes, compression ratio, nesting), more entries than one import takes, or files that need more memory or time to read than an import may use.'),
      415: error('Not multipart/form-data.'),
    },
  },
  handler: ({ schema, logger, limits }, path) => createImportHandler({ schema, logger, maxUploadBytes: limits.maxUploadBytes })(path.slice('/api/import/'.length) as ImportSource),
};
