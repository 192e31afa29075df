import { createHash } from 'node:crypto';
import ical, { ICalCalendarMethod, ICalEventTransparency } from 'ical-generator';

/** An event as the calendar operation selects it (`updatedAt` as the DateTime scalar's ISO text). */
export interface IcsEvent {
  uid: string;
  kind: 'episode' | 'movie' | 'game';
  /** YYYY-MM-DD. */
  date: string;
  updatedAt: string;
  summary: string;
  description: string;
}

/** A rendered calendar: its bytes and their strong ETag. */
export interface RenderedCalendar {
  body: Buffer;
  etag: string;
}

/** Fixed, so the body never depends on the ical-generator version (its default names itself). */
const prodId = { company: 'Airdate', product: 'Airdate Calendar', language: 'EN' } as const;
/** How often calendar apps should fetch again (REFRESH-INTERVAL and X-PUBLISHED-TTL): an hour. */
const refreshSeconds = 3600;
const categoryByKind = { episode: 'Episode', movie: 'Movie', game: 'Game' } as const;

// C0 controls other than tab, line feed and carriage return, and DEL: RFC 5545 TEXT cannot hold
// them (line breaks become `\n` through ical-generator's escaping).
const controlCharacters = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
// An unpaired surrogate cannot be encoded as UTF-8; it would become U+FFFD anyway when the body is
// encoded, and doing it here keeps the folding's byte count equal to the bytes sent.
const loneSurrogates = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The text a title or note is written as: control characters dropped, unpaired surrogates made
 * U+FFFD, and CR LF or a lone CR made a line feed (the one line break iCalendar text has). The
 * RFC 5545 escaping itself (backslash, semicolon, comma, line break) is ical-generator's.
 */
export function icsText(text: string): string {
  return text.replace(loneSurrogates, '\uFFFD').replace(/\r\n?/g, '\n').replace(controlCharacters, '');
}

/** RFC 5545 TEXT escaping, for the one value ical-generator writes unescaped (the calendar name). */
function escapeText(text: string): string {
  return icsText(text).replace(/[\\;,]/g, (match) => `\\${match}`).replace(/\n/g, '\\n');
}

function nextDay(date: string): Date {
  const start = new Date(`${date}T00:00:00Z`);
  return new Date(start.getTime() + 86_400_000);
}

/**
 * Renders the calendar as iCalendar text with ical-generator: all-day events (`DTSTART;VALUE=DATE`
 * and the exclusive `DTEND` the next day), transparent (a release does not make anyone busy),
 * `DTSTAMP` and `LAST-MODIFIED` the item's last change. Nothing in it depends on the time of the
 * request, so the same calendar renders to the same bytes.
 *
 * Dates are given as UTC midnights and the calendar has no time zone set: ical-generator then
 * formats all-day dates with the UTC getters, where with a zone it would use the host's local
 * ones. Its line folding was checked (test/calendar/calendar-ics.test.ts): it counts UTF-8 octets
 * per code point and folds before 75, never inside a character, so no post-processing is needed.
 * It ends the last line without CRLF, which RFC 5545 requires; that one is added here.
 */
export function renderIcs(calendar: { name: string; events: readonly IcsEvent[] }): RenderedCalendar {
  const document = ical({ name: escapeText(calendar.name), prodId, ttl: refreshSeconds, scale: 'GREGORIAN', method: ICalCalendarMethod.PUBLISH });
  for (const event of calendar.events) {
    const stamp = new Date(event.updatedAt);
    document.createEvent({
      id: event.uid,
      allDay: true,
      start: new Date(`${event.date}T00:00:00Z`),
      end: nextDay(event.date),
      stamp,
      lastModified: stamp,
      summary: icsText(event.summary),
      description: icsText(event.description),
      transparency: ICalEventTransparency.TRANSPARENT,
      categories: [{ name: categoryByKind[event.kind] }],
    });
  }
  const body = Buffer.from(`${document.toString()}\r\n`, 'utf8');
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}
