import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdown, fitBytes, fitChars, fitEscaped } from '../../src/notifications/channels/render.ts';
import { clean, maxListedEntries, writeNotification } from '../../src/notifications/notification-text.ts';
import type { NotificationEvent } from '../../src/notifications/notification-text.ts';

/** The words of every event, in one place, as a lock screen shows them; no network, no database. */

const context = { publicOrigin: 'https://airdate.example.com/' };
const severance = { id: 56, title: 'Severance', poster: 'https://image.tmdb.org/t/p/w500/sev.jpg' };
const write = (event: NotificationEvent) => writeNotification(event, context);

describe('writeNotification', () => {
  it('says one released episode as the lock screen reads it', () => {
    expect(write({ type: 'episodes-released', show: severance, episodes: [{ season: 2, number: 3, title: 'Who Is Alive?' }] })).toEqual({
      event: 'episodes-released',
      title: "Severance S2E3 'Who Is Alive?' is out",
      body: 'Season 2, episode 3 of Severance is out.',
      link: 'https://airdate.example.com/shows/56',
      poster: 'https://image.tmdb.org/t/p/w500/sev.jpg',
      topic: 'show-56',
      urgency: 'normal',
    });
  });

  it('makes several episodes of one show one message', () => {
    const text = write({
      type: 'episodes-released',
      show: severance,
      episodes: [
        { season: 2, number: 1, title: 'Hello, Ms. Cobel' },
        { season: 2, number: 2, title: 'Goodbye, Mrs. Selvig' },
        { season: 2, number: 3, title: null },
      ],
    });
    expect(text.title).toBe('3 new episodes of Severance');
    expect(text.body).toBe("S2E1 'Hello, Ms. Cobel', S2E2 'Goodbye, Mrs. Selvig' and S2E3");
    expect(text.topic).toBe('show-56');
  });

  it('counts what it does not list by name', () => {
    const episodes = Array.from({ length: 40 }, (_, index) => ({ season: 1, number: index + 1, title: null }));
    const text = write({ type: 'episodes-released', show: severance, episodes });
    expect(text.title).toBe('40 new episodes of Severance');
    expect(text.body).toBe(`${episodes.slice(0, maxListedEntries).map((entry) => `S1E${entry.number}`).join(', ')} and 28 more`);
  });

  it.each<[NotificationEvent, string, string]>([
    [{ type: 'season-premiere', show: severance, episode: { season: 2, number: 1, title: 'Hello, Ms. Cobel' } }, 'Severance season 2 premieres', "S2E1 'Hello, Ms. Cobel' is out: season 2 has begun."],
    [{ type: 'series-premiere', show: severance, episode: { season: 1, number: 1, title: 'Good News About Hell' } }, 'Severance premieres', "The first episode, S1E1 'Good News About Hell', is out."],
    [{ type: 'season-finale', show: severance, episode: { season: 2, number: 10, title: 'Cold Harbor' } }, 'Severance season 2 finale is out', "S2E10 'Cold Harbor' ends season 2."],
    [{ type: 'film-released', film: { id: 7, title: 'Dune: Part Two', poster: null }, release: 'theatrical', date: '2024-03-01' }, 'Dune: Part Two is in cinemas', 'In cinemas from 1 March 2024.'],
    [{ type: 'film-released', film: { id: 7, title: 'Dune: Part Two', poster: null }, release: 'digital', date: '2024-04-16' }, 'Dune: Part Two is out to stream or buy', 'Digital release from 16 April 2024.'],
    [{ type: 'game-released', game: { id: 9, title: 'Hades II', poster: null }, date: '2025-09-25' }, 'Hades II is out', 'Released 25 September 2025.'],
    [{ type: 'release-date-moved', item: { kind: 'movie', ref: { id: 7, title: 'Dune: Part Three', poster: null } }, from: '2026-12-10', to: '2026-12-18' }, 'Dune: Part Three moved to 18 December 2026', 'It was due 10 December 2026.'],
    [{ type: 'release-date-moved', item: { kind: 'show', ref: { id: 56, title: 'Severance', poster: null }, season: 3 }, from: null, to: '2027-01-15' }, 'Severance season 3 is dated: 15 January 2027', 'It had no date before.'],
    [{ type: 'release-date-moved', item: { kind: 'game', ref: { id: 9, title: 'Hollow Knight: Silksong', poster: null } }, from: '2025-09-04', to: null }, 'Hollow Knight: Silksong has no release date any more', 'It was due 4 September 2025.'],
    [{ type: 'show-status-changed', show: severance, status: 'renewed', catalog: 'TMDB' }, 'Severance is renewed', 'As TMDB reports it, Severance will return.'],
    [{ type: 'show-status-changed', show: severance, status: 'ended', catalog: 'TheTVDB' }, 'Severance has ended', 'As TheTVDB reports it, Severance has ended.'],
    [{ type: 'show-status-changed', show: severance, status: 'cancelled', catalog: 'TMDB' }, 'Severance is cancelled', 'As TMDB reports it, Severance was cancelled.'],
    [{ type: 'channel-disabled', channelName: 'Phone (ntfy)', failures: 10, lastReason: 'ntfy answered HTTP 401 Unauthorized' }, 'Notifications to "Phone (ntfy)" are turned off', "It failed 10 times in a row (last: ntfy answered HTTP 401 Unauthorized). Mend it and turn it on again in Airdate's settings."],
    [{ type: 'test', channelName: 'Phone' }, 'Airdate test notification', 'If you can read this, "Phone" works.'],
  ])('writes %j', (event, title, body) => {
    const text = write(event);
    expect(text.title).toBe(title);
    expect(text.body).toBe(body);
    expect(text.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
  });

  it('lists the day in a daily digest and the week in a weekly one', () => {
    const digest = write({
      type: 'daily-digest',
      date: '2025-01-31',
      entries: [
        { kind: 'episode', show: severance, episode: { season: 2, number: 3, title: 'Who Is Alive?' }, date: '2025-01-31' },
        { kind: 'movie', title: { id: 7, title: 'Companion', poster: null }, date: '2025-01-31' },
      ],
    });
    expect(digest).toMatchObject({ title: 'Out today: 2 releases', body: "Severance S2E3 'Who Is Alive?'\nCompanion (film)", link: 'https://airdate.example.com/calendar', topic: 'digest-2025-01-31', urgency: 'low' });
    expect(write({ type: 'daily-digest', date: '2025-01-31', entries: [] }).title).toBe('Nothing of yours airs today');
    const weekly = write({
      type: 'weekly-premieres',
      weekOf: '2025-01-13',
      entries: [{ kind: 'episode', show: severance, episode: { season: 2, number: 1, title: 'Hello, Ms. Cobel' }, date: '2025-01-17' }],
    });
    expect(weekly).toMatchObject({ title: 'Premieres this week: 1', body: "Fri 17 Jan: Severance S2E1 'Hello, Ms. Cobel'", topic: 'premieres-2025-01-13' });
  });

  it('sums up what quiet hours held, in order, as one message', () => {
    const held = [
      write({ type: 'episodes-released', show: severance, episodes: [{ season: 2, number: 3, title: 'Who Is Alive?' }] }),
      write({ type: 'game-released', game: { id: 9, title: 'Hades II', poster: 'https://images.igdb.com/h.jpg' }, date: '2025-09-25' }),
    ];
    expect(write({ type: 'quiet-hours-summary', held })).toMatchObject({
      title: 'While you were away: 2 notifications',
      body: "Severance S2E3 'Who Is Alive?' is out\nHades II is out",
      poster: 'https://image.tmdb.org/t/p/w500/sev.jpg',
    });
  });

  it('never trusts catalog text: line breaks and control characters flattened, a huge title bounded', () => {
    const text = write({ type: 'episodes-released', show: { id: 1, title: 'Evil\n<script>alert(1)</script>\u0007 Show', poster: 'javascript:alert(1)' }, episodes: [{ season: 1, number: 1, title: 'x'.repeat(10_000) }] });
    expect(text.title.startsWith('Evil <script>alert(1)</script> Show S1E1')).toBe(true);
    expect(text.title).not.toMatch(/[\n\u0007]/);
    expect(text.title.length).toBeLessThan(450);
    // Markup stays text here; each channel escapes it for its format.
    expect(text.poster).toBeNull();
    expect(clean('  a \u2028 b\t\tc  ')).toBe('a b c');
  });
});

describe('bounds and escapes per channel', () => {
  it('cuts on whole characters, never inside an emoji or an accent', () => {
    const family = '👨‍👩‍👧‍👦';
    expect(fitChars(`ab${family}${family}`, 14)).toBe(`ab${family}…`);
    expect(fitChars('e\u0301e\u0301e\u0301', 4)).toBe('e\u0301…');
    expect(Buffer.byteLength(fitBytes('東京'.repeat(100), 100))).toBeLessThanOrEqual(100);
    expect(fitChars('short', 10)).toBe('short');
  });

  it('escapes HTML and Markdown so catalog text shows as written', () => {
    expect(escapeHtml('Tom & Jerry <b>"x"</b>')).toBe('Tom &amp; Jerry &lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(escapeMarkdown('*a* _b_ [c](d) `e` # f')).toBe('\\*a\\* \\_b\\_ \\[c\\]\\(d\\) \\`e\\` \\# f');
  });

  it('bounds escaped text without cutting an escape in two', () => {
    const fitted = fitEscaped('&'.repeat(100), 23, escapeHtml);
    expect(fitted).toBe(`${'&amp;'.repeat(4)}…`);
    expect(fitted.length).toBeLessThanOrEqual(23);
  });
});
