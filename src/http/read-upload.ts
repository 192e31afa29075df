import { HttpError } from './responses.ts';

/** True for a multipart/form-data content type. */
export function isMultipart(request: Request): boolean {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

const tooLargeUpload = (maxBytes: number) => new HttpError(413, `upload is larger than ${Math.floor(maxBytes / (1024 * 1024))} MB`);

/**
 * The request body as a stream that errors with `tooLarge()` as soon as more than `maxBytes` have
 * arrived (which also cancels the request body); a declared Content-Length over the limit is
 * refused before anything is read. Null when the request has no body.
 */
function cappedStream(request: Request, maxBytes: number, tooLarge: () => HttpError): ReadableStream<Uint8Array> | null {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge();
  let size = 0;
  return (
    request.body?.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size > maxBytes) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    ) ?? null
  );
}

/**
 * The request body as bytes, refusing more than `maxBytes` with 413 (`tooLargeMessage`) before
 * reading when declared, else as soon as the streamed body passes the limit, so at most `maxBytes`
 * are ever held. A body that breaks off is a 400.
 */
export async function readCappedBody(request: Request, maxBytes: number, tooLargeMessage?: string): Promise<Uint8Array> {
  const stream = cappedStream(request, maxBytes, () => (tooLargeMessage === undefined ? tooLargeUpload(maxBytes) : new HttpError(413, tooLargeMessage)));
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(read.value);
      size += read.value.byteLength;
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The body stream broke off: the client closed the connection, or Node's parser refused the
    // rest of the body (a malformed chunk, answered by the server's clientError handler). Not a
    // fault of ours, and nobody may be left to read the answer.
    throw new HttpError(400, 'the request body was not received whole');
  }
  return Buffer.concat(chunks, size);
}

/**
 * A copy of `request` whose body has been read under the upload cap (for graphql-yoga's multipart
 * parser, which reads the whole body into File objects itself).
 */
export async function cappedRequest(request: Request, maxBytes: number): Promise<Request> {
  const body = await readCappedBody(request, maxBytes);
  return new Request(request.url, { method: request.method, headers: request.headers, body: body as unknown as BodyInit });
}

/**
 * The file parts of a multipart/form-data upload (part names are free; text fields are ignored).
 * 415 for another content type, 413 past `maxBytes`, 400 for a malformed body or one without files.
 * The body streams into the fetch API's multipart parser through a byte counter that stops it
 * past the limit, so the upload is not first gathered as chunks and then joined: each of those
 * copies of a 11 MB restore file cost its size again in memory.
 */
export async function readUploadedFiles(request: Request, maxBytes: number): Promise<File[]> {
  if (!isMultipart(request)) throw new HttpError(415, 'content type must be multipart/form-data with the export files as file parts');
  const form = await readMultipartForm(request, maxBytes);
  const files = [...form.values()].filter((value): value is File => typeof value !== 'string');
  if (files.length === 0) throw new HttpError(400, 'no file parts: send the export files as multipart/form-data file parts');
  return files;
}

/**
 * A multipart/form-data body's parts (the caller has checked the content type), streamed into the
 * fetch API's parser through the byte counter: 413 (`tooLargeMessage`, else the upload limit's)
 * past `maxBytes`, 400 for a malformed body.
 */
export async function readMultipartForm(request: Request, maxBytes: number, tooLargeMessage?: string): Promise<FormData> {
  let tooLarge = false;
  const refusal = () => (tooLargeMessage === undefined ? tooLargeUpload(maxBytes) : new HttpError(413, tooLargeMessage));
  const counted = cappedStream(request, maxBytes, () => {
    tooLarge = true;
    return refusal();
  });
  try {
    const init = { method: 'POST', headers: { 'content-type': request.headers.get('content-type')! }, body: counted, duplex: 'half' };
    return await new Request('http://upload.invalid/', init as RequestInit).formData();
  } catch {
    if (tooLarge) throw refusal();
    throw new HttpError(400, 'the multipart/form-data body is malformed');
  }
}
