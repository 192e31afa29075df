import { describe, expect, it } from 'vitest';
import { apicalypseString, createIgdbProvider, unixSecondsToDate } from '../../src/catalog/igdb-provider.ts';
import { startCatalogServer } from './support/catalog-server.ts';
import { fakeClock } from './support/fake-clock.ts';
import { igdbFixture, type IgdbGame } from './support/igdb-fixture.ts';

const clientId = 'fixture-client-id';
const clientSecret = 'fixture-client-secret-42';
const quest: IgdbGame = { id: 990002, name: 'Fixture Quest', summary: 'A quest.', first_release_date: 1726185600, cover: { id: 4400001, image_id: 'co9fx1' }, giantbombId: 36765 };
const bare: IgdbGame = { id: 287348, name: 'Bare "Game"' };
const many: IgdbGame[] = Array.from({ length: 1001 }, (_, index) => ({ id: 100_000 + index, name: `Bulk ${index}` }));

/** A provider against its own fixture server, so token counts are per test. */
async function setup(expiresIn?: number | null) {
  const fixture = igdbFixture({ games: [quest, bare, ...many] }, clientId, clientSecret, expiresIn);
  const server = await startCatalogServer(fixture.route);
  const clock = fakeClock();
  const provider = createIgdbProvider({ clientId, clientSecret, baseUrl: server.url, tokenUrl: `${server.url}/oauth2/token`, http: { clock, maxAttempts: 2 } });
  const games = () => server.seen('/games');
  return { fixture, server, clock, provider, games };
}

describe('IGDB provider', () => {
  it('looks a game up: unix seconds as a UTC date, cover URL; absent fields as null', async () => {
    const { provider, games } = await setup();
    expect(await provider.lookup('game', 'igdb', 990002)).toEqual({
      kind: 'game',
      ids: { igdb: 990002 },
      title: 'Fixture Quest',
      poster: 'https://images.igdb.com/igdb/image/upload/t_cover_big/co9fx1.jpg',
      overview: 'A quest.',
      releaseDate: '2024-09-13',
    });
    expect(await provider.lookup('game', 'igdb', 287348)).toMatchObject({ poster: null, overview: null, releaseDate: null });
    expect(await provider.lookup('game', 'igdb', 1)).toBeNull();
    expect(await provider.lookup('show', 'igdb', 990002)).toBeNull();
    const [first] = games();
    expect(first!.method).toBe('POST');
    expect(first!.body).toBe('fields name,summary,first_release_date,cover.image_id; where id = 990002; limit 1;');
    expect(first!.headers['client-id']).toBe(clientId);
    expect(first!.headers.authorization).toBe('Bearer igdb-token-1');
  });

  it("resolves a Giant Bomb id through IGDB's external games (source 3)", async () => {
    const { provider, server } = await setup();
    expect(await provider.resolveId!({ kind: 'game', source: 'giantbomb', id: 36765 })).toMatchObject({ kind: 'game', ids: { igdb: 990002, giantbomb: 36765 }, title: 'Fixture Quest' });
    expect(server.seen('/external_games')[0]!.body).toBe('fields game,uid; where external_game_source = 3 & uid = "36765"; limit 1;');
    expect(await provider.resolveId!({ kind: 'game', source: 'giantbomb', id: 1 })).toBeNull();
    expect(await provider.resolveId!({ kind: 'show', source: 'imdb', id: 'tt1' })).toBeNull();
    expect(server.seen('/external_games')).toHaveLength(2);
  });

  it('keeps the token until shortly before it expires, then fetches a new one', async () => {
    const { provider, fixture, clock, server } = await setup(3600);
    await provider.lookup('game', 'igdb', 990002);
    await provider.search('quest');
    expect(fixture.tokensIssued()).toBe(1);
    expect(server.seen('/oauth2/token')[0]!.query.get('grant_type')).toBe('client_credentials');
    await clock.sleep(3600_000 - 60_000); // the minute of margin before expiry
    await provider.lookup('game', 'igdb', 990002);
    expect(fixture.tokensIssued()).toBe(2);
  });

  it('keeps a token whose answer leaves out expires_in for an hour, instead of fetching one per request', async () => {
    const { provider, fixture, clock } = await setup(null);
    await provider.lookup('game', 'igdb', 990002);
    await provider.search('quest');
    expect(fixture.tokensIssued()).toBe(1);
    await clock.sleep(3600_000);
    await provider.lookup('game', 'igdb', 990002);
    expect(fixture.tokensIssued()).toBe(2);
  });

  it('renews the token once after a 401', async () => {
    const { provider, fixture, games } = await setup();
    await provider.lookup('game', 'igdb', 990002);
    fixture.revokeTokens();
    expect((await provider.lookup('game', 'igdb', 990002))?.title).toBe('Fixture Quest');
    expect(fixture.tokensIssued()).toBe(2);
    expect(games().map((request) => request.headers.authorization)).toEqual(['Bearer igdb-token-1', 'Bearer igdb-token-1', 'Bearer igdb-token-2']);
  });

  it('searches with a quoted search clause; other kinds ask nothing', async () => {
    const { provider, games } = await setup();
    expect((await provider.search('bare "game"')).map((game) => game.title)).toEqual(['Bare "Game"']);
    expect(games()[0]!.body).toBe('search "bare \\"game\\""; fields name,summary,first_release_date,cover.image_id; limit 50;');
    expect(await provider.search('bare', 'show')).toEqual([]);
    expect(games()).toHaveLength(1);
    expect(apicalypseString('a\\b\n"')).toBe('"a\\\\b \\""');
  });

  it('refreshes in batches of 500 ids', async () => {
    const { provider, games } = await setup();
    const items = [...many, quest].map((game) => ({ kind: 'game' as const, ids: { igdb: game.id } }));
    const records = await provider.refresh([...items, { kind: 'show', ids: { tmdb: 1 } }]);
    expect(records).toHaveLength(1002);
    const sizes = games().map((request) => /where id = \(([\d,]+)\)/.exec(request.body)![1]!.split(',').length);
    expect(sizes.sort((a, b) => b - a)).toEqual([500, 500, 2]);
  });

  it('a refused client secret is a clear error without the secret', async () => {
    const fixture = igdbFixture({ games: [] }, clientId, 'the-real-secret');
    const server = await startCatalogServer(fixture.route);
    const provider = createIgdbProvider({ clientId, clientSecret, baseUrl: server.url, tokenUrl: `${server.url}/oauth2/token`, http: { clock: fakeClock() } });
    const error = await provider.lookup('game', 'igdb', 1).catch((caught: Error) => caught);
    expect((error as Error).message).toMatch(/^igdb POST \/oauth2\/token: HTTP 400/);
    expect((error as Error).message).not.toContain(clientSecret);
  });

  it('converts unix seconds to UTC dates', () => {
    expect(unixSecondsToDate(0)).toBe('1970-01-01');
    expect(unixSecondsToDate(1726185599)).toBe('2024-09-12');
    expect(unixSecondsToDate('1726185600')).toBeNull();
    expect(unixSecondsToDate(1e15)).toBeNull();
  });
});
