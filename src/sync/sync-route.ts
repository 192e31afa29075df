import { z } from 'zod';
import { okResponse } from '../http/responses.ts';
import { readJsonBody } from '../http/read-json.ts';
import { bodyError, parseInput } from '../http/rest-input.ts';
import type { RestRoute } from '../http/rest-route.ts';
import { prepareOperation, runOperation } from '../graphql/run-operation.ts';
import { okSchema } from '../openapi/common-schemas.ts';
import { jsonContent, jsonWrite } from '../openapi/operation-parts.ts';

/** `POST /api/machine/sync`: the body is optional and carries nothing, but one that is sent is a JSON object. */
export const syncBodySchema = z.object({}, bodyError).meta({ id: 'SyncRequest', description: 'Optional; any JSON object (its members are ignored).' });


const syncOperation = `mutation MachineSync { sync { ok } }`;

/** `POST /api/machine/sync`: queues the account's catalog refresh and release check (the `sync` mutation). */
export const syncRoute: RestRoute = {
  method: 'POST',
  paths: ['/api/machine/sync'],
  template: '/api/machine/sync',
  auth: 'header-or-query',
  operation: {
    summary: 'Queue a catalog refresh and release check',
    tag: 'Writes',
    description: 'Answers at once; a sync already queued or running for the account is not queued twice.',
    requestBody: { required: false, content: jsonContent(syncBodySchema) },
    responses: { 200: { description: 'Queued.', content: jsonContent(okSchema) }, ...jsonWrite },
  },
  handler({ schema, limits }) {
    const operation = prepareOperation(schema, syncOperation);
    return async (request, context) => {
      // The body is optional and carries nothing; when one is sent it must still be a JSON object.
      const body = await readJsonBody(request, limits.maxJsonBytes, { allowEmpty: true });
      if (body !== undefined) parseInput(syncBodySchema, body);
      await runOperation(operation, context);
      return okResponse();
    };
  },
};
