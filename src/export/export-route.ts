import { Response } from '@whatwg-node/fetch';
import type { GraphQLSchema } from 'graphql';
import type { ExportAccount } from './export-format.ts';
import { exportFormat, exportVersion } from './export-format.ts';
import type { Logger } from '../log.ts';
import { streamExportBody } from './export-service.ts';
import type { RestHandler, RestRoute } from '../http/rest-route.ts';
import { error, jsonContent } from '../openapi/operation-parts.ts';
import { exportDocumentSchema } from './export-document-schema.ts';
import { prepareOperation, runOperation } from '../graphql/run-operation.ts';

/**
 * The head of the download comes from the schema like every REST answer: the same `Query.export`
 * field GraphQL clients query, so the account, its time zone and the file name follow one rule.
 * The item lists are not selected here: they are streamed by the service that resolves those
 * fields (see src/export/export-service.ts for why they cannot go through GraphQL execution).
 */
const exportOperation = `query MachineExport { export { exportedAt fileName account { name timezone webhookUrl } } }`;

interface ExportHeadData {
  exportedAt: string;
  fileName: string;
  account: ExportAccount;
}

export interface ExportRouteProps {
  schema: GraphQLSchema;
  logger: Logger;
}

/**
 * `GET /api/export`: the whole library as a JSON attachment named after the account's local date,
 * streamed in chunks as it is read. The route is registered header-only: a `?token=` is refused
 * before this runs (machine-api.md §4.4, §5).
 */
export function createExportHandler(props: ExportRouteProps): RestHandler {
  const operation = prepareOperation(props.schema, exportOperation);
  return async (_request, context) => {
    const data = await runOperation(operation, context);
    const { exportedAt, fileName, account } = data.export as ExportHeadData;
    const body = streamExportBody({
      head: { format: exportFormat, version: exportVersion, exportedAt, account },
      accountId: context.account.id,
      onError: (error) => props.logger.error({ err: error }, `export of account ${context.account.id} failed while streaming`),
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="${fileName}"`,
        // The document holds the whole history: no shared cache may keep a copy.
        'cache-control': 'no-store',
      },
    });
  };
}

/** What GET /api/export answers. */
export const exportAnswerSchema = exportDocumentSchema.meta({
  id: 'Export',
  description: 'The whole library (docs/export-format.md): the same schema `POST /api/import/airdate` reads it back with.',
});

/** `GET /api/export`, as app.ts routes it and the OpenAPI document describes it. */
export const exportRoute: RestRoute = {
  method: 'GET',
  paths: ['/api/export'],
  template: '/api/export',
  auth: 'header-only',
  session: true,
  operation: {
    summary: 'Download the whole library',
    tag: 'Import and export',
    description: 'Streamed as a JSON attachment. Also answered to the web app’s signed-in session (its cookie) when no token is sent.',
    responses: {
      200: {
        description: 'The export document.',
        content: jsonContent(exportAnswerSchema),
        headers: { 'Content-Disposition': { description: '`attachment; filename="airdate-export-YYYY-MM-DD.json"`', schema: { type: 'string' } } },
      },
      403: error('Sent with the session cookie by a page of another origin (its `Origin`, or `Sec-Fetch-Site` on anything but a followed link): `cross-site request refused`.'),
    },
  },
  handler: ({ schema, logger }) => createExportHandler({ schema, logger }),
};
