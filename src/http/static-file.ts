import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Response } from '@whatwg-node/fetch';
import { acceptsGzip } from './compression.ts';

/**
 * A file served as it is on disk (the web app's build, Swagger UI's files): read once, its gzip
 * made once beside it (level 9: these files never change under a running server), the gzip sent
 * to clients whose Accept-Encoding takes it.
 */
export interface StaticFile {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
}

const compressGzip = promisify(gzip);

/**
 * Text files over 1 KB are kept gzipped too (in the thread pool: Swagger UI's 1.7 MB bundle takes
 * ~100 ms); smaller ones and binary formats are not worth it.
 */
export async function staticFile(body: Buffer, type: string, compressible: boolean): Promise<StaticFile> {
  return { body, type, gzipped: compressible && body.byteLength > 1024 ? await compressGzip(body, { level: 9 }) : undefined };
}

/**
 * Loads each file once by `load` (undefined: no such file): first requests that arrive together
 * share one read and one gzip; a missing file or a failed read is tried again by the next request.
 */
export function staticFiles(load: (name: string) => Promise<StaticFile | undefined>): (name: string) => Promise<StaticFile | undefined> {
  const files = new Map<string, Promise<StaticFile | undefined>>();
  return (name) => {
    let file = files.get(name);
    if (file === undefined) {
      file = load(name);
      files.set(name, file);
      file.then(
        (found) => void (found === undefined && files.delete(name)),
        () => files.delete(name),
      );
    }
    return file;
  };
}

/** The 200 of `file` for a GET or HEAD, gzipped when asked, with `headers` added. */
export function sendStatic(request: Request, file: StaticFile, headers: Record<string, string>): Response {
  const gzip = file.gzipped !== undefined && acceptsGzip(request.headers.get('accept-encoding'));
  const body = gzip ? file.gzipped! : file.body;
  const all: Record<string, string> = { 'content-type': file.type, 'x-content-type-options': 'nosniff', ...headers, 'content-length': String(body.byteLength) };
  if (file.gzipped) all.vary = 'accept-encoding';
  if (gzip) all['content-encoding'] = 'gzip';
  return new Response(request.method === 'HEAD' ? null : (body as unknown as BodyInit), { status: 200, headers: all });
}
