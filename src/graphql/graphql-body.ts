import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { cappedRequest, isMultipart, readCappedBody } from '../http/read-upload.ts';
import { HttpError } from '../http/responses.ts';

/**
 * The body of a /graphql request, read once under its limit and, for JSON, parsed once. A JSON
 * body used to be streamed through our byte counter, copied into a new Request, streamed again
 * through Yoga's own size limit and parsed by Yoga: ~0.75 ms of CPU per POST, more than the
 * rest of a small operation (issue 14). Now the parsed parameters are handed to Yoga directly
 * (preparsedBodyParser) and Yoga's size limit is off, since every body reaching it was read here.
 */

/** Content types an operation may be posted as: JSON, or a multipart upload (importLibrary). */
const postedTypes = ['application/json', 'application/graphql-response+json', 'application/graphql+json', 'multipart/form-data'];
const mediaType = (request: Request) => (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/** The GraphQL parameters of a JSON POST already parsed by boundedRequest, by request. */
const parsedBodies = new WeakMap<Request, Record<string, unknown>>();

/** The parsed JSON body of a request boundedRequest returned, when it was a JSON object. */
export const parsedBody = (request: Request): Record<string, unknown> | undefined => parsedBodies.get(request);

/**
 * The request with its body read under the right limit, refusing what GraphQL over HTTP does not
 * take: a POST in another content type (415), a GET that says it carries an upload (415: a GET
 * has no body), a body over its limit (413, refused from Content-Length before reading). A JSON
 * object body is parsed here (parsedBody); any other body (invalid JSON, an array, a number) is
 * left to Yoga's parser, which answers it with its own 400.
 */
export async function boundedRequest(request: Request, limits: Config['limits']): Promise<Request> {
  const type = mediaType(request);
  if (request.method === 'GET' || request.method === 'HEAD') {
    if (type === 'multipart/form-data') throw new HttpError(415, 'a GET request has no body: send uploads as a multipart POST');
    // Yoga parses these with JSON.parse and reports a failure as a fault of its own.
    const params = new URL(request.url).searchParams;
    for (const name of ['variables', 'extensions']) {
      const value = params.get(name);
      if (value !== null && value !== '' && !isJson(value)) throw new HttpError(400, `the ${name} parameter must be JSON`);
    }
    return request;
  }
  if (request.method !== 'POST') return request; // Yoga answers 405 with Allow.
  if (!postedTypes.includes(type)) {
    throw new HttpError(415, 'content type must be application/json (or multipart/form-data for uploads)');
  }
  if (isMultipart(request)) return cappedRequest(request, limits.maxUploadBytes);
  const tooLarge = `request body is larger than ${Math.floor(limits.maxJsonBytes / 1024)} KB`;
  const body = await readJsonBody(request, limits.maxJsonBytes, tooLarge);
  const params = jsonObject(body);
  if (params === undefined) return new Request(request.url, { method: 'POST', headers: request.headers, body: body as unknown as BodyInit });
  parsedBodies.set(request, params);
  return request;
}

/**
 * The body's bytes. With a Content-Length (what clients send for JSON) the body is read whole
 * at once: Node's parser never delivers more than the declared length, and the size is checked
 * again after reading for callers of `fetch` that declare one length and send another. A chunked
 * body streams through the byte counter, which stops it as soon as it passes the limit.
 */
async function readJsonBody(request: Request, maxBytes: number, tooLarge: string): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared === null || !/^\d+$/.test(declared)) return readCappedBody(request, maxBytes, tooLarge);
  if (Number(declared) > maxBytes) throw new HttpError(413, tooLarge);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await request.arrayBuffer());
  } catch {
    throw new HttpError(400, 'the request body was not received whole');
  }
  if (bytes.byteLength > maxBytes) throw new HttpError(413, tooLarge);
  return bytes;
}

/** The body as a JSON object, or undefined for anything else (Yoga then refuses it). */
function jsonObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Yoga's request parser for a body boundedRequest already parsed: its parameters as they are. */
export function preparsedBodyParser(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      const params = parsedBodies.get(request);
      if (params !== undefined) setRequestParser(() => params);
    },
  };
}
