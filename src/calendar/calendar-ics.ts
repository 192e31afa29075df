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

/** Any character `icsText` changes: controls and DEL, CR, and any surrogate (paired ones are checked further). */
const needsCleaning = /[\u0000-\u0008\u000B-\u001F\u007F\uD800-\uDFFF]/;

/**
 * The text a title or note is written as: control characters dropped, unpaired surrogates made
 * U+FFFD, and CR LF or a lone CR made a line feed (the one line break iCalendar text has). The
 * RFC 5545 escaping itself (backslash, semicolon, comma, line break) is ical-generator's.
 */
export function icsText(text: string): string {
  // Most titles hold none of these: one scan instead of three replacements.
  if (!needsCleaning.test(text)) return text;
  return text.replace(loneSurrogates, '\uFFFD').replace(/\r\n?/g, '\n').replace(controlCharacters, '');
}

/** RFC 5545 TEXT escaping, for the one value ical-generator writes unescaped (the calendar name). */
function escapeText(text: string): string {
  return escapeValue(icsText(text));
}

function nextDay(date: string): Date {
  const start = new Date(`${date}T00:00:00Z`);
  return new Date(start.getTime() + 86_400_000);
}

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

/** Events written between two turns of the event loop (~3 ms of work on a busy machine). */
const eventsPerSlice = 1_000;

/**
 * Renders the calendar as iCalendar bytes, exactly as ical-generator's `toString()` writes
 * `icsDocument(calendar)` plus the CRLF RFC 5545 requires after the last line (ical-generator
 * ends without one). The frame (the calendar's properties) is ical-generator's; the events are
 * written by `writeEvent`, `eventsPerSlice` at a time with a turn of the event loop between
 * slices. Through ical-generator each event costs an object with a random UUID, date validation
 * and formatting (10.x also folded the whole document one character at a time, ~2.5 s for 6 000
 * events, its issue #765, fixed in 11.1.0), and it cannot reuse an unchanged event's text:
 * 6 000 events take ~25 ms of CPU here. Tests pin the bytes to ical-generator's output.
 *
 * A calendar rendered again after a change mostly holds the events it held: given the events a
 * previous render wrote (`previous`, by UID), an event whose fields are all the same reuses its
 * bytes; `written`, when given, receives what this render wrote, for the next one.
 * @throws Error for an event whose date or `updatedAt` is not a valid date, as ical-generator does.
 */
export async function renderIcs(
  calendar: { name: string; events: readonly IcsEvent[] },
  previous?: ReadonlyMap<string, WrittenEvent>,
  written?: Map<string, WrittenEvent>,
): Promise<Buffer> {
  const frame = icsDocument({ name: calendar.name, events: [] }).toString();
  const end = frame.lastIndexOf('END:VCALENDAR');
  // Each event is kept as its own encoded bytes: a render after a follow change copies the bytes
  // of the events it keeps (Buffer.concat) instead of encoding megabytes of text again, and no
  // string of the whole calendar (megabytes, in UTF-16) is ever built.
  const chunks: Buffer[] = [Buffer.from(frame.slice(0, end), 'utf8')];
  const dayLines = new Map<string, string>();
  for (let start = 0; start < calendar.events.length; start += eventsPerSlice) {
    if (start > 0) await yieldToEventLoop();
    const stop = Math.min(start + eventsPerSlice, calendar.events.length);
    for (let index = start; index < stop; index += 1) {
      const event = calendar.events[index]!;
      const before = previous?.get(event.uid);
      const bytes = before !== undefined && sameEvent(before.event, event) ? before.bytes : Buffer.from(writeEvent(event, dayLines), 'utf8');
      written?.set(event.uid, { event, bytes });
      chunks.push(bytes);
    }
  }
  chunks.push(Buffer.from(`${frame.slice(end)}\r\n`, 'utf8'));
  return Buffer.concat(chunks);
}

/** An event a render wrote and its bytes, for a later render of the same calendar to reuse. */
export interface WrittenEvent {
  event: IcsEvent;
  bytes: Buffer;
}

/** Whether two events are written alike: every field `writeEvent` reads. */
function sameEvent(a: IcsEvent, b: IcsEvent): boolean {
  return a.uid === b.uid && a.updatedAt === b.updatedAt && a.date === b.date && a.kind === b.kind && a.summary === b.summary && a.description === b.description;
}

