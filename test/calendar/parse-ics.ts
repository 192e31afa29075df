import ICAL from 'ical.js';
import nodeIcal, { type VEvent } from 'node-ical';
import { expect } from 'vitest';

/** An event as a parser read it: the fields every calendar test compares. */
export interface ParsedEvent {
  uid: string;
  summary: string;
  description: string;
  /** DTSTART, YYYY-MM-DD (all-day). */
  start: string;
  /** DTEND, YYYY-MM-DD (exclusive). */
  end: string;
  stamp: string;
}

export interface ParsedCalendar {
  name: string;
  events: ParsedEvent[];
}

const isoDate = (time: { year: number; month: number; day: number }) =>
  `${String(time.year).padStart(4, '0')}-${String(time.month).padStart(2, '0')}-${String(time.day).padStart(2, '0')}`;

/** Reads the document with ical.js (Mozilla's parser, used by Thunderbird); all-day dates only. */
export function parseWithIcalJs(text: string): ParsedCalendar {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const events = calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    expect(event.startDate.isDate && event.endDate.isDate).toBe(true);
    return {
      uid: event.uid,
      summary: event.summary,
      description: event.description,
      start: isoDate(event.startDate),
      end: isoDate(event.endDate),
      stamp: (component.getFirstPropertyValue('dtstamp') as ICAL.Time).toJSDate().toISOString(),
    };
  });
  return { name: String(calendar.getFirstPropertyValue('x-wr-calname')), events };
}

/**
 * Reads the document with node-ical (a regular-expression parser, independent of ical.js).
 * It gives all-day dates as local midnights flagged `dateOnly`, so they are read with the local
 * getters, whatever zone the test process runs in.
 */
export function parseWithNodeIcal(text: string): ParsedCalendar {
  const parsed = nodeIcal.sync.parseICS(text);
  const events: ParsedEvent[] = [];
  let name = '';
  for (const component of Object.values(parsed)) {
    if (component?.type === 'VCALENDAR') name = String((component as unknown as Record<string, unknown>)['WR-CALNAME']);
    if (component?.type !== 'VEVENT') continue;
    const event = component as VEvent;
    const local = (date: Date & { dateOnly?: true }) => {
      expect(date.dateOnly).toBe(true);
      return isoDate({ year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() });
    };
    events.push({
      uid: event.uid,
      summary: String(event.summary),
      description: String(event.description),
      start: local(event.start),
      end: local(event.end!),
      stamp: event.dtstamp.toISOString(),
    });
  }
  return { name, events };
}

/** Parses with both parsers, checks that they agree and returns what they read. */
export function parseBoth(text: string): ParsedCalendar {
  const first = parseWithIcalJs(text);
  expect(parseWithNodeIcal(text)).toEqual(first);
  return first;
}

/**
 * Checks the physical form of an iCalendar body: CRLF line ends only (the last line too), every
 * line at most 75 octets, and every line valid UTF-8 on its own, so folding never split a
 * character.
 */
export function expectWellFormedLines(body: Uint8Array): void {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const bytes = Buffer.from(body);
  expect(bytes.subarray(-2).toString('latin1')).toBe('\r\n');
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf('\r\n', start, 'latin1');
    expect(end).toBeGreaterThanOrEqual(start);
    const line = bytes.subarray(start, end);
    expect(line.includes(0x0a) || line.includes(0x0d)).toBe(false);
    expect(line.length).toBeLessThanOrEqual(75);
    expect(() => decoder.decode(line)).not.toThrow();
    start = end + 2;
  }
}
