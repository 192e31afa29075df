import { describe, expect, it } from 'vitest';
import { seedLibrary } from '../../bench/seed-library.ts';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { homeAssistantSummary, listLimits } from '../../src/limits.ts';
import { updateAccount } from '../../src/accounts/accounts.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeShow } from '../support/factories.ts';
import { attributeBytes, buildSensors, characters, sensorProblems } from '../support/home-assistant.ts';
import { call, graphql } from '../support/http.ts';

const { app } = await useTestApp();
const today = localDate('UTC', new Date());

/**
 * Titles of the kind a real library holds (lengths 4–41, mean ~16; some accents, one in Japanese).
 * seedLibrary's own titles carry a 17-character uniqueness suffix no real title has.
 */
const realTitles = [
  'Severance', 'The Bear', 'Slow Horses', 'Shōgun', 'Only Murders in the Building', 'The Last of Us', 'Andor',
  'Succession', 'Abbott Elementary', 'What We Do in the Shadows', 'Reservation Dogs', 'The Rings of Power', 'Squid Game',
  'Dark', 'Money Heist', 'Babylon Berlin', 'Borgen', 'The Great British Bake Off', 'Taskmaster', 'Doctor Who', '進撃の巨人',
  'Lupin', 'Call My Agent!', 'Derry Girls', 'Fleabag', 'The Crown', 'Ted Lasso', 'Bluey', 'The Boys', 'Invincible',
  'Arcane', 'Blue Eye Samurai', "Frieren: Beyond Journey's End", 'Pokémon Horizons', 'Dr. Stone', 'One Piece',
  'The Mandalorian', 'House of the Dragon', 'Yellowjackets', 'Fargo', 'True Detective', 'Mr. & Mrs. Smith',
  'Percy Jackson and the Olympians', 'The Curse', 'Beef', 'Blue Lights', 'Happy Valley', 'Vigil', 'Bad Sisters',
  'Élite', 'Gomorrah', 'Tokyo Vice', 'Pachinko', 'Physical: 100', 'Jujutsu Kaisen', 'The Legend of Vox Machina',
  "Star Trek: Strange New Worlds", 'Interview with the Vampire', 'Murderbot', 'The Studio', 'Hacks', 'Poker Face',
];

/** 300 characters, accents and an emoji among them; it starts with "A" so it sorts first on its day. */
const longTitle = [...`A ${'Chronicle of the Lantern Keepers and the Ödön Sea 🎬 '.repeat(6)}`].slice(0, 300).join('');

/**
 * One account following 500 shows (50 weekly episodes each, part watched: ~500 up next, ~72
 * airing today, ~500 this week, ~144 releasing today or tomorrow), 100 movies and 100 games (2 of
 * each releasing), and the show with the 300-character title: watched last, so it is up next, and
 * airing today with a 300-character episode title.
 */
async function seedHomeAssistantLibrary() {
  const account = await makeAccount();
  await seedLibrary(account.id, today, { shows: 500, episodesPerShow: 50, movies: 100, games: 100 });
  const shows = await db().libraryItem.findMany({ where: { accountId: account.id, kind: 'show' }, select: { showId: true }, orderBy: { showId: 'asc' } });
  await db().$transaction(
    shows.map(({ showId }, index) => db().show.update({ where: { id: showId! }, data: { title: realTitles[index % realTitles.length]! } })),
  );
  const long = await makeShow({
    title: longTitle,
    episodes: [
      { number: 1, airDate: addDays(today, -7) },
      { number: 2, airDate: today, title: `The ${'very '.repeat(60)}long episode`.slice(0, 300) },
    ],
  });
  await setFollow({ accountId: account.id, kind: 'show', id: long.id, followed: true });
  await setWatched({ accountId: account.id, kind: 'episode', id: long.episodes[0]!.id, watched: true });
  return { ...account, longShow: long };
}

const library = await seedHomeAssistantLibrary();

/** The summary as the integration fetches it: the bare URL, the token in the header. */
const fetchSummary = async (search = '') => {
  const response = await call(app, 'GET', `/api/machine/summary${search}`, { token: library.token });
  expect(response.status, response.text).toBe(200);
  return response.json;
};

const setProfile = (summaryProfile: string) => updateAccount({ name: library.name, summaryProfile });