/**
 * One VEVENT as ical-generator 10 writes what `addEvent` gives it, folded: only the UID, SUMMARY
 * and DESCRIPTION lines can pass 74 octets, the others are fixed-width. `dayLines` keeps the
 * date lines of each day already written (a calendar has a few hundred days, thousands of events).
 */
function writeEvent(event: IcsEvent, dayLines: Map<string, string>): string {
  let days = dayLines.get(event.date);
  if (days === undefined) {
    days =
      `DTSTART;VALUE=DATE:${utcDate(new Date(`${event.date}T00:00:00Z`), 'start')}\r\n` +
      `DTEND;VALUE=DATE:${utcDate(nextDay(event.date), 'end')}\r\n` +
      'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE\r\nX-MICROSOFT-MSNCALENDAR-ALLDAYEVENT:TRUE\r\n';
    dayLines.set(event.date, days);
  }
  const stamp = utcDateTime(new Date(event.updatedAt));
  const uid = `UID:${event.uid}`;
  return (
    `BEGIN:VEVENT\r\n${uid.includes('\r\n') ? foldIcsLines(uid) : foldLine(uid)}\r\nSEQUENCE:0\r\nDTSTAMP:${stamp}\r\n${days}` +
    `${foldLine(`SUMMARY:${escapeValue(icsText(event.summary))}`)}\r\nTRANSP:TRANSPARENT\r\n` +
    `${foldLine(`DESCRIPTION:${escapeValue(icsText(event.description))}`)}\r\n` +
    `CATEGORIES:${categoryByKind[event.kind]}\r\nLAST-MODIFIED:${stamp}\r\nEND:VEVENT\r\n`
  );
}

/** ical-generator's TEXT escaping (backslash, semicolon, comma; any line break as `\n`); no line break survives it. */
function escapeValue(text: string): string {
  if (!/[\\;,\r\n]/.test(text)) return text;
  return text.replace(/[\\;,]/g, '\\$&').replace(/\r\n|\r|\n/g, '\\n');
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/** `YYYYMMDD` from the UTC fields, as ical-generator formats an all-day date of a calendar without a zone. */
function utcDate(date: Date, field: string): string {
  if (Number.isNaN(date.getTime())) throw new Error(`\`${field}\` has to be a valid date!`);
  return `${String(date.getUTCFullYear()).padStart(4, '0')}${pad2(date.getUTCMonth() + 1)}${pad2(date.getUTCDate())}`;
}

/** `YYYYMMDDTHHMMSSZ`, as ical-generator formats DTSTAMP and LAST-MODIFIED. */
function utcDateTime(date: Date): string {
  return `${utcDate(date, 'stamp')}T${pad2(date.getUTCHours())}${pad2(date.getUTCMinutes())}${pad2(date.getUTCSeconds())}Z`;
}

/**
 * RFC 5545 §3.1 line folding, byte for byte as ical-generator 11 folds: a line break and a space are
 * inserted before the character that would take a line past 74 octets of UTF-8, so no character
 * is split. Octets are counted from UTF-16 code units as ical-generator counts them: a high
 * surrogate takes the next unit along, whatever it is, and the two count 4 (a surrogate pair is 4
 * octets); any other unit counts its UTF-8 length (a lone low surrogate 3, as U+FFFD).
 */
export function foldIcsLines(text: string): string {
  return text.split('\r\n').map(foldLine).join('\r\n');
}

const surrogate = /[\uD800-\uDFFF]/;

function foldLine(line: string): string {
  // Lines of at most 74 octets, nearly all of them, stay as they are. A UTF-16 unit counts at
  // most 4 octets below (a high surrogate at the end of a line): 18 units always fit. Without
  // surrogates the count below is the line's UTF-8 length, so the native count decides.
  if (line.length <= 18) return line;
  if (Buffer.byteLength(line, 'utf8') <= 74 && !surrogate.test(line)) return line;
  const pieces: string[] = [];
  let pieceStart = 0;
  let octets = 0;
  for (let index = 0; index < line.length; ) {
    const code = line.charCodeAt(index);
    let size: number;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // ical-generator takes the next unit with a high surrogate, whatever it is, and counts 4.
      units = index + 1 < line.length ? 2 : 1;
      size = 4;
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
