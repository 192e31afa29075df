import type { Prisma } from '../generated/prisma/client.ts';
import type { ImportShow } from './sources/import-document.ts';
import type { WatchTarget } from './import-writes.ts';

type Tx = Prisma.TransactionClient;

/** Shows whose watchedThrough is looked up per query (an IN list of show ids). */
const showsPerQuery = 500;

/**
 * The watches a document's `watchedThrough` shows stand for (Simkl's completed shows, which list no
 * episodes): every episode of the show stored in the catalog when the import runs, in a season
 * ≥ 1 (specials are not part of "completed"), whose air date is known and on or before the date of
 * `watchedThrough.at` (UTC), watched at that time with `estimated` set. Runs inside the import's
 * transaction, before the show's other watches are written, so they merge with the file's own
 * entries for the same episodes like any repeated entry.
 *
 * Episodes the catalog does not know yet (a show whose episode list was never fetched) are not
 * invented; they are not marked.
 *
 * @param shows the slice's shows by database id, as import.ts groups them.
 */
export async function watchedThroughTargets(tx: Tx, shows: [number, ImportShow[]][]): Promise<WatchTarget[]> {
  /** The latest watchedThrough per show (a show named twice in a file). */
  const through = new Map<number, ImportShow['watchedThrough'] & object>();
  for (const [showId, same] of shows) {
    for (const show of same) {
      const mark = show.watchedThrough;
      if (mark && (through.get(showId)?.at.getTime() ?? -Infinity) < mark.at.getTime()) through.set(showId, mark);
    }
  }
  if (through.size === 0) return [];
  const targets: WatchTarget[] = [];
  const ids = [...through.keys()];
  for (let start = 0; start < ids.length; start += showsPerQuery) {
    const part = ids.slice(start, start + showsPerQuery);
    // The latest date any of these shows asks for bounds the query; each show's own date is checked below.
    let latest = -Infinity;
    for (const id of part) latest = Math.max(latest, through.get(id)!.at.getTime());
    const episodes = await tx.episode.findMany({
      where: { showId: { in: part }, season: { gte: 1 }, airDate: { not: null, lte: new Date(latest).toISOString().slice(0, 10) } },
      select: { id: true, showId: true, airDate: true },
    });
    for (const episode of episodes) {
      const mark = through.get(episode.showId)!;
      if (episode.airDate! > mark.at.toISOString().slice(0, 10)) continue;
      targets.push({ kind: 'episode', id: episode.id, history: [{ watched: true, at: mark.at, estimated: true }] });
    }
  }
  return targets;
}
