import type { Answer, SeenRequest } from './catalog-peer.ts';

export interface IgdbGame {
  id: number;
  name: string;
  summary?: string;
  first_release_date?: number;
  cover?: { id: number; image_id: string };
  /** Giant Bomb's id of the game, served by /external_games (source 3). */
  giantbombId?: number;
}

/**
 * Answers like Twitch's token endpoint (POST /oauth2/token) and IGDB v4 (POST /games with an
 * Apicalypse body, import-formats.md 5c) from `data`. Tokens live `expiresIn` seconds (null: the answer leaves expires_in out);
 * `revokeTokens` makes the issued ones answer 401.
 */
export function igdbFixture(data: { games: IgdbGame[] }, clientId: string, clientSecret: string, expiresIn: number | null = 5_011_271) {
  const valid = new Set<string>();
  let issued = 0;
  const route = (request: SeenRequest): Answer => {
    if (request.path === '/oauth2/token') {
      const { query } = request;
      if (request.method !== 'POST' || query.get('client_id') !== clientId || query.get('client_secret') !== clientSecret || query.get('grant_type') !== 'client_credentials') {
        return { status: 400, json: { status: 400, message: 'invalid client secret' } };
      }
      const token = `igdb-token-${(issued += 1)}`;
      valid.add(token);
      return { json: { access_token: token, ...(expiresIn === null ? {} : { expires_in: expiresIn }), token_type: 'bearer' } };
    }
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (request.headers['client-id'] !== clientId || !valid.has(token)) return { status: 401, json: { message: 'Authorization Failure' } };
    const body = request.body;
    if (request.method === 'POST' && request.path === '/external_games') {
      const where = /where external_game_source = (\d+) & uid = "(\d+)";/.exec(body);
      const found = where && where[1] === '3' ? data.games.filter((game) => String(game.giantbombId) === where[2]) : [];
      return { json: found.map((game, index) => ({ id: 50_000 + index, game: game.id, uid: String(game.giantbombId), external_game_source: 3 })) };
    }
    if (request.method !== 'POST' || request.path !== '/games') return { status: 404, json: [] };
    const limit = Number(/limit (\d+);/.exec(body)?.[1] ?? '10');
    const list = /where id = \(([\d,]+)\);/.exec(body)?.[1] ?? /where id = (\d+);/.exec(body)?.[1];
    const search = /search "((?:[^"\\]|\\.)*)";/.exec(body)?.[1]?.replace(/\\(.)/g, '$1');
    let games = data.games;
    if (list !== undefined) games = games.filter((game) => list.split(',').includes(String(game.id)));
    if (search !== undefined) games = games.filter((game) => game.name.toLowerCase().includes(search.toLowerCase()));
    return { json: games.slice(0, limit).map(({ giantbombId: _giantbomb, ...game }) => game) };
  };
  return { route, tokensIssued: () => issued, revokeTokens: () => valid.clear() };
}