describe('GET /api/machine/summary at 500 followed shows, as the Home Assistant integration reads it', () => {
  it('the library is the size the issue speaks of', async () => {
    await setProfile('full');
    const full = await fetchSummary();
    expect(full.upNext.length).toBeGreaterThan(450);
    expect(full.today.length).toBeGreaterThan(60);
    expect(full.week.length).toBeGreaterThan(450);
    expect(full.releasing.length).toBeGreaterThanOrEqual(145);
    expect(full.releasing.length).toBeLessThanOrEqual(160);
    expect(full.next.show).toBe(longTitle);
    expect(full.today[0].show).toBe(longTitle);
  });

  it('with the full profile, the same library breaks both limits (what the issue reports)', async () => {
    await setProfile('full');
    const problems = sensorProblems(buildSensors(await fetchSummary()));
    expect(problems).toContainEqual('up_next: state of 300 characters');
    for (const sensor of ['up_next', 'airing_today', 'airing_week', 'releasing_soon']) {
      expect(problems.some((problem) => problem.startsWith(`${sensor}: attributes of`)), sensor).toBe(true);
    }
  });

  it('with the home-assistant profile, every sensor fits: attributes within 16 384 bytes, states within 255 characters', async () => {
    await setProfile('full');
    const full = await fetchSummary();
    await setProfile('home-assistant');
    const lean = await fetchSummary();
    const sensors = buildSensors(lean);
    expect(sensorProblems(sensors)).toEqual([]);

    // Counts stay the whole totals (they are the counting sensors' states); releasing is whole.
    expect(lean.counts).toEqual(full.counts);
    expect(lean.releasing.map((item: any) => [item.kind, item.id])).toEqual(full.releasing.map((item: any) => [item.kind, item.id]));
    expect(sensors.find((sensor) => sensor.name === 'releasing_soon')!.state).toBe(String(full.releasing.length));
    for (const list of ['upNext', 'today', 'week'] as const) {
      expect(lean[list].map((item: any) => item.id)).toEqual(full[list].slice(0, homeAssistantSummary.listItems).map((item: any) => item.id));
    }

    // The long title is shortened, counted so that even Python's escaped JSON of it fits.
    const upNextState = sensors[0]!.state;
    expect(upNextState.endsWith('…')).toBe(true);
    expect(longTitle.startsWith(upNextState.slice(0, -1))).toBe(true);
    expect(characters(upNextState)).toBeLessThanOrEqual(255);
    expect(lean.today[0]).toEqual({
      id: library.longShow.episodes[1]!.id, show_id: library.longShow.id, show: upNextState, episode: 'S01E02',
      episode_title: expect.stringMatching(/^The very .*…$/), air_date: today,
    });
    expect(lean.next).toEqual(lean.upNext[0]);
    expect(lean.releasing.find((item: any) => item.id === library.longShow.episodes[1]!.id)).toEqual({
      kind: 'episode', id: library.longShow.episodes[1]!.id, title: expect.stringMatching(/^A Chronicle .*… S01E02$/), air_date: today,
    });

    // What the README states: bytes per releasing item and how far the list is from the limit.
    const releasingBytes = attributeBytes({ releasing: lean.releasing });
    const perItem = (releasingBytes - 17) / lean.releasing.length;
    expect(perItem).toBeLessThan(100);
    console.info(
      `home-assistant profile at 500 shows: releasing ${lean.releasing.length} items, ${releasingBytes} bytes (${perItem.toFixed(1)} per item); ` +
        `up_next ${attributeBytes({ up_next: lean.upNext })}, today ${attributeBytes({ today: lean.today })}, week ${attributeBytes({ week: lean.week })} bytes; ` +
        `full profile: up_next ${attributeBytes({ up_next: full.upNext })}, releasing ${attributeBytes({ releasing: full.releasing })} bytes`,
    );
  });

  it('full is the default and answers the same bytes before and after a round trip through home-assistant', async () => {
    const fresh = await makeAccount();
    const show = await makeShow({ title: 'Severance', poster: 'https://images.example/s.jpg', episodes: [{ number: 1, airDate: today }] });
    await setFollow({ accountId: fresh.id, kind: 'show', id: show.id, followed: true });
    const body = async () => (await call(app, 'GET', '/api/machine/summary', { token: fresh.token })).text.replace(/"generatedAt":"[^"]+"/, '');
    const before = await body();
    expect(JSON.parse(`{${before.slice(2)}`).next).toEqual({
      kind: 'episode', id: show.episodes[0]!.id, title: 'Severance', show: 'Severance', show_id: show.id, episode: 'S01E01',
      season: 1, number: 1, episode_title: 'Episode 1', air_date: today, poster: 'https://images.example/s.jpg',
    });
    await updateAccount({ name: fresh.name, summaryProfile: 'home-assistant' });
    expect(await body()).not.toBe(before);
    await updateAccount({ name: fresh.name, summaryProfile: 'full' });
    expect(await body()).toBe(before);
  });
});

