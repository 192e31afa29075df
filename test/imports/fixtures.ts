import { zipSync } from 'fflate';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * Import fixtures written from reference/import-formats.md (field names, nesting and value types
 * as the real exports have them; values invented).
 */

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const json = (value: unknown): Uint8Array => bytes(JSON.stringify(value));

/** Trakt show ids as the newer export has them (nested plex object, nulls). */
export function traktShow(title: string, tmdb: number | null, tvdb: number | null) {
  return {
    ids: { imdb: null, plex: { guid: null, slug: title.toLowerCase() }, slug: title.toLowerCase(), tmdb, tvdb, trakt: 1388 },
    year: 2008,
    title,
    aired_episodes: 62,
  };
}

/** One play of an episode in `watched-history*.json`. */
export function traktEpisodePlay(id: number, at: string, show: ReturnType<typeof traktShow>, season: number, number: number) {
  return {
    id,
    watched_at: at,
    action: 'watch',
    type: 'episode',
    episode: { ids: { imdb: null, plex: { guid: null }, tmdb: 7000000 + number, tvdb: 9000000 + number, trakt: 8000000 + number }, title: `Episode ${number}`, number, season },
    show,
  };
}

/** One play of a movie in `watched-history*.json`. */
export function traktMoviePlay(id: number, at: string, title: string, tmdb: number | null) {
  return {
    id,
    watched_at: at,
    action: 'scrobble',
    type: 'movie',
    movie: { ids: { imdb: 'tt7000001', plex: { guid: '5d77', slug: 'film' }, slug: 'film-2019', tmdb, trakt: 600001 }, year: 2019, title },
  };
}

/** A zip of `files` (name → bytes), as an export would be. */
export function zip(files: Record<string, Uint8Array>): Uint8Array {
  return zipSync(files, { level: 6 });
}

/** TV Time's v2 tracking file with CRLF line ends and a BOM, as Windows tools write it. */
export function tvTimeTrackingV2(rows: string[]): Uint8Array {
  const header = 'ep_watch_count,updated_at,key,user_id,created_at,is_archived,is_for_later,s_id,series_name,is_followed,ep_no,ep_id,episode_number,rewatch_count,s_no,is_unitary,episode_id,season_number,gsi,is_special';
  return bytes(`\uFEFF${[header, ...rows].join('\r\n')}\r\n`);
}

/** A TV Time v2 row watching (series, season, episode) at a naive time. */
export function tvTimeWatch(seriesId: number, name: string, season: number, episode: number, at: string, key = 'watch-episode-0aa1'): string {
  return `,${at},${key},4242,${at},,,${seriesId},${name},,${episode},${9000000 + episode},${episode},0,${season},false,${9000000 + episode},${season},,`;
}

/** Grouvee's 20-column header. */
export const grouveeHeader =
  'id,name,shelves,platforms,rating,review_title,review,review_platform,dates,statuses,genres,franchises,series,developers,publishers,release_date,date_added_to_collection,url,giantbomb_id,igdb_id';

/**
 * A Grouvee row; `shelf` decides played or not, `finished` the dates entry. Rows are distinct by
 * Grouvee id: by default the igdb id, or one derived from the name for a row without it.
 */
export function grouveeRow(name: string, igdb: number | '', shelf: string, finished?: string, grouveeId: number = igdb === '' ? nameNumber(name) : igdb): string {
  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
  const shelves = quote(JSON.stringify({ [shelf]: { date_added: '2021-05-01T10:00:00Z', url: 'https://www.grouvee.com/user/fixture/shelves/1/' } }));
  const dates = quote(JSON.stringify(finished ? [{ date_started: '2021-04-01', date_finished: finished, seconds_played: 14400, level_of_completion: 'Main Story' }] : []));
  return `${grouveeId},${name},${shelves},"{}",5,,,,${dates},[],{},{},{},{},{},2007-10-10,2021-05-01,https://www.grouvee.com/games/${grouveeId}/,,${igdb}`;
}

/** A stable positive number for a name (a Grouvee id for fixture rows without one). */
function nameNumber(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) % 1_000_000_007;
  return hash + 1;
}

const deflated = new WeakMap<Uint8Array, Buffer>();

/**
 * A one-entry zip holding `content` deflated by node:zlib (native, ~4× faster than fflate for the
 * 300 MiB bombs below), with `declaredSize` in its headers: the real size, or a lie.
 */
export function deflatedZip(name: string, content: Uint8Array, declaredSize = content.byteLength): Uint8Array {
  const data = deflated.get(content) ?? deflateRawSync(content, { level: 9 });
  deflated.set(content, data);
  const file = Buffer.from(name);
  const fields = (header: Buffer, at: number) => {
    header.writeUInt16LE(20, at); // version needed
    header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
    header.writeUInt16LE(8, at + 4); // deflate
    header.writeUInt32LE(crc32(content), at + 10);
    header.writeUInt32LE(data.length, at + 14);
    header.writeUInt32LE(declaredSize, at + 18);
    header.writeUInt16LE(file.length, at + 22);
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  fields(local, 4);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  fields(central, 6);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + file.length, 12);
  end.writeUInt32LE(local.length + file.length + data.length, 16);
  return Buffer.concat([local, file, data, central, file, end]);
}
