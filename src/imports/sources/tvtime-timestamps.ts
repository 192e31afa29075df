import { wallClockToInstant } from './zoned-time.ts';

/**
 * TV Time's timestamps, every form its exports have used:
 * - `2022-05-01 20:11:05` (the GDPR export's database columns, no zone),
 * - `2017-05-02 21:24:51 +0000 UTC` (older GDPR exports: Go's `time.String()`, also with fractional
 *   seconds and a monotonic-clock tail such as ` m=+0.000123`),
 * - `2024-05-01T20:11:05Z` / `2024-05-01T20:11:05.123Z` (the current data export, ISO 8601),
 * - `1634752795` (Unix seconds: one generation of `tracking-prod-records.csv` writes some cells so,
 *   beside plain date-times in the same column; `1634752795.5` and 13-digit milliseconds too),
 * - `2022-05-01` (a date alone: its midnight).
 * A stated offset is applied (`+0200 CEST` is two hours ahead of UTC) and a Unix time is the instant
 * it counts. A time without a zone (plain) is a wall-clock time read in `timeZone`: TV Time wrote
 * some exports' plain times in the account holder's local time (in one, every Unix time was the
 * row's plain `created_at` plus three hours: UTC−3), so the zone is the person's choice at import,
 * the account's by default.
 */
const pattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(?:\s*(Z|[+-]\d{2}:?\d{2}))?(?:\s+([A-Za-z]{1,6}))?(?:\s+m=[+-]\d+(?:\.\d+)?)?$/;

/** Unix seconds (9–10 digits: 1973–2286, with an optional fraction) or milliseconds (13 digits). */
const unixPattern = /^(?:(\d{9,10})(\.\d+)?|(\d{13}))$/;

/** How a timestamp was written: with a zone or offset, as a Unix time, or plain (read in the chosen zone). */
export type TimestampForm = 'stated' | 'unix' | 'plain';

/** The instant `value` names and how it was written, or undefined when it is none of the forms above. */
export function readTvTimeTimestamp(value: string, timeZone = 'UTC'): { at: Date; form: TimestampForm } | undefined {
  const text = value.trim();
  const unix = unixPattern.exec(text);
  if (unix) {
    const milliseconds = unix[3] !== undefined ? Number(unix[3]) : Number(unix[1]) * 1000 + Math.floor(Number(`0${unix[2] ?? ''}`) * 1000);
    return { at: new Date(milliseconds), form: 'unix' };
  }
  const match = pattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute = '0', second = '0', fraction = '', offset, zoneName] = match;
  // A zone name alone is only believed when it is UTC itself; with an offset, the offset decides.
  if (zoneName !== undefined && offset === undefined && !/^(UTC|GMT|Z)$/i.test(zoneName)) return undefined;
  if (hour === undefined && (offset !== undefined || zoneName !== undefined)) return undefined;
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const wall = Date.UTC(+year!, +month! - 1, +day!, +(hour ?? 0), +minute, +second, milliseconds);
  const date = new Date(wall);
  if (date.getUTCDate() !== +day! || date.getUTCMonth() !== +month! - 1 || +(hour ?? 0) > 23 || +minute > 59 || +second > 59) return undefined;
  if (offset === undefined && zoneName === undefined) return { at: new Date(wallClockToInstant(wall, timeZone)), form: 'plain' };
  if (offset === undefined || offset === 'Z') return { at: date, form: 'stated' };
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  if (Number(digits.slice(2)) > 59 || Number(digits.slice(0, 2)) > 14) return undefined;
  return { at: new Date(wall - sign * offsetMinutes * 60_000), form: 'stated' };
}

/** The instant `value` names (plain times read in `timeZone`, UTC by default), or undefined. */
export function tvTimeTimestamp(value: string, timeZone = 'UTC'): Date | undefined {
  return readTvTimeTimestamp(value, timeZone)?.at;
}

/**
 * Reads one file's timestamps in the import's zone and counts how each was written, for the
 * report's note on that file (which zone plain times were read in, how many Unix times there were).
 */
export class TvTimeClock {
  private readonly counts: Record<TimestampForm, number> = { stated: 0, unix: 0, plain: 0 };

  constructor(
    readonly timeZone: string,
    /** How the zone was chosen, for the note: the account's (the default) or the person's at import. */
    readonly zoneChosen: boolean,
  ) {}

  /** The instant `value` names, or undefined when it is no timestamp. */
  read(value: string): Date | undefined {
    const read = readTvTimeTimestamp(value, this.timeZone);
    if (read) this.counts[read.form] += 1;
    return read?.at;
  }

  /** What the report says about this file's times; none when it had no plain or Unix times. */
  notes(): string[] {
    const notes: string[] = [];
    const { plain, unix } = this.counts;
    const zone = `${this.timeZone} (${this.zoneChosen ? 'the time zone chosen for this import' : "the account's time zone; another can be chosen at import"})`;
    if (plain > 0) notes.push(`${plain} ${plain === 1 ? 'time' : 'times'} without a time zone read as local times in ${zone}`);
    if (unix > 0) notes.push(`${unix} Unix ${unix === 1 ? 'time' : 'times'} (seconds since 1970, UTC) read as the instants they are`);
    return notes;
  }
}
