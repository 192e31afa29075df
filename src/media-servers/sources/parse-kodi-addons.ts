import { imdbId, isRecord, numericId, text, whole, withoutUndefined, type MediaEvent } from './media-event.ts';

/**
 * The bodies the widespread Kodi add-ons send, taken by the generic URL as they are, so that a
 * Kodi user points the add-on they already run at Airdate and writes nothing:
 *
 * - **Movary's add-on** (leepeuker/movary-kodi-addon, `resources/lib/movary_player.py`): when a
 *   film ends, or stops at 90 % or later, `{"title": "…", "uniqueIds": {"tmdbId": "693134"}}`
 *   (Movary reads `title` and `uniqueIds.tmdbId`: its `KodiWebhookDtoMapper`). A film, played.
 * - **Ryot's add-on** (IgnisDa/ryot, its Kodi plugin's `scrobbler.py` and `ryot.py`): every few
 *   seconds while playing, `{"identifier": "<TMDB id>", "lot": "Movie" | "Show", "source": "Tmdb",
 *   "progress": 0–100, "show_season_number": n, "show_episode_number": n}`; the identifier is the
 *   film's TMDB id, or the show's for an episode. Ryot counts more than 95 % as completed: so does
 *   this (played); below, it is progress (answered, not logged).
 *
 * Yamtrack has no Kodi add-on of its own (its sources take Jellyfin, Plex and Emby webhooks only).
 * undefined: not one of these shapes (the generic body's own schema then reads it).
 */
export function parseKodiAddon(body: unknown): MediaEvent | undefined {
  if (!isRecord(body) || body.kind !== undefined) return undefined;
  if (isRecord(body.uniqueIds)) {
    const ids = withoutUndefined({ tmdb: numericId(body.uniqueIds.tmdbId), imdb: imdbId(body.uniqueIds.imdbId) });
    return withoutUndefined({ source: 'generic' as const, event: 'movary-kodi', action: 'played' as const, kind: 'movie' as const, ids, title: text(body.title) });
  }
  if (body.identifier !== undefined && (body.lot === 'Movie' || body.lot === 'Show')) {
    if (body.source !== undefined && text(body.source)?.toLowerCase() !== 'tmdb') return undefined;
    const tmdb = numericId(body.identifier);
    const progress = typeof body.progress === 'number' ? body.progress : Number(body.progress);
    const action = Number.isFinite(progress) && progress > 95 ? ('played' as const) : ('progress' as const);
    const common = { source: 'generic' as const, event: 'ryot-kodi', action };
    if (body.lot === 'Movie') return { ...common, kind: 'movie', ids: withoutUndefined({ tmdb }) };
    return withoutUndefined({ ...common, kind: 'episode' as const, ids: {}, show: { ids: withoutUndefined({ tmdb }) }, season: whole(body.show_season_number), episode: whole(body.show_episode_number) });
  }
  return undefined;
}
