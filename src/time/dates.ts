/**
 * Pure helpers over calendar dates (`YYYY-MM-DD`) and IANA time zones. Feed windows are decided on
 * calendar dates in the account's zone, never on instants, so that "today" flips at the account's
 * local midnight and a DST change can neither skip nor repeat a day.
 */
/** A calendar date, `YYYY-MM-DD`. */
export type LocalDate = string;

const LOCAL_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * One formatter per zone: building an `Intl.DateTimeFormat` costs far more than using one, and every
 * feed request asks for the account's local date. The map stays small because only zones that
 * `Intl` accepted are stored.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // en-CA with Latin digits and the Gregorian calendar gives ISO-like parts whatever the host locale.
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The calendar date at `now` in the IANA zone `timeZone`.
 * @throws RangeError when the zone is unknown or `now` is an invalid Date.
 */
export function localDate(timeZone: string, now: Date): LocalDate {
  let year = '';
  let month = '';
  let day = '';
  for (const part of formatterFor(timeZone).formatToParts(now)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year.padStart(4, '0')}-${month}-${day}`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * `date` moved by a whole number of calendar days (negative goes back). Computed on a UTC date, so
 * the result never depends on the host's zone or on DST.
 * @throws RangeError when `date` is not a real calendar date or `days` is not an integer.
 */
export function addDays(date: LocalDate, days: number): LocalDate {
  if (!isValidLocalDate(date)) throw new RangeError(`Invalid date: ${date}`);
  if (!Number.isInteger(days)) throw new RangeError(`Days must be an integer: ${days}`);
  const moved = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  moved.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)) + days);
  return `${pad(moved.getUTCFullYear(), 4)}-${pad(moved.getUTCMonth() + 1, 2)}-${pad(moved.getUTCDate(), 2)}`;
}

/**
 * The canonical spelling of an IANA zone name (`europe/berlin` → `Europe/Berlin`), or null when it
 * is not one. UTC offsets such as `+05:00` are refused: newer Node versions accept them as zones and
 * older ones do not, and the account setting is documented as an IANA name.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name === '' || name.startsWith('+') || name.startsWith('-')) return null;
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Whether `name` is an IANA time zone this runtime knows (case-insensitive, as `Intl` is). */
export function isValidTimeZone(name: string): boolean {
  return canonicalTimeZone(name) !== null;
}

/** Whether `text` is exactly `YYYY-MM-DD` and a real Gregorian date (`2026-02-30` is not). */
export function isValidLocalDate(text: string): boolean {
  const match = LOCAL_DATE_PATTERN.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const length = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= length;
}

/** `S01E02`: both numbers padded to two digits at least; wider numbers stay whole (`S01E100`). */
export function episodeCode(season: number, number: number): string {
  return `S${pad(season, 2)}E${pad(number, 2)}`;
}
