import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldLines } from 'ical-generator';
import { foldIcsLines, icsDocument, icsText, renderIcs, type IcsEvent, type WrittenEvent } from '../../src/calendar/calendar-ics.ts';
import { bigCalendar } from './big-calendar.ts';
import { expectWellFormedLines, parseBoth, parseWithIcalJs, parseWithNodeIcal } from './parse-ics.ts';

const event = (overrides: Partial<IcsEvent> = {}): IcsEvent => ({
  uid: '0123456789abcdef0123456789abcdef@airdate',
  kind: 'episode',
  date: '2026-11-21',
  updatedAt: '2026-11-20T10:11:12.345Z',
  summary: 'Alpha Hour S01E02 · Pilot',
  description: 'Season 1, episode 2 of Alpha Hour',
  ...overrides,
});

const render = (events: IcsEvent[], name = 'Airdate — alice') => renderIcs({ name, events });


/**
 * node-ical unescapes with one replacement after another, so it reads an escaped backslash
 * followed by `n` (`\\n`, a literal backslash and the letter n) as a backslash and a line break,
 * it strips double quotes around a whole value, and it splits lines on U+2028 and U+2029 (line
 * and paragraph separators, which RFC 5545 text may hold as they are), losing the property.
 * ical.js reads all three as RFC 5545 says; the round trips below check ical.js on every title
 * and node-ical on the titles it can read.
 */
const nodeIcalReadsExactly = (text: string) => !/\\[nN]/.test(text) && !/^".*"$/s.test(text) && !/[\u2028\u2029]/.test(text);

