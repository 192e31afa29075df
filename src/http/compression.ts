import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { Response } from '@whatwg-node/fetch';
import { registerCache } from '../metrics/cache-sizes.ts';

/**
 * gzip and br for the JSON and iCalendar answers, applied to every response in one place
 * (src/app.ts). The 500-show summary is 323 KB and its calendar 2.7 MB of very repetitive text: a
 * Home Assistant poll or a phone on a slow link gets a tenth of that. A compressed body of a
 * response with an ETag is kept beside the plain one (an LRU keyed by ETag and encoding), so a
 * warm summary costs a lookup, not a compression, per request.
 *
 * Left as they are: HEAD and 304 (no body), anything but 200, bodies under `minBytes` (errors,
 * write acknowledgements: compression would only add bytes and work), bodies of unknown length
 * (the streamed export: reading it whole would undo its streaming), responses that set a cookie
 * (small sign-in answers, whose headers stay untouched), and types other than JSON and iCalendar.
 */

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

/** The codings offered, in the server's order of preference when the client weighs them equally. */
const codings = ['br', 'gzip'] as const;
type Coding = (typeof codings)[number];

const compressibleTypes = ['application/json', 'application/graphql-response+json', 'text/calendar'];

/** Brotli level 5: ~4× faster than the default 11 on the calendar for a few % more bytes; run in the thread pool. */
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };

export interface CompressionOptions {
  /** Smallest body compressed, in bytes (1 KB by default). */
  minBytes?: number;
  /** Bytes of compressed bodies kept for responses with an ETag (32 MB by default). */
  cacheBytes?: number;
}

/** Compresses `response` for `request` when its Accept-Encoding asks for gzip or br. */
export type Compress = (request: Request, response: Response) => Promise<Response>;

export function createCompression(options: CompressionOptions = {}): Compress {
  const minBytes = options.minBytes ?? 1024;
  const cacheBytes = options.cacheBytes ?? 32 * 1024 * 1024;
  /** `coding etag` → compressed body; Map order is the LRU order (oldest first). */
  const cache = new Map<string, Buffer>();
  let cachedBytes = 0;
  registerCache('compressed-bodies', { size: () => cachedBytes, max: cacheBytes, unit: 'bytes' });

  const remember = (key: string, body: Buffer) => {
    if (body.byteLength > cacheBytes) return;
    cache.set(key, body);
    cachedBytes += body.byteLength;
    for (const [oldKey, oldBody] of cache) {
      if (cachedBytes <= cacheBytes) break;
      cache.delete(oldKey);
      cachedBytes -= oldBody.byteLength;
    }
  };

  return async (request, response) => {
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!compressibleTypes.includes(type)) return response;
    // The answer depends on Accept-Encoding whether or not this one is compressed.
    response.headers.append('vary', 'Accept-Encoding');
    if (request.method === 'HEAD' || response.status !== 200 || response.headers.has('content-encoding') || response.headers.has('set-cookie')) return response;
    const length = Number(response.headers.get('content-length') ?? NaN);
    if (!(length >= minBytes)) return response;
    const coding = chooseCoding(request.headers.get('accept-encoding'));
    if (coding === undefined) return response;

    const etag = response.headers.get('etag');
    const key = etag === null ? undefined : `${coding} ${etag}`;
    let body = key === undefined ? undefined : cache.get(key);
    if (body !== undefined) {
      // Touched: most recently used last.
      cache.delete(key!);
      cache.set(key!, body);
    } else {
      const plain = Buffer.from(await response.arrayBuffer());
      try {
        body = coding === 'br' ? await compressBrotli(plain, brotliOptions) : await compressGzip(plain);
      } catch {
        // zlib out of memory: the plain body still answers.
        return new Response(plain as unknown as BodyInit, { status: response.status, headers: response.headers });
      }
      if (key !== undefined) remember(key, body);
    }
    // A plain object (no set-cookie here to lose): the adapter writes such a response without copying headers again.
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => void (headers[name] = value));
    headers['content-encoding'] = coding;
    headers['content-length'] = String(body.byteLength);
    // Another representation of the same resource: a weak tag (If-None-Match compares weakly, so it still revalidates).
    if (etag !== null && !etag.startsWith('W/')) headers.etag = `W/${etag}`;
    return new Response(body as unknown as BodyInit, { status: response.status, headers });
  };
}

/** The weight Accept-Encoding gives each coding it names (RFC 9110 §12.5.3); a malformed weight is 0. */
function codingWeights(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim());
    if (!name) continue;
    let weight = 1;
    for (const param of params) {
      const match = /^q\s*=\s*([01](?:\.\d{0,3})?)$/i.exec(param);
      if (match) weight = Number(match[1]);
      else if (/^q\s*=/i.test(param)) weight = 0; // A malformed weight is no consent.
    }
    weights.set(name.toLowerCase(), Math.min(weight, 1));
  }
  return weights;
}

/** The weight of `coding` in `weights`: its own, x-gzip's for gzip, else the wildcard's, else 0. */
const weightOf = (weights: Map<string, number>, coding: Coding) =>
  weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;

/**
 * The coding Accept-Encoding asks for: the highest weighted of br and gzip, a tie going to br; `*`
 * weighs the codings not named; `q=0` refuses. Undefined: send it plain.
 */
export function chooseCoding(header: string | null): Coding | undefined {
  if (header === null) return undefined;
  const weights = codingWeights(header);
  let chosen: Coding | undefined;
  let best = 0;
  for (const coding of codings) {
    const weight = weightOf(weights, coding);
    if (weight > best) {
      best = weight;
      chosen = coding;
    }
  }
  return chosen;
}

/** Whether Accept-Encoding accepts gzip at all (for files kept gzipped only: src/http/static-file.ts). */
export function acceptsGzip(header: string | null): boolean {
  return header !== null && weightOf(codingWeights(header), 'gzip') > 0;
}
