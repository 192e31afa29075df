import { okResponse } from '../http/responses.ts';
import { readJsonBody } from '../http/read-json.ts';
import { parseInput } from '../http/rest-input.ts';
import type { RestRoute } from '../http/rest-route.ts';
import { prepareOperation, runOperation, throwIfError } from '../graphql/run-operation.ts';
import { okSchema } from '../openapi/common-schemas.ts';
import { error, jsonContent, jsonWrite } from '../openapi/operation-parts.ts';
import { followBodySchema, watchedBodySchema } from './library-rest-schemas.ts';

/** The machine API's library writes: each runs its GraphQL mutation and answers `{"ok":true}` or the error's status. */

const writeResultFields = `__typename ... on Error { message code }`;
const watchedOperation = `mutation MachineWatched($input: SetWatchedInput!) { setWatched(input: $input) { ${writeResultFields} } }`;
const followOperation = `mutation MachineFollow($input: SetFollowInput!) { setFollow(input: $input) { ${writeResultFields} } }`;

/** A JSON write of the library: body checked by `body`, its kind upper-cased as GraphQL's enums are, run by `mutation`. */
function libraryWrite(name: 'watched' | 'follow', summary: string, body: typeof watchedBodySchema | typeof followBodySchema, mutation: string, field: string): RestRoute {
  return {
    method: 'POST',
    paths: [`/api/machine/${name}`],
    template: `/api/machine/${name}`,
    auth: 'header-or-query',
    operation: {
      summary,
      tag: 'Writes',
      requestBody: { required: true, content: jsonContent(body) },
      responses: { 200: { description: 'Done.', content: jsonContent(okSchema) }, ...jsonWrite, 404: error('No item of that kind has this id.') },
    },
    handler({ schema, limits }) {
      const operation = prepareOperation(schema, mutation);
      return async (request, context) => {
        const input = parseInput(body, await readJsonBody(request, limits.maxJsonBytes));
        const data = await runOperation(operation, context, { input: { ...input, kind: input.kind.toUpperCase() } });
        throwIfError(data[field], 'request failed');
        return okResponse();
      };
    },
  };
}

export const libraryRoutes: readonly RestRoute[] = [
  libraryWrite('watched', 'Mark watched or unwatched', watchedBodySchema, watchedOperation, 'setWatched'),
  libraryWrite('follow', 'Follow, unfollow, archive', followBodySchema, followOperation, 'setFollow'),
];
