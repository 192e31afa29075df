import { describe, expect, it } from 'vitest';
import { makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { parseBoth } from '../calendar/parse-ics.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// The calendar page against calendar.ics: for a fixed catalog, the month, the next month and the
// week show exactly the events the subscription has for the same days, in the account's zone
// (UTC+14, where the local date is a day ahead of UTC's most of the day); at phone width the
// same events are a day-by-day list; a change made over REST shows up in the open tab.
const browser = await launchChromium();
const airdate = await startAirdate();
const zone = 'Pacific/Kiritimati';

const dayShift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

describe('the calendar page', () => {
  it('lists the same events as calendar.ics for the days it shows, by month and week, on a desktop and a phone', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await completeSetup(page, airdate.setupUrl, 'carol', 'a long enough password');
    await page.goto(`${airdate.baseUrl}/settings/developer`);
    const token = await page.getByRole('textbox', { name: 'API token' }).inputValue();
    const api = (path: string, body?: unknown) =>
      fetch(`${airdate.baseUrl}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    const zoneSet = await api('/graphql', { query: `mutation { updateSettings(input: { timezone: "${zone}" }) { __typename } }` });
    expect(await zoneSet.json()).toEqual({ data: { updateSettings: { __typename: 'MutationUpdateSettingsSuccess' } } });

    const today = todayIn(zone);
    const show = await makeShow({
      title: 'Lighthouse Keepers',
      episodes: [-45, -1, 0, 0, 5, 20, 40].map((offset, index) => ({ number: index + 1, title: `Part ${index + 1}`, airDate: dayShift(today, offset) })),
    });
    const movie = await makeMovie({ title: 'Harbour Lights', releaseDate: dayShift(today, 2) });
    const game = await makeGame({ title: 'Tide Table', releaseDate: dayShift(today, 33) });
    const unfollowed = await makeMovie({ title: 'Not Followed', releaseDate: today });
    for (const [kind, id] of [['show', show.id], ['movie', movie.id], ['game', game.id]] as const) {
      expect((await api('/api/machine/follow', { kind, id, followed: true })).status).toBe(200);
    }
    const ics = parseBoth(await (await api('/api/calendar.ics?past=120&future=120')).text());
    expect(ics.events.map((event) => event.summary)).not.toContain(unfollowed.title);

    /** The events the grid shows, and the subscription's for the grid's days, as "date summary". */
    const compare = async () => {
      const days = await page.locator('.calendar-grid td[data-day]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-day')!));
      const shown = await page.locator('.calendar-grid li.event').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-date')} ${item.textContent!.replace(/^(Episode|Movie|Game): /, '')}`));
      const expected = ics.events.filter((event) => event.start >= days[0]! && event.start <= days.at(-1)!).map((event) => `${event.start} ${event.summary}`);
      expect(shown.sort()).toEqual(expected.sort());
      return { days, shown };
    };

    await page.getByRole('navigation', { name: 'Library' }).getByRole('link', { name: 'Calendar' }).click();
    await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();
    await page.locator('.calendar-grid').waitFor();
    const thisMonth = await compare();
    expect(thisMonth.days).toContain(today);
    expect(thisMonth.shown).toContain(`${today} Lighthouse Keepers S01E03 · Part 3`);
    expect(await page.locator(`td[data-day="${today}"]`).getAttribute('aria-current')).toBe('date');

    // The keyboard: n for the next month, p back, t for today; the heading says where it is.
    await page.keyboard.press('n');
    await expect.poll(() => new URL(page.url()).searchParams.get('date')?.slice(0, 7)).toBe(dayShift(`${today.slice(0, 8)}01`, 32).slice(0, 7));
    await page.locator(`.calendar-grid td[data-day="${dayShift(`${today.slice(0, 8)}01`, 32).slice(0, 8)}15"]`).waitFor();
    const nextMonth = await compare();
    expect(nextMonth.shown.length).toBeGreaterThan(0);
    await page.keyboard.press('p');
    await page.keyboard.press('t');
    await page.locator(`.calendar-grid td[data-day="${today}"]`).waitFor();

    // The week view: seven days, Monday first, with today's two episodes.
    await page.getByRole('button', { name: 'Week' }).click();
    await expect.poll(() => page.locator('.calendar-grid td[data-day]').count()).toBe(7);
    const week = await compare();
    expect(new Date(`${week.days[0]}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(week.shown.filter((text) => text.startsWith(today))).toHaveLength(2);
    await page.getByRole('button', { name: 'Next week' }).click();
    await expect.poll(async () => (await page.locator('.calendar-grid td[data-day]').first().getAttribute('data-day'))).toBe(dayShift(week.days[0]!, 7));
    await compare();

    // A phone: the grid gives way to a list of the month's days that have events.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${airdate.baseUrl}/calendar?view=month&date=${today}`);
    await page.getByRole('list', { name: /day by day/ }).waitFor();
    expect(await page.locator('.calendar-grid').isVisible()).toBe(false);
    const agenda = await page.getByRole('list', { name: /day by day/ }).locator('li.event').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-date')} ${item.textContent!.replace(/^(Episode|Movie|Game): /, '')}`));
    expect(agenda.sort()).toEqual(thisMonth.shown.filter((text) => text.startsWith(today.slice(0, 7))).sort());
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Live: a movie followed over REST (as Home Assistant or a script would) appears in the open
    // tab without a reload, through the tab's one libraryChanged stream.
    const late = await makeMovie({ title: 'Arrives Live', releaseDate: today });
    await page.evaluate(() => ((window as unknown as { marker: boolean }).marker = true));
    expect((await api('/api/machine/follow', { kind: 'movie', id: late.id, followed: true })).status).toBe(200);
    await page.getByRole('list', { name: /day by day/ }).getByText('Arrives Live').waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: boolean }).marker)).toBe(true);

    // A date that is not one, and a month with nothing: today's month, and a message.
    await page.goto(`${airdate.baseUrl}/calendar?view=month&date=2026-02-31`);
    await page.getByRole('heading', { level: 2, name: new RegExp(new Date(`${today}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', month: 'long' })) }).waitFor();
    await page.goto(`${airdate.baseUrl}/calendar?view=week&date=${dayShift(today, -700)}`);
    await page.getByText('Nothing releases this week.', { exact: false }).waitFor();
    await context.close();
  });
});
