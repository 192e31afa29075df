/**
 * Wall-clock times of a file read in an IANA time zone: TV Time's plain date-times are the account
 * holder's local time in some exports, so the import reads them in a zone the person chooses (by
 * default the account's).
 */

/** One formatter per zone (building one costs far more than using it; only zones Intl accepted are kept). */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      calendar: 'gregory',
      numberingSystem: 'latn',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, asked of Intl (a few microseconds). */
function offsetFromIntl(timeZone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  // The formatter has no milliseconds: compare with the instant cut to its second.
  return wall - (instant - (((instant % 1000) + 1000) % 1000));
}

const dayMs = 86_400_000;
/**
 * Per zone and UTC day, the day's offset when it has one all day (null: the offset changes that
 * day): a TV Time export has tens of thousands of plain times on a few thousand days, and a zone
 * changes its offset on a few days a year. Each zone's map is emptied when it passes a bound.
 */
const offsetsByDay = new Map<string, Map<number, number | null>>();
const cachedDaysPerZone = 100_000;

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in milliseconds. */
export function zoneOffsetAt(timeZone: string, instant: number): number {
  let days = offsetsByDay.get(timeZone);
  if (!days) offsetsByDay.set(timeZone, (days = new Map()));
  const day = Math.floor(instant / dayMs);
  let offset = days.get(day);
  if (offset === undefined) {
    const first = offsetFromIntl(timeZone, day * dayMs);
    offset = first === offsetFromIntl(timeZone, (day + 1) * dayMs - 1000) ? first : null;
    if (days.size >= cachedDaysPerZone) days.clear();
    days.set(day, offset);
  }
  return offset ?? offsetFromIntl(timeZone, instant);
}

/**
 * The instant at which the wall clock of `timeZone` shows `wall` (the wall-clock time written as if
 * it were UTC, e.g. Date.UTC(2021, 9, 20, 15, 0)). A time that happens twice when the clocks go back
 * is the first of the two; a time skipped when they go forward is read with the offset in force
 * before the change (it lands an hour later).
 */
export function wallClockToInstant(wall: number, timeZone: string): number {
  if (timeZone === 'UTC') return wall;
  // Zones change their offset at most once a day: the offsets a day either side cover both readings.
  const before = wall - zoneOffsetAt(timeZone, wall - 86_400_000);
  const after = wall - zoneOffsetAt(timeZone, wall + 86_400_000);
  const fits = (instant: number) => instant + zoneOffsetAt(timeZone, instant) === wall;
  const readings = [before, after].filter(fits).sort((a, b) => a - b);
  return readings[0] ?? before;
}
