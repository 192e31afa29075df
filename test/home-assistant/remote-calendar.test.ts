import { describe, expect, it } from 'vitest';
import { setFollow } from '../../src/library/library.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { expectWellFormedLines } from '../calendar/parse-ics.ts';

// Home Assistant's Remote Calendar reads the account's calendar feed once a day with the `ical`
// library, which refuses a calendar that breaks RFC 5545 rather than guessing. This reads the feed
// as strictly: every content line by the RFC's grammar, the properties each component must have
// exactly once, values of their types, all-day events as Home Assistant shows them (DATE start, the
// next day as the exclusive DATE end), TEXT escaped, and UIDs unique and the same on every read.
const { app } = await useTestApp();

interface ContentLine {
  name: string;
  params: Record<string, string>;
  value: string;
}

interface Component {
  name: string;
  properties: ContentLine[];
  components: Component[];
}

/** One unfolded content line, `name *(";" param) ":" value` (RFC 5545 §3.1), or a thrown Error. */
function contentLine(line: string): ContentLine {
  const match = /^([A-Za-z0-9-]+)((?:;[A-Za-z0-9-]+=(?:"[^"\x00-\x08\x0a-\x1f]*"|[^";:,\x00-\x08\x0a-\x1f]*)(?:,(?:"[^"]*"|[^";:,]*))*)*):(.*)$/s.exec(line);
  if (!match) throw new Error(`not a content line: ${JSON.stringify(line.slice(0, 80))}`);
  const params: Record<string, string> = {};
  for (const param of match[2]!.split(';').slice(1)) {
    const [key, ...value] = param.split('=');
    params[key!.toUpperCase()] = value.join('=');
  }
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(match[3]!)) throw new Error(`control character in ${match[1]}`);
  return { name: match[1]!.toUpperCase(), params, value: match[3]! };
}

/** The whole document as components, checking BEGIN/END nesting. */
function parseStrictly(text: string): Component {
  const lines = text.split('\r\n');
  expect(lines.pop()).toBe('');
  const unfolded: string[] = [];
  for (const line of lines) {
    if (line.startsWith(' ') || line.startsWith('\t')) {
      expect(unfolded.length).toBeGreaterThan(0);
      unfolded[unfolded.length - 1] += line.slice(1);
    } else unfolded.push(line);
  }
  const stack: Component[] = [];
  let root: Component | undefined;
  for (const raw of unfolded) {
    const line = contentLine(raw);
    if (line.name === 'BEGIN') {
      const component: Component = { name: line.value.toUpperCase(), properties: [], components: [] };
      if (stack.length === 0) {
        expect(root, 'one VCALENDAR only').toBeUndefined();
        root = component;
      } else stack.at(-1)!.components.push(component);
      stack.push(component);
    } else if (line.name === 'END') {
      expect(stack.pop()?.name, 'END matches BEGIN').toBe(line.value.toUpperCase());
    } else {
      expect(stack.length, `${line.name} outside a component`).toBeGreaterThan(0);
      stack.at(-1)!.properties.push(line);
    }
  }
  expect(stack).toEqual([]);
  return root!;
}

const once = (component: Component, name: string) => {
  const found = component.properties.filter((property) => property.name === name);
  expect(found, `${component.name} ${name} exactly once`).toHaveLength(1);
  return found[0]!;
};

/** A DATE value (YYYYMMDD) as a real calendar date. */
function date(value: string): string {
  expect(value).toMatch(/^\d{8}$/);
  const iso = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6)}`;
  expect(new Date(`${iso}T00:00:00Z`).toISOString().slice(0, 10)).toBe(iso);
  return iso;
}

/** TEXT (§3.3.11): backslash only before \ ; , n N; no bare ; or , (they separate values). */
function expectText(value: string, what: string): void {
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index]!;
    if (character === '\\') {
      expect('\\;,nN', `${what}: an escape at ${index}`).toContain(value[index + 1] ?? 'end');
      index += 1;
    } else expect(';,', `${what}: a bare ${character} at ${index}`).not.toContain(character);
  }
}

async function calendarOf(token: string): Promise<string> {
  const response = await app.fetch(new Request(`http://airdate.test/api/calendar.ics?token=${encodeURIComponent(token)}`));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/calendar/);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expectWellFormedLines(bytes);
  return new TextDecoder().decode(bytes);
}

