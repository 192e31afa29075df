import { createRateLimiter } from '../http/rate-limit.ts';
import { HttpError, json } from '../http/responses.ts';
import type { RestRoute } from '../http/rest-route.ts';
import { error, jsonContent, ref } from '../openapi/operation-parts.ts';
import { authenticateConnection } from './connections.ts';
import { handleDelivery } from './deliveries.ts';
import { deliveryAnswerSchema, genericWatchSchema, mediaServerSourceSchema } from './media-servers-rest-schemas.ts';
import { readDelivery } from './read-delivery.ts';
import { mediaServerSources, type MediaServerSource } from './sources/media-event.ts';

/** The path a source's server calls: `/api/media-servers/<source>?token=adw_…`. */
export const mediaServerPath = (source: MediaServerSource) => `/api/media-servers/${source}`;

/** Progress events a connection may send a minute, as a multiple of its other deliveries' limit. */
const progressFactor = 10;

/** Longest token looked at; a connection token has 42 characters. */
const maxTokenLength = 64;

/**
 * `POST /api/media-servers/{source}`: a media server's webhook. The connection's token in the URL
 * (`?token=`) is its only credential (Plex and Emby take nothing but a URL): a missing, unknown or
 * revoked token, an API token, or another source's token is a 401. Counted per connection, not
 * against the account's API rate: AIRDATE_MEDIA_SERVER_PER_MINUTE (1200 by default) deliveries
 * that are not progress events, and ten times that of progress events (Jellyfin sends one every
 * few seconds per viewer), each past its limit a 429. The
 * body is read by its source's parser (400 naming what the source sends), then handled
 * (deliveries.ts) and answered with what came of it. The handler calls the feature's services
 * itself: there is no account before the token is checked, so no GraphQL operation to run.
 */
export const mediaServerRoute: RestRoute = {
  method: 'POST',
  paths: mediaServerSources.map(mediaServerPath),
  template: '/api/media-servers/{source}',
  auth: 'own-token',
  operation: {
    summary: 'A media server’s webhook: records what was played',
    tag: 'Media servers',
    description:
      'Called by Jellyfin (webhook plugin), Plex (multipart `payload`), Emby (JSON or form `data`) or anything that sends the generic JSON body, with the URL the Connections page shows. Every delivery is answered with what came of it; progress events are acknowledged and dropped. docs/media-servers.md has the set-up and the fields read.',
    parameters: [
      { name: 'source', in: 'path', required: true, schema: ref(mediaServerSourceSchema) },
      { name: 'token', in: 'query', required: true, description: 'The connection’s token (`adw_…`).', schema: { type: 'string' } },
    ],
    requestBody: {
      required: true,
      content: {
        ...jsonContent(genericWatchSchema),
        'text/plain': { schema: { type: 'string', description: 'JSON (Jellyfin’s plugin sends its JSON as text/plain).' } },
        'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } },
        'multipart/form-data': { schema: { type: 'object', properties: { payload: { type: 'string' }, data: { type: 'string' }, thumb: { type: 'string', format: 'binary' } } } },
      },
    },
    responses: {
      200: { description: 'What came of the delivery: matched, duplicate, removed, unmatched or ignored.', content: jsonContent(deliveryAnswerSchema) },
      400: error('Not the source’s format (the message names what it sends).'),
      413: error('Body over its limit (256 KB, or 4 MB multipart).'),
    },
  },
  handler({ counters, limits }, path) {
    const source = path.slice('/api/media-servers/'.length) as MediaServerSource;
    const rate = createRateLimiter({ name: 'media-server', points: limits.mediaServerPerMinute, windowSeconds: 60 }, counters);
    // Progress events have their own, larger count: a busy server's stream of them must never use
    // up the minute of the plays that matter (Jellyfin sends no delivery twice), and they cost no write.
    const progressRate = createRateLimiter({ name: 'media-server-progress', points: limits.mediaServerPerMinute * progressFactor, windowSeconds: 60 }, counters);
    return async (request, context) => {
      const token = new URL(request.url).searchParams.get('token');
      if (!token) throw new HttpError(401, `missing token: use the URL the Connections page shows (${path}?token=adw_…)`);
      const connection = token.length > maxTokenLength ? null : await authenticateConnection(token);
      if (!connection) throw new HttpError(401, 'invalid or revoked media server token (an API token does not work here)');
      if (connection.source !== source) throw new HttpError(401, `this token belongs to the ${connection.source} connection: use its URL`);
      const event = await readDelivery(source, request);
      await (event.action === 'progress' ? progressRate : rate).take(String(connection.id));
      return json(200, await handleDelivery({ connection, event, catalog: context.services.catalog }));
    };
  },
};
