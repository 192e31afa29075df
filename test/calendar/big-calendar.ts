import type { IcsEvent } from '../../src/calendar/calendar-ics.ts';

/**
 * A fixed 6 000-event calendar shaped like a 500-show account's (the size): episodes of
 * 500 shows over a year and a month with `·` in every summary and a comma in every description,
 * movies and games, long titles that fold, CJK and emoji, and text that needs escaping. The same
 * events every time (no clock, no randomness), so its rendering can be pinned byte for byte.
 */
export function bigCalendar(): { name: string; events: IcsEvent[] } {
  const kinds = ['episode', 'episode', 'episode', 'episode', 'movie', 'game'] as const;
  const titles = ['Bench Show', 'Law, Order; and \\ Co', '日本語のタイトル', 'Émission spéciale 😀', 'A title long enough that its summary line has to be folded at least once, maybe twice'];
  const events = Array.from({ length: 6_000 }, (_, index): IcsEvent => {
    const kind = kinds[index % kinds.length]!;
    const show = `${titles[index % titles.length]} ${index % 500}`;
    const day = new Date(Date.UTC(2026, 9, 1) + (index % 396) * 86_400_000).toISOString().slice(0, 10);
    const season = 1 + (index % 4);
    const number = 1 + (index % 24);
    return {
      uid: `${(index * 2_654_435_761 % 4_294_967_296).toString(16).padStart(32, '0')}@airdate`,
      kind,
      date: day,
      updatedAt: new Date(Date.UTC(2026, 8, 1) + index * 61_001).toISOString(),
      summary: kind === 'episode' ? `${show} S${String(season).padStart(2, '0')}E${String(number).padStart(2, '0')} · Episode ${number}` : show,
      description: kind === 'episode' ? `Season ${season}, episode ${number} of ${show}` : kind === 'movie' ? 'Movie release' : 'Game release',
    };
  });
  return { name: 'Airdate — bench', events };
}
