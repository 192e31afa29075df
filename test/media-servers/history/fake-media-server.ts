import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A media server stand-in for the history pulls: a real HTTP server on 127.0.0.1 answering the
 * routes a pull reads, with bodies of the servers' own shapes (fixtures/README.md says where they
 * come from), paged as the servers page them, checking the key as they do. Jellyfin and Emby:
 * `GET /Users`, `GET /Users/{id}/Items` (played items by `StartIndex`/`Limit`, or the shows named
 * by `Ids`). Plex: `GET /accounts`, `GET /library/sections`, `GET /library/sections/{key}/all` by
 * `type`, paged by `X-Plex-Container-Start`/`Size` (headers or query).
 */

export const fixture = <T = any>(name: string): T => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;

export interface FakeServerOptions {
  kind: 'jellyfin' | 'emby' | 'plex';
  key: string;
  /** Jellyfin/Emby: the played items (BaseItemDto), every user the same. Default: the fixture's. */
  items?: Record<string, unknown>[];
  /** Jellyfin/Emby: the shows `Ids=` asks for. Default: the fixture's. */
  series?: Record<string, unknown>[];
  /** Plex: the movies, shows and episodes of its libraries. Default: the fixtures'. */
  plex?: { movies: Record<string, unknown>[]; shows: Record<string, unknown>[]; episodes: Record<string, unknown>[] };
  /** A page starting at or past this index is never answered (a server that hangs mid-way). */
  hangFrom?: number;
  /** Every answer is a reverse proxy's HTML login page (status 200). */
  html?: boolean;
}

export interface FakeServer {
  url: string;
  /** The paths (with query) asked, in order. */
  requests: string[];
  close(): Promise<void>;
}

const loginPage = '<!DOCTYPE html><html><head><title>Sign in · Authelia</title></head><body><form method="post" action="/api/firstfactor"><input name="username"><input name="password" type="password"></form></body></html>';

export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (options.html) return send(response, 200, loginPage, 'text/html; charset=utf-8');
    if (!authorised(request, options)) return send(response, 401, options.kind === 'plex' ? '<html><head><title>Unauthorized</title></head><body><h1>401 Unauthorized</h1></body></html>' : '', options.kind === 'plex' ? 'text/html' : 'text/plain');
    const url = new URL(request.url ?? '/', 'http://fake');
    const page = (list: unknown[], start: number, size: number) => list.slice(start, start + size);
    if (options.kind === 'plex') return plex(url, request, response);
    if (url.pathname === '/Users') return json(response, fixture('jellyfin-users.json'));
    const items = /^\/Users\/[^/]+\/Items$/.exec(url.pathname);
    if (items) {
      const ids = url.searchParams.get('Ids');
      if (ids !== null) {
        const wanted = new Set(ids.split(','));
        const series = (options.series ?? fixture('jellyfin-series.json').Items).filter((item: Record<string, unknown>) => wanted.has(String(item.Id)));
        return json(response, { Items: series, TotalRecordCount: series.length, StartIndex: 0 });
      }
      const all = options.items ?? fixture('jellyfin-played-items.json').Items;
      const start = Number(url.searchParams.get('StartIndex') ?? 0);
      const limit = Number(url.searchParams.get('Limit') ?? all.length);
      if (options.hangFrom !== undefined && start >= options.hangFrom) return void hanging.add(response);
      return json(response, { Items: page(all, start, limit), TotalRecordCount: all.length, StartIndex: start });
    }
    return send(response, 404, 'not found', 'text/plain');
  });

  function plex(url: URL, request: IncomingMessage, response: ServerResponse) {
    const data = options.plex ?? { movies: fixture('plex-movies.json').MediaContainer.Metadata, shows: fixture('plex-shows.json').MediaContainer.Metadata, episodes: fixture('plex-episodes.json').MediaContainer.Metadata };
    if (url.pathname === '/accounts') return json(response, fixture('plex-accounts.json'));
    if (url.pathname === '/library/sections') return json(response, fixture('plex-sections.json'));
    const section = /^\/library\/sections\/(\d+)\/all$/.exec(url.pathname);
    if (!section) return send(response, 404, 'not found', 'text/plain');
    const type = url.searchParams.get('type');
    const list = section[1] === '1' && type === '1' ? data.movies : section[1] === '2' && type === '2' ? data.shows : section[1] === '2' && type === '4' ? data.episodes : [];
    const header = (name: string) => request.headers[name.toLowerCase()] ?? url.searchParams.get(name) ?? undefined;
    const start = Number(header('X-Plex-Container-Start') ?? 0);
    const size = Number(header('X-Plex-Container-Size') ?? list.length);
    if (options.hangFrom !== undefined && start >= options.hangFrom && size > 0) return void hanging.add(response);
    const slice = list.slice(start, start + size);
    return json(response, { MediaContainer: { size: slice.length, totalSize: list.length, offset: start, librarySectionID: Number(section[1]), ...(slice.length > 0 ? { Metadata: slice } : {}) } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function authorised(request: IncomingMessage, options: FakeServerOptions): boolean {
  if (options.kind === 'plex') return request.headers['x-plex-token'] === options.key;
  const header = String(request.headers.authorization ?? '');
  const fromAuthorization = /Token="([^"]*)"/.exec(header)?.[1];
  return (fromAuthorization ?? request.headers['x-emby-token']) === options.key;
}

function send(response: ServerResponse, status: number, body: string, type: string) {
  response.writeHead(status, { 'content-type': type });
  response.end(body);
}

const json = (response: ServerResponse, body: unknown) => send(response, 200, JSON.stringify(body), 'application/json; charset=utf-8');

/**
 * `count` played episodes in Jellyfin's shape (the fixture's first item as the template): shows of
 * 10 seasons of 10 episodes, each show with its own TheTVDB id (ids no catalog holds: the import
 * makes their rows), each episode its own TheTVDB id; and the shows for `Ids=`. The shows' ids
 * start at `firstShowTvdb`: a row an import made is its account's alone until a catalog knows it
 * (docs/security.md), so another account's pull of the same shows would find them unmatched.
 */
export function generatedJellyfinLibrary(count: number, firstShowTvdb = 9_000_000): { items: Record<string, unknown>[]; series: Record<string, unknown>[] } {
  const template = fixture('jellyfin-played-items.json').Items[0] as Record<string, unknown>;
  const items: Record<string, unknown>[] = [];
  const series: Record<string, unknown>[] = [];
  for (let index = 0; index < count; index += 1) {
    const show = Math.floor(index / 100);
    const seriesId = `series${String(show).padStart(28, '0')}`;
    if (index % 100 === 0) series.push({ Name: `Generated Show ${show}`, Id: seriesId, Type: 'Series', IsFolder: true, ProviderIds: { Tvdb: String(firstShowTvdb + show) } });
    items.push({
      ...template,
      Name: `Episode ${index}`,
      Id: `episode${String(index).padStart(25, '0')}`,
      IndexNumber: (index % 10) + 1,
      ParentIndexNumber: Math.floor((index % 100) / 10) + 1,
      ProviderIds: { Tvdb: String(60_000_000 + index) },
      UserData: { PlaybackPositionTicks: 0, PlayCount: 1 + (index % 3 === 0 ? 1 : 0), IsFavorite: false, LastPlayedDate: new Date(Date.UTC(2020, 0, 1) + index * 3_600_000).toISOString(), Played: true, Key: String(index) },
      SeriesName: `Generated Show ${show}`,
      SeriesId: seriesId,
    });
  }
  return { items, series };
}
