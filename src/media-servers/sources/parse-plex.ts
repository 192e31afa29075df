import { FormatError, imdbId, isRecord, numericId, text, whole, withoutUndefined, type MediaAction, type MediaEvent, type MediaIds, type UnusedId } from './media-event.ts';

/**
 * Plex Media Server's webhooks: `multipart/form-data` with the JSON in the `payload` part (and a
 * JPEG `thumb` part on some events, which is never read); the caller hands over the parsed
 * `payload`. `event` (`media.play`, `media.pause`, `media.resume`, `media.stop`, `media.scrobble`,
 * `media.rate`, `library.new`, …), `Account.title` (the Plex user: a server's webhook receives
 * every user's plays), `Metadata`: `type` (`episode`, `movie`, `track`, …), `title`,
 * `grandparentTitle` (the show), `parentIndex` (season), `index` (episode), `year`, `Guid[]`
 * (`imdb://`, `tmdb://`, `tvdb://`: the item's own ids, an episode's, not its show's) and, from
 * legacy agents, a single `guid` (`com.plexapp.agents.thetvdb://<show>/<season>/<episode>`,
 * `com.plexapp.agents.themoviedb://<show or movie>[/<season>/<episode>]`,
 * `com.plexapp.agents.imdb://<tt…>`).
 *
 * Played: `media.scrobble` (Plex sends it once 90 % is played). Progress: play, pause, resume,
 * stop. Plex sends no manual "mark played" webhook and no event id.
 */
export function parsePlex(payload: unknown): MediaEvent {
  if (!isRecord(payload) || typeof payload.event !== 'string') {
    throw new FormatError('expected a Plex webhook: multipart/form-data with the JSON in a "payload" part (an object with event and Metadata)');
  }
  const event = text(payload.event) ?? 'unknown';
  const action: MediaAction = event === 'media.scrobble' ? 'played' : event.startsWith('media.') && event !== 'media.rate' ? 'progress' : 'other';
  const account = isRecord(payload.Account) ? payload.Account : {};
  const metadata = isRecord(payload.Metadata) ? payload.Metadata : {};
  const type = text(metadata.type);
  const unused = [...unusedGuids(metadata.Guid), ...unusedLegacyGuid(metadata.guid)];
  const common = { source: 'plex' as const, event, action, user: text(account.title), title: text(metadata.title), ...(unused.length > 0 ? { unusedIds: unused } : {}) };
  const legacy = legacyGuid(metadata.guid);
  const ids = withoutUndefined({ ...guidIds(metadata.Guid), ...(legacy?.scope === 'item' ? legacy.ids : {}) });
  if (type === 'movie') return { ...common, kind: 'movie', ids, year: whole(metadata.year) };
  if (type !== 'episode') return { ...common, ids };
  const show = legacy?.scope === 'show' ? legacy : undefined;
  return {
    ...common,
    kind: 'episode',
    ids,
    show: { title: text(metadata.grandparentTitle), ids: show?.ids ?? {} },
    season: whole(metadata.parentIndex) ?? show?.season,
    episode: whole(metadata.index) ?? show?.episode,
  };
}

/** The ids of the new agents' `Guid` list: `[{ "id": "imdb://tt…" }, { "id": "tmdb://…" }, { "id": "tvdb://…" }]`. */
function guidIds(list: unknown): MediaIds {
  const ids: MediaIds = {};
  if (!Array.isArray(list)) return ids;
  for (const entry of list.slice(0, 20)) {
    const id = isRecord(entry) ? text(entry.id) : undefined;
    const match = id === undefined ? null : /^(imdb|tmdb|tvdb):\/\/(.+)$/.exec(id);
    if (!match) continue;
    if (match[1] === 'imdb') ids.imdb ??= imdbId(match[2]);
    else ids[match[1] as 'tmdb' | 'tvdb'] ??= numericId(match[2]);
  }
  return ids;
}

/** The `Guid` entries of other schemes than imdb, tmdb and tvdb (none from Plex's own agents today, but agents vary). */
function unusedGuids(list: unknown): UnusedId[] {
  if (!Array.isArray(list)) return [];
  return list.slice(0, 20).flatMap((entry): UnusedId[] => {
    const id = isRecord(entry) ? text(entry.id) : undefined;
    const match = id === undefined ? null : /^([a-z0-9_-]+):\/\/(.+)$/i.exec(id);
    if (!match || ['imdb', 'tmdb', 'tvdb'].includes(match[1]!.toLowerCase())) return [];
    return [{ provider: match[1]!, id: match[2]!, why: 'Airdate matches by TheTVDB, TMDB and IMDb ids only' }];
  });
}

/**
 * A legacy agent's `guid` of an agent whose ids matching cannot use: HAMA's AniDB ids
 * (`com.plexapp.agents.hama://anidb-12345?lang=en`), and any other but the TheTVDB, TMDB, IMDb,
 * local-media and none agents.
 */
function unusedLegacyGuid(value: unknown): UnusedId[] {
  const guid = text(value);
  const match = guid === undefined ? null : /^com\.plexapp\.agents\.([a-z0-9_.-]+):\/\/([^?]+)/i.exec(guid);
  if (!match || ['thetvdb', 'themoviedb', 'imdb', 'localmedia', 'none'].includes(match[1]!.toLowerCase())) return [];
  const anidb = /^anidb-(\d+)/.exec(match[2]!);
  return [{ provider: anidb ? 'anidb' : match[1]!, id: anidb ? anidb[1]! : match[2]!, why: anidb ? 'Airdate matches by TheTVDB, TMDB and IMDb ids only' : `the ${match[1]} agent's ids are not TheTVDB, TMDB or IMDb ids` }];
}

/**
 * A legacy agent's `guid`: a show's id with season and episode (an episode of the TheTVDB or
 * TMDB agents), or an item's own id (a film of the IMDb or TMDB agents). undefined for the new
 * agents' `plex://…` and for agents without such ids.
 */
function legacyGuid(value: unknown): { scope: 'show'; ids: MediaIds; season?: number; episode?: number } | { scope: 'item'; ids: MediaIds } | undefined {
  const guid = text(value);
  const match = guid === undefined ? null : /^com\.plexapp\.agents\.(thetvdb|themoviedb|imdb):\/\/([^/?]+)(?:\/(\d+)\/(\d+))?/.exec(guid);
  if (!match) return undefined;
  const [, agent, id, season, episode] = match;
  const ids: MediaIds = withoutUndefined(agent === 'imdb' ? { imdb: imdbId(id) } : agent === 'thetvdb' ? { tvdb: numericId(id) } : { tmdb: numericId(id) });
  if (season !== undefined && episode !== undefined) return { scope: 'show', ids, season: Number(season), episode: Number(episode) };
  return { scope: 'item', ids };
}
