import { createCachedToken } from './cached-token.ts';
import { CatalogHttpError, createCatalogHttp, systemClock, type CatalogHttpOptions } from './http-client.ts';
import { isObject, positiveId, text, type JsonObject } from './json-fields.ts';
import type { CatalogGame, CatalogProvider } from './provider.ts';

/**
 * IGDB v4 (shared/reference/import-formats.md 5c): games. A Twitch client-credentials token
 * (about 58 days) is kept until a minute before it expires and renewed on a 401. Queries are
 * Apicalypse text POSTed to /games; refresh asks for up to 500 ids per request. IGDB allows
 * 4 requests per second and 8 open requests.
 */

export interface IgdbOptions {
  clientId: string;
  clientSecret: string;
  baseUrl: string;
  /** Twitch's OAuth token endpoint. */
  tokenUrl: string;
  /** Overrides of the HTTP client's defaults (tests shorten delays). */
  http?: Partial<CatalogHttpOptions>;
}

export const igdbRequestsPerSecond = 4;
export const igdbMaxOpenRequests = 8;
/** IGDB's largest `limit`. */
const batchSize = 500;
const searchLimit = 50;
/** Giant Bomb's number among IGDB's external game sources. */
export const giantBombSource = 3;
const fields = 'fields name,summary,first_release_date,cover.image_id;';

/** Quotes `value` as an Apicalypse string; control characters would end the query early. */
export function apicalypseString(value: string): string {
  return `"${value.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Unix seconds as the UTC date YYYY-MM-DD, or null when absent or out of range. */
export function unixSecondsToDate(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const date = new Date(Math.floor(value) * 1000);
  const year = date.getUTCFullYear();
  return Number.isNaN(date.getTime()) || year < 1 || year > 9999 ? null : date.toISOString().slice(0, 10);
}

export function createIgdbProvider(options: IgdbOptions): CatalogProvider {
  const http = createCatalogHttp({
    provider: 'igdb',
    requestsPerSecond: igdbRequestsPerSecond,
    maxOpenRequests: igdbMaxOpenRequests,
    secrets: [options.clientSecret],
    ...options.http,
  });

  const token = createCachedToken(async () => {
    const url = new URL(options.tokenUrl);
    url.searchParams.set('client_id', options.clientId);
    url.searchParams.set('client_secret', options.clientSecret);
    url.searchParams.set('grant_type', 'client_credentials');
    const answer = await http.json({ method: 'POST', url });
    const issued = isObject(answer) ? text(answer.access_token) : null;
    // Twitch always says how long (about 60 days); without it, an hour rather than a new token per request.
    const lifetime = isObject(answer) && typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
    if (issued === null) throw new CatalogHttpError(`igdb POST ${url.pathname}: the answer has no access_token`, 'igdb', undefined);
    return { token: issued, lifetimeMs: lifetime * 1000 };
  }, options.http?.clock ?? systemClock);

  /** POSTs an Apicalypse query to `endpoint`; IGDB answers an array. */
  async function query(endpoint: string, body: string): Promise<unknown[]> {
    const url = new URL(`${options.baseUrl}${endpoint}`);
    const answer = await token.use((bearer) =>
      http.json({
        method: 'POST',
        url,
        headers: { 'client-id': options.clientId, authorization: `Bearer ${bearer}`, 'content-type': 'text/plain' },
        body,
      }),
    );
    if (!Array.isArray(answer)) throw new CatalogHttpError(`igdb POST ${endpoint}: the answer is not a JSON array`, 'igdb', undefined);
    return answer;
  }

  /** Runs an Apicalypse query against /games; the answer is an array of games. */
  async function games(body: string): Promise<CatalogGame[]> {
    return (await query('/games', body)).filter(isObject).flatMap((game) => {
      const record = toRecord(game);
      return record ? [record] : [];
    });
  }

  return {
    name: 'igdb',
    async lookup(kind, source, externalId) {
      if (kind !== 'game' || source !== 'igdb') return null;
      const [game] = await games(`${fields} where id = ${externalId}; limit 1;`);
      return game ?? null;
    },
    async search(text, kind) {
      if (kind !== undefined && kind !== 'game') return [];
      return games(`search ${apicalypseString(text)}; ${fields} limit ${searchLimit};`);
    },
    /**
     * A game by its Giant Bomb id (older Grouvee exports): IGDB's external game ids, source 3
     * (Giant Bomb in IGDB's external_game_sources; the deprecated `category` used the same number).
     */
    async resolveId(wanted) {
      if (wanted.kind !== 'game' || wanted.source !== 'giantbomb' || typeof wanted.id !== 'number') return null;
      const [external] = (await query('/external_games', `fields game,uid; where external_game_source = ${giantBombSource} & uid = "${wanted.id}"; limit 1;`)).filter(isObject);
      const gameId = positiveId(external?.game);
      if (gameId === undefined) return null;
      const [game] = await games(`${fields} where id = ${gameId}; limit 1;`);
      return game ? { ...game, ids: { ...game.ids, giantbomb: wanted.id } } : null;
    },
    async refresh(items) {
      const ids = [...new Set(items.flatMap((item) => (item.kind === 'game' && item.ids.igdb !== undefined ? [item.ids.igdb] : [])))];
      const batches: number[][] = [];
      for (let start = 0; start < ids.length; start += batchSize) batches.push(ids.slice(start, start + batchSize));
      // Batches run together; the limiter keeps them within 4 per second and 8 open.
      const answers = await Promise.all(batches.map((batch) => games(`${fields} where id = (${batch.join(',')}); limit ${batchSize};`)));
      return answers.flat();
    },
  };
}

function toRecord(game: JsonObject): CatalogGame | null {
  const id = positiveId(game.id);
  const title = text(game.name);
  if (id === undefined || title === null) return null;
  const imageId = isObject(game.cover) ? text(game.cover.image_id) : null;
  const poster = imageId !== null && /^[A-Za-z0-9_-]+$/.test(imageId) ? `https://images.igdb.com/igdb/image/upload/t_cover_big/${imageId}.jpg` : null;
  return { kind: 'game', ids: { igdb: id }, title, poster, overview: text(game.summary), releaseDate: unixSecondsToDate(game.first_release_date) };
}
