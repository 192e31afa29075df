import { describe, expect, it } from 'vitest';
import { accountVersionAssignments, accountVersionBumps, staleAccountVersions } from '../../src/db/stale-versions.ts';

describe('what a write makes stale (src/db/stale-versions.ts)', () => {
  it.each([
    [{ watches: true }, { feed: true, calendar: false }],
    [{ library: true }, { feed: true, calendar: true }],
    [{ settings: true }, { feed: true, calendar: true }],
    [{ catalog: true }, { feed: true, calendar: true }],
    [{ watches: true, library: true }, { feed: true, calendar: true }],
    [{}, { feed: false, calendar: false }],
  ])('%o makes %o stale', (write, stale) => {
    expect(staleAccountVersions(write)).toEqual(stale);
  });

  it('gives the same rule as Prisma data and as SQL assignments', () => {
    expect(accountVersionBumps({ watches: true })).toEqual({ feedVersion: { increment: 1 } });
    expect(accountVersionBumps({ library: true })).toEqual({ feedVersion: { increment: 1 }, calendarVersion: { increment: 1 } });
    expect(accountVersionBumps({})).toEqual({});
    expect(accountVersionAssignments({ watches: true })).toBe('"feedVersion" = "feedVersion" + 1');
    expect(accountVersionAssignments({ settings: true })).toBe('"feedVersion" = "feedVersion" + 1, "calendarVersion" = "calendarVersion" + 1');
    expect(() => accountVersionAssignments({})).toThrow(/nothing stale/);
  });
});
