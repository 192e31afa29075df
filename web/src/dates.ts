/**
 * Calendar dates (YYYY-MM-DD, no time, no zone) for the pages: arithmetic in UTC days, so no
 * daylight-saving change can move a date, and "today" read in the account's time zone.
 */
const pattern = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real YYYY-MM-DD date. */
export function isLocalDate(text: string): boolean {
  if (!pattern.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

/** Days since 1970-01-01. */
export function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  return new Date((dayNumber(date) + days) * 86_400_000).toISOString().slice(0, 10);
}

/** The Monday of the ISO week `date` is in. */
export function startOfWeek(date: string): string {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** Today's date in `timeZone` (an IANA name). */
export function todayIn(timeZone: string, now = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const part = (type: string) => parts.find((item) => item.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** "November 2026" in the browser's language. */
export function monthLabel(date: string): string {
  return new Date(`${date.slice(0, 7)}-01T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'long', year: 'numeric' });
}

/** Monday to Sunday, short and long, in the browser's language (2024-01-01 was a Monday). */
export const weekdayLabels = Array.from({ length: 7 }, (_, index) => {
  const day = new Date(Date.UTC(2024, 0, 1 + index));
  return { short: day.toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short' }), long: day.toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'long' }) };
});
