import { createHash } from 'node:crypto';
import ical, { ICalCalendarMethod, ICalEventTransparency, type ICalCalendar } from 'ical-generator';
import { yieldToEventLoop } from '../event-loop.ts';

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

/** Events rendered between two turns of the event loop (~2 ms of work). */
const eventsPerSlice = 250;

/**
 * The calendar as an ical-generator document with its events: the one description of what the
 * feed holds. All-day events (`DTSTART;VALUE=DATE` and the exclusive `DTEND` the next day),
 * transparent (a release does not make anyone busy), `DTSTAMP` and `LAST-MODIFIED` the item's
 * last change. Nothing in it depends on the time of the request, so the same calendar renders to
 * the same bytes.
 *
 * Dates are given as UTC midnights and the calendar has no time zone set: ical-generator then
 * formats all-day dates with the UTC getters, where with a zone it would use the host's local
 * ones.
 */
export function icsDocument(calendar: { name: string; events: readonly IcsEvent[] }): ICalCalendar {
  const document = ical({ name: escapeText(calendar.name), prodId, ttl: refreshSeconds, scale: 'GREGORIAN', method: ICalCalendarMethod.PUBLISH });
  for (const event of calendar.events) addEvent(document, event);
  return document;
}

function addEvent(document: ICalCalendar, event: IcsEvent) {
  const stamp = new Date(event.updatedAt);
  return document.createEvent({
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

/**
 * Renders the calendar as iCalendar bytes, exactly as ical-generator's `toString()` writes
 * `icsDocument(calendar)` plus the CRLF RFC 5545 requires after the last line (ical-generator
 * ends without one), but in slices: the frame first, then the events `eventsPerSlice` at a time
 * with a turn of the event loop between slices, each slice's lines folded by `foldIcsLines`.
 * ical-generator 10 folds the whole document at the end, encoding it one character at a time with
 * a new TextEncoder each (~2.5 s of one synchronous call for 6 000 events; 11.x, which fixes
 * that, needs Node 22); rendering 20 000 events (the most a calendar holds) in one call would hold
 * every other request up for seconds.
 */
export async function renderIcs(calendar: { name: string; events: readonly IcsEvent[] }): Promise<RenderedCalendar> {
  const document = icsDocument({ name: calendar.name, events: [] });
  // The frame alone: the calendar's properties, then END:VCALENDAR; the events go in between.
  const frame = document.toString();
  const end = frame.lastIndexOf('END:VCALENDAR');
  const parts = [frame.slice(0, end)];
  for (let start = 0; start < calendar.events.length; start += eventsPerSlice) {
    if (start > 0) await yieldToEventLoop();
    let slice = '';
    for (const event of calendar.events.slice(start, start + eventsPerSlice)) slice += addEvent(document, event).toString();
    parts.push(foldIcsLines(slice));
  }
  parts.push(`${frame.slice(end)}\r\n`);
  const body = Buffer.from(parts.join(''), 'utf8');
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}

/**
 * RFC 5545 §3.1 line folding, byte for byte as ical-generator folds: a line break and a space are
 * inserted before the character that would take a line past 74 octets of UTF-8, so no character
 * is split. Octets are counted from UTF-16 code units (a surrogate pair is 4, an unpaired
 * surrogate 3, as U+FFFD), not by encoding every character.
 */
export function foldIcsLines(text: string): string {
  return text.split('\r\n').map(foldLine).join('\r\n');
}

function foldLine(line: string): string {
  // Short ASCII-only lines, nearly all of them, stay as they are.
  if (line.length <= 74 && !/[^\x00-\x7F]/.test(line)) return line;
  const pieces: string[] = [];
  let pieceStart = 0;
  let octets = 0;
  for (let index = 0; index < line.length; ) {
    const code = line.charCodeAt(index);
    let size: number;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < line.length) {
      // ical-generator takes the next unit with a high surrogate, whatever it is.
      const next = line.charCodeAt(index + 1);
      units = 2;
      size = next >= 0xdc00 && next <= 0xdfff ? 4 : 3 + (next < 0x80 ? 1 : next < 0x800 ? 2 : 3);
    } else size = 3;
    octets += size;
    if (octets > 74) {
      pieces.push(line.slice(pieceStart, index));
      pieceStart = index;
      octets = size;
    }
    index += units;
  }
  pieces.push(line.slice(pieceStart));
  return pieces.join('\r\n ');
}
