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
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw new HttpError(413, `request body is larger than ${Math.floor(maxBytes / 1024)} KB`);
  const text = await readCapped(request, maxBytes);
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

async function readCapped(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new HttpError(413, `request body is larger than ${Math.floor(maxBytes / 1024)} KB`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}
