import { describe, expect, it } from 'vitest';
import { catalogLengths, historyTimeRange } from '../../src/limits.ts';
import { exceedsLength, isCatalogDate, isHistoryTime, isIntColumnCount, isIntColumnId, isPosterUrl, quoted, shortenText } from '../../src/value-bounds.ts';

/** Code points, the way src/limits.ts counts (and SQL's length() does). */
const codePoints = (text: string) => [...text].length;

describe('exceedsLength counts characters (code points), not UTF-16 units', () => {
  it('is exact at the limit for ASCII, accented letters, CJK and emoji', () => {
    for (const unit of ['a', 'é', '語', '🎬']) {
      expect(exceedsLength(unit.repeat(10), 10), unit).toBe(false);
      expect(exceedsLength(unit.repeat(11), 10), unit).toBe(true);
    }
    // 10 emoji are 20 UTF-16 units: still 10 characters.
    expect('🎬'.repeat(10).length).toBe(20);
    expect(exceedsLength(`${'🎬'.repeat(9)}a`, 10)).toBe(false);
  });

  it('counts a lone surrogate as one character and answers for a megabyte string at once', () => {
    expect(exceedsLength('\ud800'.repeat(10), 10)).toBe(false);
    expect(exceedsLength('\ud800'.repeat(11), 10)).toBe(true);
    const megabyte = 'x'.repeat(1_000_000);
    const emoji = '🎬'.repeat(600);
    // The quickest of five tries, so that a collection or a busy machine does not count.
    const tries = Array.from({ length: 5 }, () => {
      const started = performance.now();
      expect(exceedsLength(megabyte, 500)).toBe(true);
      expect(exceedsLength(emoji, 1_000)).toBe(false);
      return performance.now() - started;
    });
    expect(Math.min(...tries)).toBeLessThan(50);
  });
});

describe('shortenText', () => {
  it('keeps text at the limit and cuts longer text to exactly the limit, ending in …', () => {
    expect(shortenText('abcde', 5)).toBe('abcde');
    expect(shortenText('abcdef', 5)).toBe('abcd…');
    const long = 'x'.repeat(catalogLengths.title * 3);
    const short = shortenText(long, catalogLengths.title);
    expect(codePoints(short)).toBe(catalogLengths.title);
    expect(short.endsWith('…')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const emoji = '🎬'.repeat(20);
    const short = shortenText(emoji, 10);
    expect(short).toBe(`${'🎬'.repeat(9)}…`);
    expect(/\p{Cs}/u.test(short)).toBe(false); // no lone surrogate
    // Mixed: the cut falls after the pair, not inside it.
    expect(shortenText('ab🎬cd', 4)).toBe('ab🎬…');
  });

  it('quotes at most 60 characters by default', () => {
    expect(quoted('short')).toBe('"short"');
    expect(codePoints(quoted('y'.repeat(10_000)))).toBe(62);
  });
});

describe('numbers, dates, posters, history times', () => {
  it('ids are 1…2147483647 and counts 0…2147483647, whole numbers only', () => {
    expect([0, 1, 2147483647, 2147483648, 1.5, -1, Number.NaN].map(isIntColumnId)).toEqual([false, true, true, false, false, false, false]);
    expect([0, 1, 2147483647, 2147483648, 0.5, -1].map(isIntColumnCount)).toEqual([true, true, true, false, false, false]);
  });

  it('dates are real calendar dates from 1800-01-01 to 2199-12-31', () => {
    const dates = ['1800-01-01', '1799-12-31', '2199-12-31', '2200-01-01', '2024-02-29', '2023-02-29', '2024-2-01', '0001-01-01'];
    expect(dates.map(isCatalogDate)).toEqual([true, false, true, false, true, false, false, false]);
  });

  it('posters are http(s) URLs of at most 1 024 characters', () => {
    const base = 'https://img.example/';
    expect(isPosterUrl(base + 'p'.repeat(catalogLengths.posterUrl - base.length))).toBe(true);
    expect(isPosterUrl(base + 'p'.repeat(catalogLengths.posterUrl - base.length + 1))).toBe(false);
    expect(['http://x.example/a.jpg', 'javascript:alert(1)', 'data:image/png;base64,AAAA', '/relative.jpg', 'ftp://x.example/a.jpg'].map(isPosterUrl)).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('history times are from 1900 to a day past now', () => {
    const now = Date.parse('2026-11-21T08:00:00.000Z');
    const at = (iso: string) => isHistoryTime(new Date(iso), now);
    expect(at(historyTimeRange.earliest)).toBe(true);
    expect(at('1899-12-31T23:59:59.999Z')).toBe(false);
    expect(at('2026-11-22T08:00:00.000Z')).toBe(true);
    expect(at('2026-11-22T08:00:00.001Z')).toBe(false);
    expect(isHistoryTime(new Date(Number.NaN), now)).toBe(false);
  });
});
