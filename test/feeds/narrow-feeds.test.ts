import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/time/dates.ts';
import { setFollow, setWatched } from '../../src/library/library.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeGame, makeMovie, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';

const { app } = await useTestApp();

/** Two followed shows with aired, today's and coming episodes, a special today, a movie and a game. */
async function populatedAccount(timezone = 'UTC') {
  const account = await makeAccount({ timezone });
  const today = localDate(timezone, new Date());
  for (const title of ['Alpha Hour', 'Beta Nights']) {
    const show = await makeShow({
      title,
      episodes: [
        { number: 1, airDate: addDays(today, -8) },
        { number: 2, airDate: addDays(today, -1) },
        { number: 3, airDate: today },
        { number: 4, airDate: addDays(today, 6) },
        { number: 5, airDate: addDays(today, 7) },
        { season: 0, number: 1, airDate: today },
      ],
    });
    await setFollow({ accountId: account.id, kind: 'show', id: show.id, followed: true });
    await setWatched({ accountId: account.id, kind: 'episode', id: show.episodes[1]!.id, watched: true });
  }
  const movie = await makeMovie({ releaseDate: addDays(today, 1) });
  const game = await makeGame({ releaseDate: today });
  await setFollow({ accountId: account.id, kind: 'movie', id: movie.id, followed: true });
  await setFollow({ accountId: account.id, kind: 'game', id: game.id, followed: true });
  return account;
}

const get = async (path: string, token: string) => {
  const response = await call(app, 'GET', path, { token });
  expect(response.status).toBe(200);
  return response.json;
};

describe('narrower feeds', () => {
  it.each(['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'])('agree with the summary for the same account (%s)', async (timezone) => {
    const account = await populatedAccount(timezone);
    const summary = await get('/api/machine/summary', account.token);
    expect(summary.releasing.length).toBeGreaterThan(0);

    const releases = await get('/api/machine/releases', account.token);
    expect(releases).toEqual({ items: summary.releasing });

    const airing = await get('/api/machine/airing', account.token);
    expect(Object.keys(airing)).toEqual(['counts', 'next', 'today', 'week']);
    expect(airing).toEqual({
      counts: { today: summary.counts.airingToday, week: summary.counts.airingWeek },
      next: summary.next,
      today: summary.today,
      week: summary.week,
    });

    const widget = await get('/api/machine/widget', account.token);
    expect(Object.keys(widget)).toEqual(['generatedAt', 'watchlist', 'week']);
    expect(widget.generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(widget.watchlist).toEqual(summary.upNext);
    expect(widget.week).toEqual(summary.week);
  });

  it('follow the summary auth rules: ?token= works, no token is 401, POST is 405', async () => {
    const account = await makeAccount();
    for (const path of ['/api/machine/releases', '/api/machine/airing', '/api/machine/widget']) {
      expect((await call(app, 'GET', path, { queryToken: account.token })).status).toBe(200);
      const anonymous = await call(app, 'GET', path);
      expect(anonymous.status).toBe(401);
      expect(Object.keys(anonymous.json)).toEqual(['error']);
      expect((await call(app, 'POST', path, { token: account.token, body: {} })).status).toBe(405);
    }
  });

  it('give a new account empty feeds', async () => {
    const account = await makeAccount();
    expect(await get('/api/machine/releases', account.token)).toEqual({ items: [] });
    expect(await get('/api/machine/airing', account.token)).toEqual({ counts: { today: 0, week: 0 }, next: null, today: [], week: [] });
    expect(await get('/api/machine/widget', account.token)).toMatchObject({ watchlist: [], week: [] });
  });
});
