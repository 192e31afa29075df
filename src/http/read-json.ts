import { readCappedBody } from './read-upload.ts';
import { HttpError } from './responses.ts';

function isJsonType(contentType: string | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads a JSON request body of at most `maxBytes`. An empty body gives `undefined` when
 * `allowEmpty` is set. Refuses a wrong content type (415), an oversized body (413, without
 * reading more than the limit) and malformed JSON (400).
 */
export async function readJsonBody(request: Request, maxBytes: number, options: { allowEmpty?: boolean } = {}): Promise<unknown> {
  const bytes = await readCappedBody(request, maxBytes, `request body is larger than ${Math.floor(maxBytes / 1024)} KB`);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.trim() === '') {
    if (options.allowEmpty) return undefined;
    if (!isJsonType(request.headers.get('content-type'))) throw new HttpError(415, 'content type must be application/json');
    throw new HttpError(400, 'request body is empty; expected a JSON object');
  }
  if (!isJsonType(request.headers.get('content-type'))) throw new HttpError(415, 'content type must be application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}
