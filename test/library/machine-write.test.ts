import { describe, expect, it } from 'vitest';
import { db } from '../../src/db/client.ts';
import { addDays, localDate } from '../../src/time/dates.ts';
import { useTestApp } from '../support/database.ts';
import { makeAccount, makeMovie, makeShow } from '../support/factories.ts';
import { call } from '../support/http.ts';

const { app } = await useTestApp({ AIRDATE_MAX_JSON_KB: '1' });

const today = () => localDate('UTC', new Date());

async function fixture() {
  const account = await makeAccount();
  const show = await makeShow({ episodes: [{ number: 1, airDate: addDays(today(), -3) }, { number: 2, airDate: addDays(today(), -2) }] });
  const movie = await makeMovie({ releaseDate: today() });
  return { account, show, movie, episode: show.episodes[0]! };
}

const summaryOf = async (token: string) => (await call(app, 'GET', '/api/machine/summary', { token })).json;
const history = (accountId: number) => db().watchEvent.findMany({ where: { accountId }, orderBy: { id: 'asc' } });

describe('POST /api/machine/watched', () => {
  it('four identical first writes at once all succeed and change the state once (watched and follow)', async () => {
    const account = await makeAccount();
    const movie = await makeMovie();
    const send = (path: string, body: unknown) => Promise.all([1, 2, 3, 4].map(() => call(app, 'POST', path, { token: account.token, body })));
    const watched = await send('/api/machine/watched', { kind: 'movie', id: movie.id, watched: true });
    const followed = await send('/api/machine/follow', { kind: 'movie', id: movie.id, followed: true });
    expect([...watched, ...followed].map((response) => response.status)).toEqual(Array(8).fill(200));
    expect(await history(account.id)).toHaveLength(1);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('marks watched and unwatched, idempotently, with one history entry per real change', async () => {
    const { account, episode } = await fixture();
    const body = { kind: 'episode', id: episode.id, watched: true };
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await call(app, 'POST', '/api/machine/watched', { token: account.token, body });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ ok: true });
    }
    expect((await history(account.id)).map((entry) => [entry.kind, entry.episodeId, entry.watched])).toEqual([['episode', episode.id, true]]);
    await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { ...body, watched: false } });
    expect((await history(account.id)).map((entry) => entry.watched)).toEqual([true, false]);
  });

  it('does not follow the show when an episode is watched', async () => {
    const { account, episode } = await fixture();
    await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: episode.id, watched: true } });
    expect((await summaryOf(account.token)).counts.upNext).toBe(0);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('accepts ?token= as well as the header', async () => {
    const { account, movie } = await fixture();
    const response = await call(app, 'POST', '/api/machine/watched', { queryToken: account.token, body: { kind: 'movie', id: movie.id, watched: true } });
    expect(response.json).toEqual({ ok: true });
  });

  it('404 for an unknown id of the kind', async () => {
    const { account, movie } = await fixture();
    const response = await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'game', id: movie.id + 1_000_000, watched: true } });
    expect(response.status).toBe(404);
    expect(Object.keys(response.json)).toEqual(['error']);
  });

  const badBodies: [string, unknown][] = [
    ['an array', [{ kind: 'episode', id: 1, watched: true }]],
    ['a string', 'episode'],
    ['null', null],
    ['no kind', { id: 1, watched: true }],
    ['an unknown kind', { kind: 'podcast', id: 1, watched: true }],
    ['kind show (not watchable)', { kind: 'show', id: 1, watched: true }],
    ['a string id', { kind: 'episode', id: '1', watched: true }],
    ['a negative id', { kind: 'episode', id: -4, watched: true }],
    ['id zero', { kind: 'episode', id: 0, watched: true }],
    ['a fractional id', { kind: 'episode', id: 1.5, watched: true }],
    ['a huge id', { kind: 'episode', id: 2 ** 53, watched: true }],
    ['no watched', { kind: 'episode', id: 1 }],
    ['watched as a string', { kind: 'episode', id: 1, watched: 'true' }],
    ['watched as 1', { kind: 'episode', id: 1, watched: 1 }],
  ];
  it.each(badBodies)('400 for %s, and nothing is written', async (_name, body) => {
    const { account } = await fixture();
    const response = await call(app, 'POST', '/api/machine/watched', { token: account.token, body });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json)).toEqual(['error']);
    expect(await history(account.id)).toEqual([]);
  });

  it('400 for malformed JSON, 415 for a non-JSON content type, 413 for an oversized body', async () => {
    const { account, episode } = await fixture();
    const malformed = await call(app, 'POST', '/api/machine/watched', { token: account.token, rawBody: '{"kind":"episode",', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    const wrongType = await call(app, 'POST', '/api/machine/watched', {
      token: account.token,
      rawBody: JSON.stringify({ kind: 'episode', id: episode.id, watched: true }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    const form = await call(app, 'POST', '/api/machine/watched', { token: account.token, rawBody: 'kind=episode', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    const oversized = await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: episode.id, watched: true, padding: 'x'.repeat(2048) } });
    expect(oversized.status).toBe(413);
    for (const response of [malformed, wrongType, form, oversized]) expect(Object.keys(response.json)).toEqual(['error']);
    expect(await history(account.id)).toEqual([]);
  });

  it('checks the token before reading the body', async () => {
    const response = await call(app, 'POST', '/api/machine/watched', { rawBody: 'not json', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(401);
  });
});

describe('POST /api/machine/follow', () => {
  it('follows a show into the feeds and unfollows it out, keeping its history', async () => {
    const { account, show, episode } = await fixture();
    expect((await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: true } })).json).toEqual({ ok: true });
    await call(app, 'POST', '/api/machine/watched', { token: account.token, body: { kind: 'episode', id: episode.id, watched: true } });
    expect((await summaryOf(account.token)).next.episode).toBe('S01E02');
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: false } });
    expect((await summaryOf(account.token)).counts).toEqual({ upNext: 0, airingToday: 0, airingWeek: 0, unwatchedEpisodes: 0 });
    expect(await history(account.id)).toHaveLength(1);
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: true } });
    expect((await summaryOf(account.token)).next.episode).toBe('S01E02');
  });

  it('archives with {"archived":true} alone, keeping the follow state, and unarchives', async () => {
    const { account, show } = await fixture();
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, followed: true } });
    const archived = await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, archived: true } });
    expect(archived.json).toEqual({ ok: true });
    const row = await db().libraryItem.findFirstOrThrow({ where: { accountId: account.id, showId: show.id } });
    expect([row.followed, row.archived, row.followExplicit, row.archiveExplicit]).toEqual([true, true, true, true]);
    expect((await summaryOf(account.token)).counts.upNext).toBe(0);
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'show', id: show.id, archived: false } });
    expect((await summaryOf(account.token)).counts.upNext).toBe(1);
  });

  it('follows a movie into releasing', async () => {
    const { account, movie } = await fixture();
    await call(app, 'POST', '/api/machine/follow', { token: account.token, body: { kind: 'movie', id: movie.id, followed: true } });
    expect((await summaryOf(account.token)).releasing.map((item: any) => item.id)).toEqual([movie.id]);
  });

  const badBodies: [string, (ids: { show: number; movie: number }) => unknown, number][] = [
    ['archived on a movie', (ids) => ({ kind: 'movie', id: ids.movie, archived: true }), 400],
    ['neither followed nor archived', (ids) => ({ kind: 'show', id: ids.show }), 400],
    ['kind episode', (ids) => ({ kind: 'episode', id: ids.show, followed: true }), 400],
    ['followed as a string', (ids) => ({ kind: 'show', id: ids.show, followed: 'yes' }), 400],
    ['archived as null', (ids) => ({ kind: 'show', id: ids.show, archived: null }), 400],
    ['an unknown show', (ids) => ({ kind: 'show', id: ids.show + 1_000_000, followed: true }), 404],
  ];
  it.each(badBodies)('rejects %s and writes nothing', async (_name, makeBody, status) => {
    const { account, show, movie } = await fixture();
    const response = await call(app, 'POST', '/api/machine/follow', { token: account.token, body: makeBody({ show: show.id, movie: movie.id }) });
    expect(response.status).toBe(status);
    expect(Object.keys(response.json)).toEqual(['error']);
    expect(await db().libraryItem.count({ where: { accountId: account.id } })).toBe(0);
  });
});
