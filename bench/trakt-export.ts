import { zipSync } from 'fflate';

/**
 * A generated Trakt export of `plays` plays, shaped like the real one (issue 14's import
 * benchmark, reused by bench:isolation): numbered watched-history-N.json files of 1 000 entries
 * in one zip, newest first within and across files, as Trakt writes them. 90 % of the plays are
 * episodes of 450 shows × 100 episodes (each watched twice), 10 % movies.
 */
export function traktExport(plays: number): { zipped: Uint8Array; files: number; jsonBytes: number } {
  const perFile = 1_000;
  const files: Record<string, Uint8Array> = {};
  const encoder = new TextEncoder();
  for (let part = 0; part * perFile < plays; part += 1) {
    const entries = [];
    for (let index = plays - 1 - part * perFile; index >= Math.max(0, plays - (part + 1) * perFile); index -= 1) entries.push(traktPlay(index));
    files[`trakt-export/watched-history-${part + 1}.json`] = encoder.encode(JSON.stringify(entries));
  }
  const jsonBytes = Object.values(files).reduce((sum, file) => sum + file.byteLength, 0);
  return { zipped: zipSync(files, { level: 6 }), files: Object.keys(files).length, jsonBytes };
}

/** Play `index` of a Trakt watched history: an episode of one of 450 shows, or every tenth a movie. */
export function traktPlay(index: number) {
  const at = new Date(Date.UTC(2020, 0, 1) + index * 60_000).toISOString();
  const ids = (tmdb: number, tvdb: number | null) => ({ imdb: null, plex: { guid: null, slug: `s${tmdb}` }, slug: `s${tmdb}`, tmdb, tvdb, trakt: tmdb });
  if (index % 10 === 9) {
    const movie = 5_000_000 + ((index / 10) | 0) % 5_000;
    return { id: index, watched_at: at, action: 'scrobble', type: 'movie', movie: { ids: ids(movie, null), year: 2019, title: `Movie ${movie}` } };
  }
  const episodeIndex = (index - ((index / 10) | 0)) % 45_000;
  const show = 4_000_000 + ((episodeIndex / 100) | 0);
  const number = (episodeIndex % 100) + 1;
  return {
    id: index,
    watched_at: at,
    action: 'watch',
    type: 'episode',
    episode: { ids: { imdb: null, plex: { guid: null }, tmdb: show * 1000 + number, tvdb: null, trakt: index }, title: `Episode ${number}`, number: number % 20 || 20, season: Math.ceil(number / 20) },
    show: { ids: ids(show, show + 1_000_000), year: 2010, title: `Show ${show}`, aired_episodes: 100 },
  };
}
