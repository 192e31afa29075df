/**
 * TV Time's timestamps, every form its exports have used:
 * - `2022-05-01 20:11:05` (the GDPR export's database columns, no zone),
 * - `2017-05-02 21:24:51 +0000 UTC` (older GDPR exports: Go's `time.String()`, also with fractional
 *   seconds and a monotonic-clock tail such as ` m=+0.000123`),
 * - `2024-05-01T20:11:05Z` / `2024-05-01T20:11:05.123Z` (the current data export, ISO 8601),
 * - `2022-05-01` (a date alone: its UTC midnight).
 * A time without a zone is UTC: these are TV Time's server database columns, which servers keep in
 * UTC, and the account's time zone today says nothing about where the person was then. A stated
 * offset is applied (`+0200 CEST` is two hours ahead of UTC).
 */
const pattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(?:\s*(Z|[+-]\d{2}:?\d{2}))?(?:\s+([A-Za-z]{1,6}))?(?:\s+m=[+-]\d+(?:\.\d+)?)?$/;

/** The instant `value` names, or undefined when it is none of the forms above (or no real date). */
export function tvTimeTimestamp(value: string): Date | undefined {
  const match = pattern.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute = '0', second = '0', fraction = '', offset, zoneName] = match;
  // A zone name alone is only believed when it is UTC itself; with an offset, the offset decides.
  if (zoneName !== undefined && offset === undefined && !/^(UTC|GMT|Z)$/i.test(zoneName)) return undefined;
  if (hour === undefined && (offset !== undefined || zoneName !== undefined)) return undefined;
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const utc = Date.UTC(+year!, +month! - 1, +day!, +(hour ?? 0), +minute, +second, milliseconds);
  const date = new Date(utc);
  if (date.getUTCDate() !== +day! || date.getUTCMonth() !== +month! - 1 || +(hour ?? 0) > 23 || +minute > 59 || +second > 59) return undefined;
  if (offset === undefined || offset === 'Z') return date;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  if (Number(digits.slice(2)) > 59 || Number(digits.slice(0, 2)) > 14) return undefined;
  return new Date(utc - sign * offsetMinutes * 60_000);
}
