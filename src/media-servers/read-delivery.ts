import { readCappedBody, readMultipartForm } from '../http/read-upload.ts';
import { HttpError } from '../http/responses.ts';
import { mediaServerLimits } from '../limits.ts';
import { FormatError, type MediaEvent, type MediaServerSource } from './sources/media-event.ts';
import { parseEmby } from './sources/parse-emby.ts';
import { parseGeneric } from './sources/parse-generic.ts';
import { parseJellyfin } from './sources/parse-jellyfin.ts';
import { parsePlex } from './sources/parse-plex.ts';

/**
 * A delivery's body as its source's event: decoded by content type (multipart, form-encoded,
 * else JSON whatever the type says: Jellyfin's plugin sends JSON as `text/plain`), within
 * mediaServerLimits' sizes (413), then parsed; a body of another format is a 400 that says what
 * the source sends.
 */
export async function readDelivery(source: MediaServerSource, request: Request): Promise<MediaEvent> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const body = type === 'multipart/form-data' ? await multipartBody(source, request) : type === 'application/x-www-form-urlencoded' ? await formBody(source, request) : await jsonBody(source, request);
  try {
    return parsers[source](body);
  } catch (error) {
    if (error instanceof FormatError) throw new HttpError(400, error.message);
    throw error;
  }
}

const parsers: Record<MediaServerSource, (body: unknown) => MediaEvent> = { jellyfin: parseJellyfin, plex: parsePlex, emby: parseEmby, generic: parseGeneric };

/** The form field that carries the JSON, by source (Jellyfin's form fields are the properties themselves). */
const jsonField: Partial<Record<MediaServerSource, string>> = { plex: 'payload', emby: 'data' };

const expectedBody: Record<MediaServerSource, string> = {
  jellyfin: 'a Jellyfin webhook body (JSON, sent as text/plain or application/json, or form fields)',
  plex: 'a Plex webhook (multipart/form-data with a "payload" part)',
  emby: 'an Emby webhook body (JSON, or a form with a "data" field)',
  generic: 'the generic JSON body (application/json)',
};

const tooLarge = (bytes: number) => `request body is larger than ${Math.floor(bytes / 1024)} KB`;

async function text(request: Request): Promise<string> {
  const bytes = await readCappedBody(request, mediaServerLimits.bodyBytes, tooLarge(mediaServerLimits.bodyBytes));
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

function parseJson(source: MediaServerSource, value: string, where: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new HttpError(400, `${where} is not valid JSON; expected ${expectedBody[source]}`);
  }
}

async function jsonBody(source: MediaServerSource, request: Request): Promise<unknown> {
  const body = await text(request);
  if (body.trim() === '') throw new HttpError(400, `request body is empty; expected ${expectedBody[source]}`);
  return parseJson(source, body, 'request body');
}

async function formBody(source: MediaServerSource, request: Request): Promise<unknown> {
  if (source === 'generic') throw new HttpError(400, `form fields sent; expected ${expectedBody.generic}`);
  const fields = new URLSearchParams(await text(request));
  const field = jsonField[source];
  if (field === undefined) return Object.fromEntries(fields);
  const value = fields.get(field);
  if (value === null) throw new HttpError(400, `no "${field}" field; expected ${expectedBody[source]}`);
  return parseJson(source, value, `the "${field}" field`);
}

async function multipartBody(source: MediaServerSource, request: Request): Promise<unknown> {
  if (source === 'generic' || source === 'jellyfin') throw new HttpError(400, `multipart body sent; expected ${expectedBody[source]}`);
  const form = await readMultipartForm(request, mediaServerLimits.multipartBytes, tooLarge(mediaServerLimits.multipartBytes));
  const field = jsonField[source]!;
  const value = form.get(field);
  // Plex's thumbnail part is a file and is never read; the JSON part is a text field.
  const json = typeof value === 'string' ? value : value instanceof Blob && value.size <= mediaServerLimits.bodyBytes ? await value.text() : undefined;
  if (json === undefined) throw new HttpError(400, `no "${field}" part; expected ${expectedBody[source]}`);
  return parseJson(source, json, `the "${field}" part`);
}
