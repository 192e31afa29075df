import type { App } from '../../src/app.ts';

/**
 * `form` encoded as a multipart body in bytes, with its content type. A request built on the
 * FormData itself is not sent that way: Node 24's fetch (undici >= 7.20) writes a FormData body from
 * a promise nothing awaits, which rejects unhandled ("ReadableStream is already closed") when the
 * server cancels the body part way through, as it does past the upload limit.
 */
export async function multipart(form: FormData): Promise<{ body: Uint8Array; contentType: string }> {
  const encoded = new Response(form);
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/**
 * POSTs `files` to `app` as multipart/form-data file parts (free part names) and returns status and
 * JSON: an import as a user's client sends it (`POST /api/import/{source}`).
 */
export async function upload(app: App, path: string, token: string, files: Record<string, Uint8Array>, options: { queryToken?: boolean } = {}) {
  const form = new FormData();
  Object.entries(files).forEach(([name, content], index) => form.append(`part${index}`, new File([content as BlobPart], name)));
  const { body, contentType } = await multipart(form);
  const url = new URL(path, 'http://airdate.test');
  const headers: Record<string, string> = { 'content-type': contentType };
  if (options.queryToken) url.searchParams.set('token', token);
  else headers.authorization = `Bearer ${token}`;
  const response = await app.fetch(new Request(url, { method: 'POST', headers, body: body as BodyInit }));
  return { status: response.status, json: (await response.json()) as any };
}