/** The events of the feed after the strict checks: uid → start date. */
function strictEvents(text: string): Map<string, { start: string; summary: string }> {
  const calendar = parseStrictly(text);
  expect(calendar.name).toBe('VCALENDAR');
  expect(once(calendar, 'VERSION').value).toBe('2.0');
  expect(once(calendar, 'PRODID').value.length).toBeGreaterThan(0);
  const events = new Map<string, { start: string; summary: string }>();
  for (const event of calendar.components) {
    expect(['VEVENT', 'VTIMEZONE']).toContain(event.name);
    if (event.name !== 'VEVENT') continue;
    const uid = once(event, 'UID').value;
    expect(events.has(uid), `UID ${uid} unique`).toBe(false);
    expect(once(event, 'DTSTAMP').value).toMatch(/^\d{8}T\d{6}Z$/);
    const start = once(event, 'DTSTART');
    const end = once(event, 'DTEND');
    expect(event.properties.some((property) => property.name === 'DURATION')).toBe(false);
    // All-day: both DATE values, the end the next day (exclusive).
    expect(start.params.VALUE).toBe('DATE');
    expect(end.params.VALUE).toBe('DATE');
    expect(date(end.value)).toBe(addDays(date(start.value), 1));
    const summary = once(event, 'SUMMARY').value;
    expectText(summary, `SUMMARY of ${uid}`);
    for (const description of event.properties.filter((property) => property.name === 'DESCRIPTION')) expectText(description.value, `DESCRIPTION of ${uid}`);
    events.set(uid, { start: date(start.value), summary });
  }
  return events;
}

describe('the calendar feed as Home Assistant’s Remote Calendar reads it', () => {
  it('parses strictly: required properties once, all-day DATE events, escaped text, unique UIDs that stay the same from one read to the next', async () => {
    const account = await makeAccount({ timezone: 'Europe/Berlin' });
    const today = localDate('Europe/Berlin', new Date());
    const show = await makeShow({
      title: 'Pilot, Part 2; Finale \\ Ünïcødé 𝕏 '.repeat(4),
      episodes: [
        { number: 1, airDate: addDays(today, -1), title: 'Line\nbreak, and; more' },
        { number: 2, airDate: today },
        { number: 3, airDate: addDays(today, 7), title: null },
      ],
    });
    const movie = await makeMovie({ title: 'Dune: Part Three', releaseDate: addDays(today, 30) });
    const game = await makeGame({ title: 'Hollow Knight: Silksong', releaseDate: addDays(today, 2) });
    for (const [kind, id] of [['show', show.id], ['movie', movie.id], ['game', game.id]] as const) await setFollow({ accountId: account.id, kind, id, followed: true });

    const first = strictEvents(await calendarOf(account.token));
    expect(first.size).toBe(5);
    expect([...first.values()].map((event) => event.start).sort()).toEqual([addDays(today, -1), today, addDays(today, 2), addDays(today, 7), addDays(today, 30)].sort());

    // Read again after a change to the calendar (another follow): the same events keep their UIDs.
    const other = await makeShow({ title: 'Other', episodes: [{ number: 1, airDate: addDays(today, 3) }] });
    await setFollow({ accountId: account.id, kind: 'show', id: other.id, followed: true });
    const second = strictEvents(await calendarOf(account.token));
    expect(second.size).toBe(6);
    for (const [uid, event] of first) expect(second.get(uid), uid).toEqual(event);
  });
});
