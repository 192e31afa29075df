import type { ImportDocument, ImportEpisode, ImportEpisodeRef, ImportShow, ImportTitle, ImportWatchEvent } from '../../imports/sources/import-document.ts';
import { isHistoryTime } from '../../value-bounds.ts';
import { unusedIdsText } from '../sources/media-event.ts';
import type { PulledPlay } from './pulled-play.ts';

/** The servers history is pulled from (the import's source and the watches' history source `import:<kind>`). */
export const historyKinds = ['jellyfin', 'emby', 'plex'] as const;
export type HistoryKind = (typeof historyKinds)[number];

/**
 * A server's played items as one import document, so that the import machinery records them with
 * its rules (imports/import-service.ts: never duplicated, a second pull adds nothing, unmatched
 * items kept and retried), matched by the ids the webhooks match by:
 * - an episode whose show has ids (TheTVDB, TMDB, IMDb) is that show's season and episode, its
 *   own ids kept beside (the webhooks' first rule, the show ids with season and episode);
 * - an episode whose show has none, but with ids of its own, is an episode reference, found by
 *   those (the webhooks' second and third rules: stored episode ids, then the catalogs);
 * - an episode with neither is its show's title with season and episode, which the import keeps
 *   unmatched (and retries) unless a stored show has ids for it;
 * - a film by its ids, else its title and year.
 * Each item's history is one watch at its last played time (the servers keep no date of earlier
 * plays; the report's notes count the items played more than once); an item without a plausible
 * time is marked watched without a date (the import then fills in only an item the account has no
 * state for). Ids matching cannot use (AniDB) are counted in the notes, with examples.
 */
export function pullDocument(kind: HistoryKind, fileName: string, plays: readonly PulledPlay[], now: Date): ImportDocument {
  const shows = new Map<string, ImportShow>();
  const episodeRefs: ImportEpisodeRef[] = [];
  const titles: ImportTitle[] = [];
  const skipped: ImportDocument['skipped'] = [];
  let replayed = 0;
  const unused: PulledPlay[] = [];
  for (const play of plays) {
    if ((play.playCount ?? 1) > 1) replayed += 1;
    if (play.unusedIds?.length) unused.push(play);
    const history: ImportWatchEvent[] = play.lastPlayed !== undefined && isHistoryTime(play.lastPlayed, now.getTime()) && play.lastPlayed <= now ? [{ watched: true, at: play.lastPlayed }] : [];
    const watched = history.length === 0 ? { watched: true } : {};
    if (play.kind === 'movie') {
      titles.push({ kind: 'movie', ids: play.ids, title: play.title, ...(play.year === undefined ? {} : { year: play.year }), ...(play.serverId ? { sourceId: `${kind}:${play.serverId}` } : {}), history, ...watched });
      continue;
    }
    const showIds = play.show?.ids ?? {};
    const hasShowIds = showIds.tvdb !== undefined || showIds.tmdb !== undefined || showIds.imdb !== undefined;
    const hasOwnIds = play.ids.tvdb !== undefined || play.ids.tmdb !== undefined || play.ids.imdb !== undefined;
    const code = play.season !== undefined && play.episode !== undefined ? ` S${play.season}E${play.episode}` : '';
    const name = `${play.show?.title ?? 'a show'}${code} "${play.title}"`;
    if (play.season === undefined || play.episode === undefined || !hasShowIds) {
      if (hasOwnIds) {
        episodeRefs.push({ ids: { ...(play.ids.tvdb ? { tvdb: play.ids.tvdb } : {}), ...(play.ids.tmdb ? { tmdb: play.ids.tmdb } : {}), ...(play.ids.imdb ? { imdb: play.ids.imdb } : {}) }, label: name, history, ...watched });
        continue;
      }
      if (play.season === undefined || play.episode === undefined) {
        skipped.push({ item: name, reason: 'no season and episode number and no ids: nothing to match it by' });
        continue;
      }
    }
    const key = hasShowIds ? JSON.stringify([showIds.tvdb, showIds.tmdb, showIds.imdb]) : `title:${(play.show?.title ?? '').toLocaleLowerCase()}`;
    let show = shows.get(key);
    if (!show) {
      show = { kind: 'show', ids: { ...(showIds.tvdb ? { tvdb: showIds.tvdb } : {}), ...(showIds.tmdb ? { tmdb: showIds.tmdb } : {}), ...(showIds.imdb ? { imdb: showIds.imdb } : {}) }, title: play.show?.title ?? play.title, episodes: [] };
      shows.set(key, show);
    }
    const last = Math.min(play.episodeEnd ?? play.episode!, play.episode! + 49);
    for (let number = play.episode!; number <= last; number += 1) {
      const episode: ImportEpisode = { season: play.season!, number, history, ...watched };
      if (number === play.episode && hasOwnIds) episode.ids = { ...(play.ids.tvdb ? { tvdb: play.ids.tvdb } : {}), ...(play.ids.tmdb ? { tmdb: play.ids.tmdb } : {}), ...(play.ids.imdb ? { imdb: play.ids.imdb } : {}) };
      show.episodes.push(episode);
    }
  }
  const notes: string[] = [];
  if (replayed > 0) notes.push(`${replayed} item(s) were played more than once: the server keeps the date of the last play only, which is the one recorded`);
  if (unused.length > 0) {
    const examples = unused.slice(0, 3).map((play) => `${play.show?.title ?? play.title}: ${unusedIdsText(play.unusedIds!)}`);
    notes.push(`${unused.length} item(s) carry ids Airdate cannot use, such as ${examples.join('; ')}`);
  }
  return { source: kind, fileName, shows: [...shows.values()], titles, episodeRefs, skipped, notes };
}
