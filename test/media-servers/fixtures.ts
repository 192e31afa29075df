import { readFileSync } from 'node:fs';

/** A fixture body of test/media-servers/fixtures (README.md there says where each shape comes from). */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** A flat body as Jellyfin's generic form destination sends it: every value a string, booleans as C#'s True/False. */
export function formEncoded(body: Record<string, unknown>): string {
  const fields = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) fields.set(key, '');
    else if (typeof value === 'boolean') fields.set(key, value ? 'True' : 'False');
    else fields.set(key, String(value));
  }
  return fields.toString();
}

/** A small JPEG's bytes (start and end markers around filler), as Plex's thumbnail part. */
export const thumbnail = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new Array(2048).fill(0x11), 0xff, 0xd9]);

/** Plex's delivery: multipart/form-data, the JSON in `payload`, a JPEG `thumb` part when `withThumb`. */
export function plexForm(payload: unknown, withThumb = false): FormData {
  const form = new FormData();
  form.set('payload', JSON.stringify(payload));
  if (withThumb) form.set('thumb', new Blob([thumbnail], { type: 'image/jpeg' }), 'thumb.jpg');
  return form;
}