describe('?limit=N on the summary', () => {
  it('cuts upNext, today and week on either profile; counts and releasing stay whole', async () => {
    for (const profile of ['full', 'home-assistant']) {
      await setProfile(profile);
      const whole = await fetchSummary();
      for (const limit of [0, 1, 3, 40, listLimits.feedItems.max]) {
        const cut = await fetchSummary(`?limit=${limit}`);
        expect(cut.counts).toEqual(whole.counts);
        expect(cut.releasing).toEqual(whole.releasing);
        expect(cut.next).toEqual(whole.next);
        for (const list of ['upNext', 'today', 'week'] as const) {
          expect(cut[list], `${profile} ${limit} ${list}`).toEqual(whole[list].slice(0, limit));
        }
      }
    }
  });

  it('takes the token from ?token= too and ignores other parameters, as before', async () => {
    await setProfile('full');
    const response = await call(app, 'GET', '/api/machine/summary?limit=2&utm_source=widget', { queryToken: library.token });
    expect(response.status).toBe(200);
    expect(response.json.upNext).toHaveLength(2);
  });

  it('refuses a value that is not a whole number from 0 to 5000, or a repeated one, with 400 and the usual body', async () => {
    const refused = ['-1', '1.5', '2.0', 'abc', '', ' 7', '7 ', '1e3', '0x10', '+5', '5001', '99999999999', '1'.repeat(10_000), '%00', '５'];
    for (const value of refused) {
      const response = await call(app, 'GET', `/api/machine/summary?limit=${encodeURIComponent(value)}`, { token: library.token });
      expect(response.status, value).toBe(400);
      expect(response.json).toEqual({ error: 'limit must be a whole number from 0 to 5000' });
    }
    const twice = await call(app, 'GET', '/api/machine/summary?limit=1&limit=1', { token: library.token });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({ error: 'limit may be given once; limit must be a whole number from 0 to 5000' });
    // The token is checked first, as on every route.
    expect((await call(app, 'GET', '/api/machine/summary?limit=-1')).status).toBe(401);
  });
});

describe('the profile in GraphQL', () => {
  const mutation = `mutation($input: UpdateSettingsInput!) { updateSettings(input: $input) {
    __typename ... on MutationUpdateSettingsSuccess { data { summaryProfile } } ... on Error { code message } } }`;

  it('updateSettings sets it, the viewer shows it, and the next summary has the new shape at once', async () => {
    const account = await makeAccount();
    const show = await makeShow({ episodes: [{ number: 1, airDate: today }] });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    expect((await graphql(app, account.token, '{ viewer { summaryProfile } }')).json.data.viewer).toEqual({ summaryProfile: 'FULL' });
    const summary = async () => (await call(app, 'GET', '/api/machine/summary', { token: account.token })).json;
    // Cached under the feed version; the change must not be answered from that cache.
    expect(Object.keys((await summary()).next)).toContain('poster');

    const set = await graphql(app, account.token, mutation, { input: { summaryProfile: 'HOME_ASSISTANT' } });
    expect(set.json.data.updateSettings).toEqual({ __typename: 'MutationUpdateSettingsSuccess', data: { summaryProfile: 'HOME_ASSISTANT' } });
    expect((await graphql(app, account.token, '{ viewer { summaryProfile } }')).json.data.viewer).toEqual({ summaryProfile: 'HOME_ASSISTANT' });
    expect(Object.keys((await summary()).next)).toEqual(['id', 'show_id', 'show', 'episode', 'episode_title', 'air_date']);

    const wrong = await graphql(app, account.token, mutation, { input: { summaryProfile: 'home-assistant' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.errors[0].message).toMatch(/SummaryProfile/);
    expect((await db().account.findUniqueOrThrow({ where: { id: account.id } })).summaryProfile).toBe('home-assistant');

    await graphql(app, account.token, mutation, { input: { summaryProfile: 'FULL' } });
    expect(Object.keys((await summary()).next)).toContain('poster');
  });
});