describe('renderIcs', () => {
  it('writes all-day events with an exclusive end, the stamp and the pinned calendar properties', async () => {
    const text = (await render([event(), event({ uid: 'b@airdate', date: '2026-12-31', kind: 'movie', summary: 'Northbound Static' })])).toString('utf8');
    const lines = text.split('\r\n');
    expect(lines.slice(0, 9)).toEqual([
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Airdate//Airdate Calendar//EN',
      'CALSCALE:GREGORIAN',
      'METHOD:PUBLISH',
      'NAME:Airdate — alice',
      'X-WR-CALNAME:Airdate — alice',
      'REFRESH-INTERVAL;VALUE=DURATION:PT1H',
      'X-PUBLISHED-TTL:PT1H',
    ]);
    expect(lines).toContain('DTSTART;VALUE=DATE:20261121');
    expect(lines).toContain('DTEND;VALUE=DATE:20261122');
    // The year's last day ends on the next year's first.
    expect(lines).toContain('DTEND;VALUE=DATE:20270101');
    expect(lines).toContain('DTSTAMP:20261120T101112Z');
    expect(lines).toContain('TRANSP:TRANSPARENT');
    expect(lines.at(-2)).toBe('END:VCALENDAR');
    expect(lines.at(-1)).toBe('');

    const parsed = parseBoth(text);
    expect(parsed.name).toBe('Airdate — alice');
    expect(parsed.events).toEqual([
      expect.objectContaining({ uid: event().uid, start: '2026-11-21', end: '2026-11-22', stamp: '2026-11-20T10:11:12.000Z', summary: 'Alpha Hour S01E02 · Pilot' }),
      expect.objectContaining({ uid: 'b@airdate', start: '2026-12-31', end: '2027-01-01', summary: 'Northbound Static' }),
    ]);
  });

  it('renders the same calendar to the same bytes, and a change to other bytes', async () => {
    const first = await render([event()]);
    expect((await render([event()])).equals(first)).toBe(true);
    expect((await render([event({ summary: 'Alpha Hour S01E02 · Pilot (recut)' })])).equals(first)).toBe(false);
    expect((await render([event({ updatedAt: '2026-11-20T10:11:13.000Z' })])).equals(first)).toBe(false);
  });

  it('escapes commas, semicolons, backslashes and line breaks, and the calendar name too', async () => {
    const summary = 'Law, Order; and \\ Co\nPart 2';
    const text = (await render([event({ summary })], 'Airdate — a,b;c')).toString('utf8');
    expect(text).toContain('SUMMARY:Law\\, Order\\; and \\\\ Co\\nPart 2\r\n');
    expect(text).toContain('X-WR-CALNAME:Airdate — a\\,b\\;c\r\n');
    expect(parseWithIcalJs(text).events[0]!.summary).toBe(summary);
    expect(parseWithNodeIcal(text).events[0]!.summary).toBe(summary);
    // X-WR-CALNAME is text to the apps that read it (node-ical too); ical.js keeps unknown X-
    // values raw. Account names cannot hold these characters; the escaping is for safety only.
    expect(parseWithNodeIcal(text).name).toBe('Airdate — a,b;c');
  });

  it('folds long lines at 75 octets without splitting a UTF-8 sequence', async () => {
    // 3-byte CJK and 4-byte emoji at every offset, so some character straddles each fold point.
    for (let offset = 0; offset < 4; offset += 1) {
      const summary = `${'x'.repeat(offset)}${'日本語のタイトル😀'.repeat(12)}`;
      const body = (await render([event({ summary, description: 'é'.repeat(200) })]));
      expectWellFormedLines(body);
      const text = body.toString('utf8');
      expect(text).toContain('\r\n ');
      expect(parseBoth(text).events[0]!.summary).toBe(summary);
    }
  });

  it('refuses an event whose date or last change is not a date, as ical-generator does', async () => {
    for (const bad of [{ date: '2026-13-01' }, { date: 'soon' }, { updatedAt: 'yesterday' }]) {
      expect(() => icsDocument({ name: 'x', events: [event(bad)] }), JSON.stringify(bad)).toThrow(/has to be a valid date/);
      await expect(render([event(bad)]), JSON.stringify(bad)).rejects.toThrow(/has to be a valid date/);
    }
  });

  it('drops control characters and turns CR LF and lone CR into line breaks', async () => {
    expect(icsText('a\u0000b\u0007c\u001Fd\u007Fe\tf')).toBe('abcde\tf');
    expect(icsText('one\r\ntwo\rthree\nfour')).toBe('one\ntwo\nthree\nfour');
    expect(icsText('lone \uD83D surrogate')).toBe('lone \uFFFD surrogate');
    const summary = 'bell\u0007 and\r\nbreak';
    const body = (await render([event({ summary })]));
    expectWellFormedLines(body);
    expect(parseBoth(body.toString('utf8')).events[0]!.summary).toBe('bell and\nbreak');
  });

  it('round-trips any title through both parsers exactly (property)', async () => {
    const special = fc.constantFrom(',', ';', '\\', '\n', ':', '"', ' ', 'n', 'N', '😀', '👩‍👩‍👧', '日本語', '한국어', 'é', 'e\u0301', '—');
    const title = fc.string({ unit: fc.oneof(special, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(title, title, async (summary, description) => {
        const body = (await render([event({ summary, description })]));
        expectWellFormedLines(body);
        const text = body.toString('utf8');
        const [read] = parseWithIcalJs(text).events;
        expect([read!.summary, read!.description]).toEqual([summary, description]);
        const [alsoRead] = parseWithNodeIcal(text).events;
        if (nodeIcalReadsExactly(summary)) expect(alsoRead!.summary).toBe(summary);
        if (nodeIcalReadsExactly(description)) expect(alsoRead!.description).toBe(description);
      }),
      { numRuns: 300 },
    );
  });

  it('writes exactly the bytes ical-generator writes for the same document, over many slices and any text (property)', async () => {
    // Lone surrogates too (the summary path replaces them; the fold must count what is left the same way).
    const unit = fc.oneof(
      fc.constantFrom('a', ' ', ',', '\\', '\n', 'é', '—', '日', '😀', '\uD83D', '\uDE00', 'e\u0301'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 160, size: 'max' });
    const events = fc.array(fc.record({ summary: text, description: text }), { minLength: 0, maxLength: 600, size: 'max' });
    await fc.assert(
      fc.asyncProperty(events, text, async (texts, name) => {
        const calendar = { name, events: texts.map((texts, index) => event({ uid: `${index}@airdate`, ...texts })) };
        const ours = await renderIcs(calendar);
        expect(ours.toString('utf8')).toBe(`${icsDocument(calendar).toString()}\r\n`);
      }),
      { numRuns: 12 },
    );
  });

  it('renders a 6 000-event calendar to the bytes the renderer before the direct writer gave, read alike by both parsers', async () => {
    const calendar = bigCalendar();
    const body = await renderIcs(calendar);
    // SHA-256 of what the previous renderer (ical-generator's events, folded by foldIcsLines)
    // wrote for this input: the direct writer changed the speed, not one byte. (ical-generator's
    // own toString() takes seconds at this size; the property test above compares with it live.)
    expect(createHash('sha256').update(body).digest('hex')).toBe('9656c158414ced7dd1c3541fe5cc456b6da810c864113b1201705a96e01b25cb');
    const text = body.toString('utf8');
    // The parsers and the line checks (an expect a line) take long over the whole: its first 300
    // events hold every title and kind of the input (they repeat every 30), cut at an event's end
    // and closed as the whole is.
    const cut = text.split('BEGIN:VEVENT\r\n', 301).join('BEGIN:VEVENT\r\n').replace(/BEGIN:VEVENT\r\n$/, '');
    const part = `${cut.slice(0, cut.lastIndexOf('END:VEVENT\r\n'))}END:VEVENT\r\nEND:VCALENDAR\r\n`;
    expectWellFormedLines(Buffer.from(part, 'utf8'));
    const expected = calendar.events.slice(0, 300).map((written) => [written.uid, written.date, written.summary, written.description]);
    for (const parsed of [parseWithIcalJs(part), parseWithNodeIcal(part)]) {
      expect(parsed.events.map((read) => [read.uid, read.start, read.summary, read.description])).toEqual(expected);
    }
  });

  it('reuses the text of unchanged events from a previous render and writes changed ones anew, byte for byte as a fresh render', async () => {
    const calendar = bigCalendar();
    const written = new Map<string, WrittenEvent>();
    await renderIcs(calendar, undefined, written);
    expect(written.size).toBe(6_000);
    // A follow change (events gone, events added), a rename, a new stamp, a moved date, a new kind.
    const events = calendar.events.slice(100).map((event, index) => {
      if (index % 97 === 0) return { ...event, summary: `${event.summary} (renamed)` };
      if (index % 89 === 0) return { ...event, updatedAt: '2027-01-01T00:00:00.000Z' };
      if (index % 83 === 0) return { ...event, date: '2027-02-28' };
      if (index % 79 === 0) return { ...event, kind: 'game' as const, description: 'Game release' };
      return event;
    });
    events.push(event({ uid: 'new@airdate', summary: 'Brand new' }));
    const changed = { name: calendar.name, events };
    const next = new Map<string, WrittenEvent>();
    const reused = await renderIcs(changed, written, next);
    expect(reused.equals(await renderIcs(changed))).toBe(true);
    expect([...next.keys()]).toEqual(events.map((item) => item.uid));
    expect(reused.toString('utf8')).toContain('SUMMARY:Brand new\r\n');
  });

  it('folds any text, unpaired surrogates included, exactly as ical-generator folds it (property)', () => {
    const unit = fc.oneof(fc.constantFrom('a', 'é', '—', '日', '😀', '\uD83D', '\uDE00', '\r\n'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 400, size: 'max' }), (text) => {
        expect(foldIcsLines(text)).toBe(foldLines(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('lets other work run while it renders a big calendar', async () => {
    const events = Array.from({ length: 8_000 }, (_, index) => event({ uid: `${index}@airdate`, summary: `Show ${index} S01E01 · ${'日本語'.repeat(30)}` }));
    // Counts turns of the event loop (one per check phase), however fast each slice is.
    let turns = 0;
    let rendering = true;
    const tick = () => {
      turns += 1;
      if (rendering) setImmediate(tick);
    };
    setImmediate(tick);
    const rendered = await renderIcs({ name: 'Airdate — alice', events });
    rendering = false;
    expect(rendered.toString('utf8').split('\r\nBEGIN:VEVENT\r\n')).toHaveLength(8_001);
    // Other work runs between slices: a synchronous render would give none.
    expect(turns).toBeGreaterThan(2);
  });

  it('node-ical misreads only what the exception above names (so the exception cannot hide our bugs)', async () => {
    const text = (await render([event({ summary: 'C:\\new', description: '"quoted"' })])).toString('utf8');
    expect(parseWithIcalJs(text).events[0]).toMatchObject({ summary: 'C:\\new', description: '"quoted"' });
    expect(text).toContain('SUMMARY:C:\\\\new\r\n');
    expect(parseWithNodeIcal(text).events[0]).toMatchObject({ summary: 'C:\\\new', description: 'quoted' });
    const separator = (await render([event({ summary: 'a\u2028b' })])).toString('utf8');
    expect(parseWithIcalJs(separator).events[0]!.summary).toBe('a\u2028b');
    expect(parseWithNodeIcal(separator).events[0]!.summary).not.toBe('a\u2028b');
  });
});
