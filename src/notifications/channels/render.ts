/**
 * Bounding and escaping the text of notification-text.ts for one channel. Every bound cuts on a
 * whole character (a grapheme: an emoji with its modifiers, a letter with its accents) and ends
 * with "…", so no channel shows half a character or a broken escape.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** `text` cut so that `measure` of it (plus the ellipsis) is at most `max`. */
function fitBy(text: string, max: number, measure: (text: string) => number): string {
  if (measure(text) <= max) return text;
  const ellipsis = '…';
  const budget = max - measure(ellipsis);
  if (budget <= 0) return '';
  // Both measures add up segment by segment, so the text is walked once.
  let result = '';
  let length = 0;
  for (const { segment } of segmenter.segment(text)) {
    const size = measure(segment);
    if (length + size > budget) break;
    result += segment;
    length += size;
  }
  return result.trimEnd() + ellipsis;
}

/** At most `max` UTF-16 code units (what Discord, Telegram and Pushover count, or more). */
export function fitChars(text: string, max: number): string {
  return fitBy(text, max, (value) => value.length);
}

/** At most `max` bytes of UTF-8 (ntfy's message bound, web push's payload). */
export function fitBytes(text: string, max: number): string {
  return fitBy(text, max, (value) => Buffer.byteLength(value, 'utf8'));
}

/** Text for HTML (Telegram's HTML parse mode, mail): `&`, `<`, `>` and `"` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Text for Markdown (Discord's embeds, Gotify's markdown): every character Markdown treats as
 * syntax is escaped with a backslash, so a catalog title like `*Batteries* [not] included` shows
 * as written and cannot make a link.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+\-.!|~>]/g, '\\$&');
}

/**
 * `text` bounded to `max` measured after `escape`: cuts the plain text (never inside an escape)
 * until its escaped form fits.
 */
export function fitEscaped(text: string, max: number, escape: (text: string) => string): string {
  if (escape(text).length <= max) return escape(text);
  // Both escapes work character by character, so the escaped length adds up segment by segment.
  const budget = max - 1;
  let result = '';
  let length = 0;
  for (const { segment } of segmenter.segment(text)) {
    const escaped = escape(segment).length;
    if (length + escaped > budget) break;
    result += segment;
    length += escaped;
  }
  return `${escape(result.trimEnd())}…`;
}

/** A URL safe inside Markdown's `(…)`: brackets, angle brackets and spaces percent-encoded. */
export function markdownUrl(url: string): string {
  return url.replace(/[()<>\s]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
