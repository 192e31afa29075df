import { describe, expect, it } from 'vitest';
import {
  addDays,
  canonicalTimeZone,
  episodeCode,
  isValidLocalDate,
  isValidTimeZone,
  localDate,
} from '../../src/time/dates.ts';

const at = (iso: string) => new Date(iso);

describe('localDate', () => {
  it('gives the calendar date in the zone, not in UTC', () => {
    expect(localDate('UTC', at('2026-06-15T23:59:59.999Z'))).toBe('2026-06-15');
    expect(localDate('Asia/Tokyo', at('2026-06-15T15:00:00Z'))).toBe('2026-06-16');
    expect(localDate('America/Los_Angeles', at('2026-06-15T06:59:59Z'))).toBe('2026-06-14');
  });

  it('puts the far east and the far west two calendar days apart at the same instant', () => {
    const instant = at('2026-06-15T10:30:00Z');
    expect(localDate('Pacific/Kiritimati', instant)).toBe('2026-06-16'); // UTC+14
    expect(localDate('UTC', instant)).toBe('2026-06-15');
    expect(localDate('Pacific/Pago_Pago', instant)).toBe('2026-06-14'); // UTC-11
  });

  it('flips at local midnight around the New York spring-forward day (2026-03-08)', () => {
    // Midnight EST is 05:00Z; the clocks jump 02:00 → 03:00 at 07:00Z; next midnight (EDT) is 04:00Z.
    expect(localDate('America/New_York', at('2026-03-08T04:59:59.999Z'))).toBe('2026-03-07');
    expect(localDate('America/New_York', at('2026-03-08T05:00:00.000Z'))).toBe('2026-03-08');
    expect(localDate('America/New_York', at('2026-03-08T06:59:59.999Z'))).toBe('2026-03-08');
    expect(localDate('America/New_York', at('2026-03-08T07:00:00.000Z'))).toBe('2026-03-08');
    expect(localDate('America/New_York', at('2026-03-09T03:59:59.999Z'))).toBe('2026-03-08');
    expect(localDate('America/New_York', at('2026-03-09T04:00:00.000Z'))).toBe('2026-03-09');
  });

  it('flips at local midnight around the New York fall-back day (2026-11-01, 25 hours long)', () => {
    expect(localDate('America/New_York', at('2026-11-01T03:59:59.999Z'))).toBe('2026-10-31');
    expect(localDate('America/New_York', at('2026-11-01T04:00:00.000Z'))).toBe('2026-11-01');
    // 01:30 happens twice that night (05:30Z EDT and 06:30Z EST); both are still November 1st.
    expect(localDate('America/New_York', at('2026-11-01T05:30:00Z'))).toBe('2026-11-01');
    expect(localDate('America/New_York', at('2026-11-01T06:30:00Z'))).toBe('2026-11-01');
    expect(localDate('America/New_York', at('2026-11-02T04:59:59.999Z'))).toBe('2026-11-01');
    expect(localDate('America/New_York', at('2026-11-02T05:00:00.000Z'))).toBe('2026-11-02');
  });

  it('flips at local midnight around the Berlin spring-forward day (2026-03-29, 23 hours long)', () => {
    expect(localDate('Europe/Berlin', at('2026-03-28T22:59:59.999Z'))).toBe('2026-03-28');
    expect(localDate('Europe/Berlin', at('2026-03-28T23:00:00.000Z'))).toBe('2026-03-29');
    expect(localDate('Europe/Berlin', at('2026-03-29T00:59:59Z'))).toBe('2026-03-29'); // 01:59 CET
    expect(localDate('Europe/Berlin', at('2026-03-29T01:00:00Z'))).toBe('2026-03-29'); // 03:00 CEST
    expect(localDate('Europe/Berlin', at('2026-03-29T21:59:59.999Z'))).toBe('2026-03-29');
    expect(localDate('Europe/Berlin', at('2026-03-29T22:00:00.000Z'))).toBe('2026-03-30');
  });

  it('knows the leap day', () => {
    expect(localDate('UTC', at('2028-02-29T12:00:00Z'))).toBe('2028-02-29');
    expect(localDate('Pacific/Kiritimati', at('2028-02-28T10:00:00Z'))).toBe('2028-02-29');
    expect(localDate('Pacific/Pago_Pago', at('2028-03-01T10:00:00Z'))).toBe('2028-02-29');
  });

  it('gives the same answer when called again for a zone (cached formatter)', () => {
    const instant = at('2026-12-31T23:30:00Z');
    expect(localDate('Europe/Berlin', instant)).toBe('2027-01-01');
    expect(localDate('Europe/Berlin', instant)).toBe('2027-01-01');
    expect(localDate('America/New_York', instant)).toBe('2026-12-31');
  });

  it('refuses an unknown zone or an invalid instant', () => {
    expect(() => localDate('Mars/Olympus_Mons', at('2026-01-01T00:00:00Z'))).toThrow(RangeError);
    expect(() => localDate('UTC', new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('addDays', () => {
  it('moves forward and back across month and year ends', () => {
    expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(addDays('2026-03-10', 0)).toBe('2026-03-10');
    expect(addDays('2026-03-10', 365)).toBe('2027-03-10');
  });

  it('counts whole calendar days across DST changes', () => {
    expect(addDays('2026-03-07', 1)).toBe('2026-03-08');
    expect(addDays('2026-03-08', 1)).toBe('2026-03-09');
    expect(addDays('2026-03-05', 6)).toBe('2026-03-11');
    expect(addDays('2026-03-28', 1)).toBe('2026-03-29');
    expect(addDays('2026-03-29', 1)).toBe('2026-03-30');
    expect(addDays('2026-10-31', 1)).toBe('2026-11-01');
    expect(addDays('2026-11-01', 1)).toBe('2026-11-02');
    expect(addDays('2026-10-29', 6)).toBe('2026-11-04');
  });

  it('steps through the leap day only in leap years', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2028-02-29', 1)).toBe('2028-03-01');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addDays('2100-02-28', 1)).toBe('2100-03-01');
    expect(addDays('2000-02-28', 1)).toBe('2000-02-29');
  });

  it('keeps four-digit years below 100 (no 19xx mapping)', () => {
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
    expect(addDays('0050-06-01', -1)).toBe('0050-05-31');
  });

  it('refuses invalid dates and fractional days', () => {
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
    expect(() => addDays('2026-3-1', 1)).toThrow(RangeError);
    expect(() => addDays('2026-03-01', 0.5)).toThrow(RangeError);
    expect(() => addDays('2026-03-01', Number.NaN)).toThrow(RangeError);
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names, in any letter case', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Kiritimati', 'Etc/GMT+5', 'utc']) {
      expect(isValidTimeZone(zone), zone).toBe(true);
    }
  });

  it('refuses unknown names, offsets and padding', () => {
    for (const zone of ['', 'Mars/Olympus_Mons', 'Europe/Berlinn', '+05:00', '-03:00', ' UTC', 'UTC ', 'Z']) {
      expect(isValidTimeZone(zone), JSON.stringify(zone)).toBe(false);
    }
  });

  it('canonicalTimeZone gives the spelling to store', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('Nowhere/Special')).toBeNull();
  });
});

describe('isValidLocalDate', () => {
  it('accepts real calendar dates', () => {
    for (const date of ['2026-01-01', '2026-12-31', '2028-02-29', '2000-02-29', '2026-04-30']) {
      expect(isValidLocalDate(date), date).toBe(true);
    }
  });

  it('refuses impossible dates and other shapes', () => {
    const invalid = ['2026-02-30', '2026-02-29', '2100-02-29', '2026-04-31', '2026-13-01', '2026-00-10',
      '2026-01-00', '2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '2026/01/01', '', 'today'];
    for (const date of invalid) expect(isValidLocalDate(date), date).toBe(false);
  });
});

describe('episodeCode', () => {
  it('pads to two digits at least and keeps longer numbers whole', () => {
    expect(episodeCode(1, 2)).toBe('S01E02');
    expect(episodeCode(0, 1)).toBe('S00E01');
    expect(episodeCode(12, 34)).toBe('S12E34');
    expect(episodeCode(1, 100)).toBe('S01E100');
    expect(episodeCode(100, 5)).toBe('S100E05');
    expect(episodeCode(2024, 1001)).toBe('S2024E1001');
  });
});
