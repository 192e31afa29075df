import type { GraphQLSchema } from 'graphql';
import { readUploadedFiles } from '../http/read-upload.ts';
import { json } from '../http/responses.ts';
import type { ImportSource } from '../import/import-document.ts';
import type { Logger } from '../log.ts';
import type { MachineHandler } from './machine-routes.ts';
import { prepareOperation, runOperation, throwIfError } from './run-operation.ts';

const importOperation = `
  mutation MachineImport($source: ImportSource!, $files: [File!]!) {
    importLibrary(source: $source, files: $files) {
      __typename
      ... on Error { message code }
      ... on MutationImportLibrarySuccess {
        data {
          imported { shows episodes movies games history }
          skipped { file item reason }
          unmatched { file kind title }
        }
      }
    }
  }`;

interface ImportData {
  imported: Record<string, number>;
  skipped: { file: string; item: string; reason: string }[];
  unmatched: { file: string; kind: string; title: string }[];
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
export function createImportHandler(props: ImportRouteProps): (source: ImportSource) => MachineHandler {
  const operation = prepareOperation(props.schema, importOperation);
  return (source) => async (request, context) => {
    const files = await readUploadedFiles(request, props.maxUploadBytes);
    const data = await runOperation(operation, context, props.logger, { source: source.toUpperCase(), files });
    throwIfError(data.importLibrary, 'import failed');
    const { imported, skipped, unmatched } = (data.importLibrary as { data: ImportData }).data;
    return json(200, {
      ok: true,
      imported,
      skipped,
      unmatched: unmatched.map((item) => ({ ...item, kind: item.kind.toLowerCase() })),
    });
  };
}
